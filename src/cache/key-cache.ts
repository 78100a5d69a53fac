/**
 * What a client remembers between runs about one service and one key: a
 * small JSON file per base URL and key in the cache directory
 * (VIDPUB_CACHE_DIR, else $XDG_CACHE_HOME/vidpub, else ~/.cache/vidpub; see
 * src/util/xdg.ts), named by a hash of the base URL and of the key's hash, so
 * that two keys, profiles or services never share an entry and the key is
 * never written anywhere.
 *
 * - Each entry carries the time it was read from the service; a reader says
 *   how old an entry it accepts (the caller's TTL).
 * - The directory is 0700, the file 0600, written to a temporary file and
 *   renamed, so a process never reads half a file. A writer merges its
 *   changes into what is on disk at that moment (another process may have
 *   written since); two writing at the same instant may lose one entry,
 *   which only costs a read later.
 * - A cache that cannot be read (missing, corrupt, another shape, a
 *   read-only or full disk) is empty; nothing here ever throws.
 */
import { mkdir, readFile } from 'node:fs';
import { promisify } from 'node:util';
import { nodeCrypto } from '../util/lazy-builtins.js';
import { writeFileAtomicAsync } from '../util/atomic-write.js';
import { join } from 'node:path';

/*
 * node:fs's callback calls, not node:fs/promises (nor fs.promises, which loads
 * it): a post reads and writes the key cache, and util/fs-calls.ts keeps the
 * post and upload paths free of that module (test/tools/module-load.test.ts).
 */
const fsp = {
  readFile: promisify(readFile),
  mkdir: promisify(mkdir),
};

/** The file's shape; a file of another version is ignored. */
const VERSION = 1;

interface Entry {
  /** When it was read from the service (epoch ms, the caller's clock). */
  at: number;
  value: unknown;
}

interface CacheFile {
  v: number;
  base_url: string;
  /** A hash of the key (the client's keyId), to tell files apart; never the key. */
  key: string;
  entries: Record<string, Entry>;
}

export interface KeyCacheOptions {
  /** The cache directory (the file goes under its api/ folder). */
  dir: string;
  baseUrl: string;
  /** A hash of the API key (never the key). */
  keyId: string;
  /** Epoch ms. */
  now: () => number;
}

/** An entry this much in the future (another machine's clock, a clock set back) is not trusted. */
const FUTURE_SKEW_MS = 60_000;

type Op = { set: string; entry: Entry; drop?: (name: string, e: Entry) => boolean } | { forget: (name: string) => boolean };

export class KeyCache {
  readonly file: string;
  readonly #dir: string;
  readonly #opts: KeyCacheOptions;
  #entries?: Promise<Record<string, Entry>>;
  /** Writes in order; close() waits for them. */
  #writing: Promise<void> = Promise.resolve();

  constructor(opts: KeyCacheOptions) {
    this.#opts = opts;
    this.#dir = join(opts.dir, 'api');
    const name = nodeCrypto().createHash('sha256').update(`${opts.baseUrl}\n${opts.keyId}`).digest('hex').slice(0, 32);
    this.file = join(this.#dir, `${name}.json`);
  }

  /**
   * The value stored under `name` if it was read from the service at most `maxAgeMs` ago. `reread`:
   * not held here, it is looked for on disk again (another process may have stored it since this one
   * first read the file).
   */
  async get<T>(name: string, maxAgeMs: number, o: { reread?: boolean } = {}): Promise<{ value: T; at: number } | undefined> {
    const entries = await this.#load();
    let e = entries[name];
    if (!e && o.reread) {
      e = (await this.#readDisk())[name];
      if (e) entries[name] = e;
    }
    if (!e) return undefined;
    const age = this.#opts.now() - e.at;
    if (age > maxAgeMs || age < -FUTURE_SKEW_MS) return undefined;
    return { value: structuredClone(e.value) as T, at: e.at };
  }

  /**
   * Stores a value read from the service now (written in the background; close() waits). `drop`: the
   * entries to drop in the same write, by name and age (those that expire, so that the file stays small).
   */
  set(name: string, value: unknown, drop?: (name: string, ageMs: number) => boolean): Promise<void> {
    const now = this.#opts.now();
    const entry: Entry = { at: now, value: structuredClone(value) };
    return this.#apply({ set: name, entry, ...(drop ? { drop: (n: string, e: Entry) => drop(n, now - e.at) } : {}) });
  }

  /** Drops the entries whose name matches (all of them without a test). */
  forget(match: (name: string) => boolean = () => true): Promise<void> {
    return this.#apply({ forget: match });
  }

  /** Waits for the writes started so far. */
  async close(): Promise<void> {
    await this.#writing;
  }

  #load(): Promise<Record<string, Entry>> {
    return (this.#entries ??= this.#readDisk());
  }

  async #readDisk(): Promise<Record<string, Entry>> {
    try {
      const parsed = JSON.parse(await fsp.readFile(this.file, 'utf8')) as Partial<CacheFile> | null;
      if (!parsed || parsed.v !== VERSION || parsed.base_url !== this.#opts.baseUrl || parsed.key !== this.#opts.keyId) return {};
      const out: Record<string, Entry> = {};
      const entries = parsed.entries;
      if (!entries || typeof entries !== 'object' || Array.isArray(entries)) return {};
      for (const [name, e] of Object.entries(entries)) {
        if (e && typeof e === 'object' && typeof e.at === 'number' && Number.isFinite(e.at) && 'value' in e) out[name] = { at: e.at, value: e.value };
      }
      return out;
    } catch {
      return {};
    }
  }

  /** Applies a change here at once (in order with the others), then on disk; close() waits for both. */
  #apply(op: Op): Promise<void> {
    const next = this.#writing.then(async () => {
      applyOp(await this.#load(), op);
      await this.#write(op);
    });
    this.#writing = next;
    return next;
  }

  /** Merges one change into what is on disk now, then writes it whole (temp file + rename). */
  async #write(op: Op): Promise<void> {
    try {
      await fsp.mkdir(this.#dir, { recursive: true, mode: 0o700 });
      const entries = await this.#readDisk();
      applyOp(entries, op);
      const doc: CacheFile = { v: VERSION, base_url: this.#opts.baseUrl, key: this.#opts.keyId, entries };
      // Not flushed to the disk: a cache lost with the power is only a slower next run.
      await writeFileAtomicAsync(this.file, JSON.stringify(doc), { durable: false });
    } catch {
      // a cache that cannot be written is only slower next time
    }
  }
}

function applyOp(entries: Record<string, Entry>, op: Op): void {
  if ('set' in op) {
    if (op.drop) for (const [name, e] of Object.entries(entries)) if (name !== op.set && op.drop(name, e)) delete entries[name];
    entries[op.set] = op.entry;
  }
  else for (const name of Object.keys(entries)) if (op.forget(name)) delete entries[name];
}
