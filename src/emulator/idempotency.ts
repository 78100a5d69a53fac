/**
 * Idempotency-Key handling (contract §4 rule 7, gaps.md "Idempotency"):
 * per workspace, 24 h window, the first completed response (except 429 and
 * 5xx) is replayed; a different request under the same key is refused; a
 * key whose first request is still running is refused with 409.
 */
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_WINDOW_SEC } from '../contract/wire-types.js';
import type { Clock } from './offset-clock.js';
import { ServiceError, badRequest } from './service-errors.js';

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface Entry {
  fingerprint: string;
  createdAtMs: number;
  response: StoredResponse | null; // null while in flight
}

/**
 * Expired keys are swept when the store reaches this size, and then again each
 * time it has doubled since the last sweep: a sweep is one pass over every key,
 * and keys within the 24 h window stay, so sweeping at a fixed size would pass
 * over them all again on every new key (a batch of 100,000 posts, three writes
 * each, slowed down item by item). Doubling keeps it O(1) per key on average.
 */
const PRUNE_AT = 10_000;

/** The completed entries as plain data, by "workspace\nkey" (kept by `vidpub emulator --state`, in an export). */
export type IdempotencyEntries = [string, Entry][];

export type Begin = { kind: 'new' } | { kind: 'replay'; response: StoredResponse };

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private pruneAt = PRUNE_AT;
  /** How many sweeps have run (for tests: the cost of a key stays flat). */
  sweeps = 0;

  constructor(private readonly clock: Clock) {}

  reset(): void {
    this.entries.clear();
    this.pruneAt = PRUNE_AT;
  }

  static validateKey(key: string): void {
    if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      throw badRequest('invalid_field', `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long (got ${key.length}).`, 'Idempotency-Key');
    }
  }

  begin(workspaceId: string, key: string, fingerprint: string): Begin {
    IdempotencyStore.validateKey(key);
    const id = `${workspaceId}\n${key}`;
    const now = this.clock.now();
    let entry = this.entries.get(id);
    if (entry && now - entry.createdAtMs > IDEMPOTENCY_WINDOW_SEC * 1000) {
      this.entries.delete(id);
      entry = undefined;
    }
    if (!entry) {
      if (this.entries.size >= this.pruneAt) this.prune(now);
      this.entries.set(id, { fingerprint, createdAtMs: now, response: null });
      return { kind: 'new' };
    }
    if (entry.fingerprint !== fingerprint) {
      throw badRequest(
        'idempotency_key_reused',
        'This Idempotency-Key was already used for a different request (method, path or body differ). Use a new key for a new request.',
        'Idempotency-Key',
      );
    }
    if (entry.response === null) {
      throw new ServiceError(
        409,
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being handled. Wait for it to finish, then retry to get its response.',
      );
    }
    return { kind: 'replay', response: entry.response };
  }

  private prune(now: number): void {
    this.sweeps++;
    for (const [id, e] of this.entries) {
      if (now - e.createdAtMs > IDEMPOTENCY_WINDOW_SEC * 1000) this.entries.delete(id);
    }
    this.pruneAt = Math.max(PRUNE_AT, 2 * this.entries.size);
  }

  exportEntries(): IdempotencyEntries {
    return [...this.entries].filter(([, e]) => e.response !== null);
  }

  importEntries(list: IdempotencyEntries): void {
    for (const [id, e] of list) this.entries.set(id, { fingerprint: e.fingerprint, createdAtMs: e.createdAtMs, response: e.response });
  }

  /** The entry of a key, as it is now. */
  peek(workspaceId: string, key: string): Readonly<Entry> | undefined {
    return this.entries.get(`${workspaceId}\n${key}`);
  }

  drop(id: string): void {
    this.entries.delete(id);
  }

  /** How many keys are held (expired ones go at the next sweep or when met). */
  get size(): number {
    return this.entries.size;
  }

  /** Stores the first completed response; 429 and 5xx are forgotten so a retry runs again. */
  finish(workspaceId: string, key: string, response: StoredResponse): void {
    const id = `${workspaceId}\n${key}`;
    const entry = this.entries.get(id);
    if (!entry) return;
    if (response.status === 429 || response.status >= 500) {
      this.entries.delete(id);
      return;
    }
    entry.response = { status: response.status, body: structuredClone(response.body) };
  }

  abandon(workspaceId: string, key: string): void {
    const id = `${workspaceId}\n${key}`;
    if (this.entries.get(id)?.response === null) this.entries.delete(id);
  }
}

/** method + path + body with object keys sorted (whitespace and key order do not matter). */
export function fingerprint(method: string, path: string, rawBody: string): string {
  let canonical = rawBody.trim();
  if (canonical !== '') {
    try {
      canonical = stableStringify(JSON.parse(canonical));
    } catch {
      // malformed JSON: compare the text as sent
    }
  }
  if (canonical === '' || canonical === 'null') canonical = '{}'; // no body = an empty object
  return `${method.toUpperCase()} ${path}\n${canonical}`;
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
