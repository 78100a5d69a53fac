/**
 * The request log behind GET /_emulator/requests: the latest MAX_LOG_ENTRIES
 * requests (the test controls under /_emulator are not logged), oldest first.
 * A ring: adding an entry costs the same whether the log is empty or full
 * (it runs in other people's CI, under load). Each entry is bounded too: a
 * path or an Idempotency-Key longer than its limit is cut and marked
 * "…(+N chars)", so the log has a bound (entries times their limits)
 * whatever the traffic.
 */
import type { RecordedRequest } from '../contract/wire-types.js';

export interface LogEntry extends RecordedRequest {
  /** The request fault applied to this request, if any. */
  fault: string | null;
}

export const MAX_LOG_ENTRIES = 10_000;
export const MAX_LOGGED_PATH = 1024;
export const MAX_LOGGED_KEY = 256;

/** `text` cut to `max` characters, with how much was left out. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(+${text.length - max} chars)`;
}

export class RequestLog {
  private ring: LogEntry[] = [];
  /** Index in `ring` of the oldest entry once the ring is full. */
  private head = 0;

  constructor(private readonly max: number = MAX_LOG_ENTRIES) {}

  get length(): number {
    return this.ring.length;
  }

  /** Adds the entry of a request that just arrived; the caller fills in status, replayed and fault as they become known. */
  add(method: string, path: string, authorization: boolean, idempotencyKey: string | undefined): LogEntry {
    const entry: LogEntry = {
      method,
      path: clip(path, MAX_LOGGED_PATH),
      status: 0,
      authorization,
      idempotency_key: idempotencyKey === undefined ? null : clip(idempotencyKey, MAX_LOGGED_KEY),
      replayed: false,
      fault: null,
    };
    if (this.ring.length < this.max) {
      this.ring.push(entry);
    } else {
      this.ring[this.head] = entry;
      this.head = (this.head + 1) % this.max;
    }
    return entry;
  }

  /** Copies of the entries, oldest first. */
  entries(): LogEntry[] {
    const out = new Array<LogEntry>(this.ring.length);
    for (let i = 0; i < this.ring.length; i++) out[i] = { ...this.ring[(this.head + i) % this.ring.length]! };
    return out;
  }

  clear(): void {
    this.ring = [];
    this.head = 0;
  }
}
