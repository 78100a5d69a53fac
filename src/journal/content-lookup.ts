/**
 * The videos the journal knows by their content (media records with a cheap
 * key, media/fingerprint.ts): the newest record of each media id, of this
 * service and key or workspace, and none whose newest record says the
 * service forgot it (unless `forgotten`).
 */
import type { JournalOwner } from './journal-owner.js';
import type { JournalReader } from './journal-reader.js';
import type { KnownVideo, MediaRecord } from './journal-types.js';
import { readIdentity } from '../util/same-file.js';

/** The newest media records the journal has with a cheap key, of this service and key (or workspace), picked by `wanted`. */
async function knownVideos(reader: JournalReader, owner: JournalOwner, needle: string, wanted: (r: MediaRecord) => boolean, forgotten: boolean): Promise<KnownVideo[]> {
  const ctx = await owner.record();
  const seen = new Set<string>();
  const out: KnownVideo[] = [];
  for (const r of reader.records(needle)) {
    if (r.kind !== 'media' || typeof r.sample !== 'string' || typeof r.size !== 'number' || !wanted(r) || seen.has(r.media_id)) continue;
    seen.add(r.media_id);
    if ((r.outcome === 'forgotten' && !forgotten) || !(await owner.owns(r, ctx))) continue;
    const fileId = readIdentity(r.file_id);
    out.push({
      media_id: r.media_id,
      ...(typeof r.sha256 === 'string' ? { sha256: r.sha256 } : {}),
      sample: r.sample,
      size: r.size,
      ...(fileId ? { file_id: fileId } : {}),
      at: r.at,
      ...(r.ready_at ? { ready_at: r.ready_at } : {}),
      outcome: r.outcome,
      ...(typeof r.idem === 'string' ? { idem: r.idem } : {}),
    });
  }
  return out;
}

export function videosByContent(reader: JournalReader, owner: JournalOwner, size: number, sample: string, forgotten = false): Promise<KnownVideo[]> {
  return knownVideos(reader, owner, `"sample":${JSON.stringify(sample)}`, (r) => r.sample === sample && r.size === size, forgotten);
}

/** The same, for every video of one of these sizes, in one pass over the journal (a batch's files). */
export function videosBySize(reader: JournalReader, owner: JournalOwner, sizes: ReadonlySet<number>, forgotten = false): Promise<KnownVideo[]> {
  return knownVideos(reader, owner, '"sample":', (r) => sizes.has(r.size!), forgotten);
}
