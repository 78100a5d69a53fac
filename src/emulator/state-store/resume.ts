/**
 * The background work a stop cut short, started again once a saved world is
 * back: a video that was processing is processed again, an import that was
 * downloading downloads again, an upload that was receiving its bytes takes
 * them again (its client's PUT died with the emulator), and a post that was
 * publishing goes on with the destinations not yet out. Scheduled posts need
 * nothing: the emulator sends them when their time comes.
 */
import type { Core } from '../core.js';
import { startDownload, startProcessing } from '../media.js';
import { goOut } from '../posting.js';

export function resumeWork(core: Core): void {
  for (const ws of core.state.workspaces.values()) {
    for (const m of ws.media.values()) {
      if (m.upload?.state === 'receiving') {
        m.upload.state = 'open';
        m.receivedBytes = 0;
      }
      if (m.status === 'processing') startProcessing(core, m);
      else if (m.status === 'uploading' && m.source === 'import' && m.importUrl !== null) startDownload(core, m);
    }
    for (const p of ws.posts.values()) {
      if (p.status !== 'publishing') continue;
      for (const d of p.destinations) if (d.status === 'publishing') d.status = 'pending';
      goOut(core, p);
    }
  }
}
