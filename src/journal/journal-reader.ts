/**
 * Reading the journal back, newest first: its records parsed (a damaged line
 * warns once and is skipped), one post folded with what was seen of it after,
 * the newest post of a profile, the retries of a post, and history's list.
 */
import { sanitize, VidpubError } from '../errors.js';
import { decode, type JournalStore, type ReadLine } from './jsonl-store.js';
import type { HistoryQuery, JournalPost, JournalRecord, PostRecord, StatusRecord } from './journal-types.js';
import { fold, matchesDestination } from './post-fold.js';

/** Adds `value` to the list under `key`. */
function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Whether history's query takes a post record (before its statuses are folded in). */
function recordWanted(q: HistoryQuery, r: PostRecord): boolean {
  if (q.profile !== undefined && r.profile !== q.profile) return false;
  if (q.sinceMs !== undefined && !(Date.parse(r.at) >= q.sinceMs)) return false;
  return q.workspace === undefined || r.workspace === q.workspace || r.workspace_id === q.workspace;
}

/** Whether history's query takes a post as folded. */
function postWanted(q: HistoryQuery, p: JournalPost): boolean {
  if (q.state !== undefined && p.state !== q.state) return false;
  return q.destination === undefined || matchesDestination(p, q.destination);
}

export class JournalReader {
  private damageWarned = false;

  constructor(
    private readonly store: JournalStore,
    private readonly dir: string,
    private readonly warn: (line: string) => void,
  ) {}

  /**
   * The records, newest first, parsed; a damaged line warns once and is skipped.
   * `keep`, when given, picks lines by their text before any is parsed. `strict`:
   * a journal that cannot be read fails (else it warns and reads as empty).
   */
  *records(needle?: string, keep?: (text: string) => boolean, strict = false): Generator<JournalRecord> {
    let lines: Generator<ReadLine>;
    try {
      lines = this.store.linesNewestFirst(needle);
    } catch {
      return;
    }
    try {
      for (const l of lines) {
        if (keep && !keep(l.text)) continue;
        const { record, damaged } = decode(l.text);
        if (damaged) this.warnDamage(l);
        if (record) yield record;
      }
    } catch (err) {
      this.unreadable(err, strict);
    }
  }

  private warnDamage(l: ReadLine): void {
    if (this.damageWarned) return;
    this.damageWarned = true;
    this.warn(`Skipped a damaged line in the journal: ${l.file} line ${l.line} (the file is left as it is).`);
  }

  private unreadable(err: unknown, strict: boolean): void {
    const code = (err as NodeJS.ErrnoException).code;
    const what = `Could not read the journal in ${this.dir}${code ? ` (${code})` : ''}`;
    // A command that only reads it (history, status without an id) fails: an empty answer would be a false one.
    if (strict) throw new VidpubError(`${what}: ${sanitize(err instanceof Error ? err.message : String(err))}`, { hint: `Check that the files there can be read by you (ls -l ${this.dir}).`, cause: err });
    this.warn(`${what}.`);
  }

  /** One post by id, folded (undefined when the journal has no post record of it). */
  foldOne(postId: string): JournalPost | undefined {
    const statuses: StatusRecord[] = [];
    const retriedBy: string[] = [];
    for (const r of this.records(`"${postId}"`)) {
      if (r.kind === 'status' && r.post_id === postId) statuses.push(r);
      else if (r.kind === 'post' && r.retry_of === postId) retriedBy.push(r.post_id);
      else if (r.kind === 'post' && r.post_id === postId) return fold(r, statuses, retriedBy);
    }
    return undefined;
  }

  /** The newest post made with this profile. */
  lastPost(profile: string): JournalPost | undefined {
    for (const r of this.records('"kind":"post"', undefined, true)) {
      if (r.kind === 'post' && r.profile === profile) return this.foldOne(r.post_id);
    }
    return undefined;
  }

  /** The retries made of a post, newest first. */
  retriesOf(postId: string): JournalPost[] {
    const ids: string[] = [];
    for (const r of this.records(`"retry_of":${JSON.stringify(postId)}`)) {
      if (r.kind === 'post' && r.retry_of === postId && !ids.includes(r.post_id)) ids.push(r.post_id);
    }
    return ids.map((id) => this.foldOne(id)).filter((p): p is JournalPost => p !== undefined);
  }

  /** The posts of a set, in the order they were made (each post once). */
  setPosts(setId: string): JournalPost[] {
    const ids: string[] = [];
    for (const r of this.records(`"set":${JSON.stringify(setId)}`)) {
      if (r.kind === 'post' && r.set === setId && !ids.includes(r.post_id)) ids.push(r.post_id);
    }
    // Read newest first: the first made comes first.
    return ids.reverse().map((id) => this.foldOne(id)).filter((p): p is JournalPost => p !== undefined);
  }

  /** The posts history lists, newest first, in one pass over the journal. */
  history(q: HistoryQuery): JournalPost[] {
    const out: JournalPost[] = [];
    const statuses = new Map<string, StatusRecord[]>();
    const retriedBy = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const r of this.records(undefined, undefined, true)) {
      if (r.kind === 'status') push(statuses, r.post_id, r);
      if (r.kind !== 'post') continue;
      if (r.retry_of) push(retriedBy, r.retry_of, r.post_id);
      // A post recorded twice (a rerun reporting it): the newest record stands.
      if (!recordWanted(q, r) || seen.has(r.post_id)) continue;
      seen.add(r.post_id);
      const p = fold(r, statuses.get(r.post_id) ?? [], retriedBy.get(r.post_id));
      statuses.delete(r.post_id);
      if (!postWanted(q, p)) continue;
      out.push(p);
      if (out.length >= q.limit) break;
    }
    return out;
  }
}
