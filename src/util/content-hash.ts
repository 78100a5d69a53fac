/**
 * The hash a video's content fingerprint is made with (the one home of the
 * choice; media/fingerprint.ts has the rule of when a fingerprint is known).
 * SHA-256, as hex: what the journal keeps and what two files are compared by.
 * Every fingerprint is made here or with FINGERPRINT_HASH: the whole file hashed
 * to confirm a candidate (media/fingerprint.ts), and the PUT's chunks, on this
 * thread (InlineFingerprint) or on a thread of their own (running-fingerprint.ts).
 */
import { createHash, type Hash } from 'node:crypto';

export const FINGERPRINT_HASH = 'sha256';

export function contentHash(): Hash {
  return createHash(FINGERPRINT_HASH);
}

/**
 * A fingerprint taken as the bytes go by: chunks added in order, and the
 * digest given only when exactly `size` bytes were added (and hashed).
 */
export interface RunningFingerprint {
  /**
   * The buffers the chunks must be read into, in turn (the hashing thread reads
   * them where they are), or undefined: any buffer will do.
   */
  readonly pool?: Buffer[];
  /**
   * The next chunk. When it returns a promise, the hashing is behind: the next
   * chunk may be read into the pool only once it has resolved.
   */
  add(chunk: Buffer): void | Promise<void>;
  /** The hex digest; undefined when not every byte (or more) went by, or the hashing failed. */
  digest(): Promise<string | undefined>;
  /** Nothing more will be added (an attempt's end, whatever it was): what the hashing holds is let go. */
  close(): void;
}

/** The fingerprint hashed on this thread, chunk by chunk (a small file: no thread is worth starting for it). */
export class InlineFingerprint implements RunningFingerprint {
  private readonly hash = contentHash();
  private count = 0;

  constructor(private readonly size: number) {}

  add(chunk: Buffer): void {
    this.hash.update(chunk);
    this.count += chunk.length;
  }

  digest(): Promise<string | undefined> {
    return Promise.resolve(this.count === this.size ? this.hash.digest('hex') : undefined);
  }

  close(): void {}
}
