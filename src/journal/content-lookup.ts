/**
 * The videos the journal knows by their content (media records with a cheap
 * key, media/fingerprint.ts): the newest record of each media id, of this
 * service and key or workspace, and none whose newest record says the
 * service forgot it.
 */
import type { JournalOwner } from './journal-owner.js';
import type { JournalReader } from './journal-reader.js';
import type { KnownVideo } from './journal-types.js';
import { readIdentity } from '../util/same-file.js';

export async function videosByContent(reader: JournalReader, owner: JournalOwner, size: number, sample: string, forgotten = false): Promise<KnownVideo[]> {
  const ctx = await owner.record();
  const seen = new Set<string>();
  const out: KnownVideo[] = [];
  for (const r of reader.records(`"sample":${JSON.stringify(sample)}`)) {
    if (r.kind !== 'media' || r.sample !== sample || r.size !== size || seen.has(r.media_id)) continue;
    seen.add(r.media_id);
    if ((r.outcome === 'forgotten' && !forgotten) || !(await owner.owns(r, ctx))) continue;
    const fileId = readIdentity(r.file_id);
    out.push({
      media_id: r.media_id,
      ...(typeof r.sha256 === 'string' ? { sha256: r.sha256 } : {}),
      sample,
      size,
      ...(fileId ? { file_id: fileId } : {}),
      at: r.at,
      ...(r.ready_at ? { ready_at: r.ready_at } : {}),
      outcome: r.outcome,
    });
  }
  return out;
}
