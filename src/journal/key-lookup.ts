/**
 * Finding posts by their --idempotency-key (the rerun guard of post, and
 * batch's items by their keys): only the post records this command's service
 * made with this key or in its workspace count.
 */
import type { JournalOwner } from './journal-owner.js';
import type { JournalReader } from './journal-reader.js';
import type { JournalPost, KeyedPost, PostRecord, RecordContext } from './journal-types.js';
import { readIdentity } from '../util/same-file.js';

/** The "idem" of a journal line, read from its text without parsing the rest (undefined if none). */
function idemOfLine(text: string): string | undefined {
  const m = /"idem":("(?:[^"\\]|\\.)*")/.exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return undefined;
  }
}

export class KeyLookup {
  constructor(
    private readonly reader: JournalReader,
    private readonly owner: JournalOwner,
  ) {}

  /** The newest post made with this --idempotency-key at this service, in this workspace. */
  async findByKey(key: string): Promise<JournalPost | undefined> {
    for await (const r of this.ownPostsByKey(`"idem":${JSON.stringify(key)}`, (idem) => idem === key)) return this.reader.foldOne(r.post_id);
    return undefined;
  }

  /** Of these keys, those under which a post was made: key → post id. */
  async postIdsByKeys(keys: Iterable<string>): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [key, p] of await this.postsByKeys(keys)) found.set(key, p.post_id);
    return found;
  }

  /** Of these keys, those under which a post was made: key → the newest such post, with the file it was made from when known. */
  async postsByKeys(keys: Iterable<string>): Promise<Map<string, KeyedPost>> {
    const want = new Set(keys);
    const found = new Map<string, KeyedPost>();
    if (want.size === 0) return found;
    // One pass over the journal for all of them; a line is parsed only when its key is one of them.
    for await (const r of this.ownPostsByKey('"idem":', (idem) => want.has(idem) && !found.has(idem), idemOfLine)) {
      const fileId = readIdentity(r.file_id);
      found.set(r.idem!, { post_id: r.post_id, at: r.at, ...(r.file ? { file: r.file } : {}), ...(fileId ? { file_id: fileId } : {}) });
      if (found.size === want.size) break;
    }
    return found;
  }

  /**
   * The post records made at this command's service with this key or in its workspace whose
   * --idempotency-key `wanted` accepts, newest first. `idemOf` reads the key from a line's text,
   * so that the lines of other keys are not parsed.
   */
  private async *ownPostsByKey(needle: string, wanted: (idem: string) => boolean, idemOf?: (text: string) => string | undefined): AsyncGenerator<PostRecord> {
    let ctx: RecordContext;
    try {
      ctx = await this.owner.record();
    } catch {
      return;
    }
    const keep = idemOf
      ? (text: string) => {
          const idem = idemOf(text);
          return idem !== undefined && wanted(idem);
        }
      : undefined;
    for (const r of this.reader.records(needle, keep)) {
      if (r.kind !== 'post' || r.idem === undefined || !wanted(r.idem)) continue;
      if (await this.owner.owns(r, ctx)) yield r;
    }
  }
}
