import type { Media } from '../../contract/wire-types.js';
import { UsageError, sanitize } from '../../errors.js';
import type { VideoFile } from '../../media/check.js';
import type { Progress } from '../../ui/progress.js';
import { parseWaitFlags, type WaitFlags } from '../../session/wait-flags.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { MEDIA_FIELDS } from '../output/json-fields.js';

interface UploadOpts extends WaitFlags {
  file: VideoFile;
  idempotencyKey?: string;
  reupload?: boolean;
}

// --no-wait and --timeout of upload and import are defined in the registry (./index.ts).

/**
 * Runs a media flow with progress on stderr and a deadline from --timeout,
 * then says how it went.
 */
export async function runMediaFlow(
  inv: Invocation,
  flags: WaitFlags & { idempotencyKey?: string },
  flow: (o: { wait: boolean; deadlineMs: number; progress: Progress; idempotencyBase?: string }) => Promise<Media>,
  done: (media: Media) => string,
): Promise<Media> {
  const progress = await inv.session.progress();
  const media = await flow({ wait: flags.wait, deadlineMs: inv.ctx.clock.now() + flags.timeoutMs, progress, idempotencyBase: flags.idempotencyKey });
  reportMedia(media, inv, done(media));
  return media;
}

/** The last line on stderr once a video is through. */
function reportMedia(media: Media, inv: Invocation, what: string): void {
  const c = inv.colors.stderr;
  const ok = c.green('✓');
  if (media.status === 'ready') {
    // The video's length, not the time the upload took.
    const dur = typeof media.duration_sec === 'number' ? ` (${Math.round(media.duration_sec)} s long)` : '';
    inv.log.info(`${ok} ${what}: video ${c.bold(media.id)} is ready${dur}.`);
  } else {
    const state = media.status === 'uploading' && media.source === 'import' ? 'downloading' : media.status;
    inv.log.info(`${ok} ${what}: video ${c.bold(media.id)} is ${state}; the service goes on with it.`);
  }
}

export default defineCommand<'upload', UploadOpts, Media>({
  description:
    'Upload a local video (MP4, MOV, WebM, AVI or MTS, at most 1 GB) and wait until the service has processed it. ' +
    'Prints the video id (or the video record with --json). The file is checked before anything is sent, streamed ' +
    'from disk, and sent again from the start if the connection drops.',
  examples: [
    'vidpub upload clip.mp4',
    'vidpub upload clip.mp4 --json | jq -r .id',
    'vidpub upload big.mp4 --no-wait',
    'MEDIA=$(vidpub upload clip.mp4 --timeout 10m --quiet)',
  ],
  async parse(args, flags, inv) {
    const path = args[0];
    if (path === '') throw new UsageError('give the path of a video file: vidpub upload FILE');
    const wait = parseWaitFlags(flags);
    const { checkVideoFile } = await import('../../media/check.js');
    const { parseIdempotencyKey } = await import('../../posts/flags.js');
    return { file: await checkVideoFile(path, inv.ctx.cwd), ...wait, idempotencyKey: parseIdempotencyKey(flags.idempotencyKey), reupload: flags.reupload };
  },
  async run(opts, inv) {
    const { uploadFile } = await import('../../media/upload-flow.js');
    return runMediaFlow(inv, opts, (o) => uploadFile(inv.session, opts.file, { ...o, reupload: opts.reupload }), (m) => `${(m as { reused?: true }).reused ? 'Uploaded before' : 'Uploaded'} ${sanitize(opts.file.filename)}`);
  },
  print(media, inv) {
    inv.print(media.id);
  },
  fields: MEDIA_FIELDS,
});
