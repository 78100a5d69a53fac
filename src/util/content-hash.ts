/**
 * The hash a video's content fingerprint is made with (the one home of the
 * choice; media/fingerprint.ts has the rule of when a fingerprint is known).
 * SHA-256, as hex: what the journal keeps and what two files are compared by.
 */
import { createHash, type Hash } from 'node:crypto';

export const FINGERPRINT_HASH = 'sha256';

export function contentHash(): Hash {
  return createHash(FINGERPRINT_HASH);
}

/**
 * A fingerprint taken as the bytes go by: chunks added in order, and the
 * digest given only when exactly `size` bytes were added.
 */
export class RunningFingerprint {
  private readonly hash = contentHash();
  private count = 0;

  constructor(private readonly size: number) {}

  add(chunk: Buffer): void {
    this.hash.update(chunk);
    this.count += chunk.length;
  }

  /** The hex digest, or undefined when not every byte (or more) went by. */
  digest(): string | undefined {
    return this.count === this.size ? this.hash.digest('hex') : undefined;
  }
}
