/**
 * The bytes of uploaded videos, kept so that the web app's review page can
 * play them (with Range requests, so the player can seek). Bounded: a video
 * over PLAYABLE_MAX_BYTES is counted but not kept, and beyond
 * PLAYABLE_TOTAL_BYTES or PLAYABLE_VIDEOS the oldest kept videos are
 * dropped (so many small uploads do not grow it either). Imports are
 * simulated (no bytes are downloaded) and the fixture's videos have none.
 */

/** The largest upload whose bytes are kept for playback. */
export const PLAYABLE_MAX_BYTES = 64 * 1024 * 1024;
/** The bytes kept for playback in all, at most. */
export const PLAYABLE_TOTAL_BYTES = 256 * 1024 * 1024;
/** The most videos kept for playback (the newest). */
export const PLAYABLE_VIDEOS = 100;

export class VideoBytes {
  private readonly kept = new Map<string, Buffer>();
  private total = 0;

  constructor(
    private readonly maxTotal = PLAYABLE_TOTAL_BYTES,
    private readonly maxVideos = PLAYABLE_VIDEOS,
  ) {}

  /** Keeps a video's bytes, dropping the oldest others beyond the total. */
  keep(mediaId: string, bytes: Buffer): void {
    this.drop(mediaId);
    if (bytes.length > this.maxTotal) return;
    for (const [id, b] of this.kept) {
      if (this.total + bytes.length <= this.maxTotal && this.kept.size < this.maxVideos) break;
      this.kept.delete(id);
      this.total -= b.length;
    }
    this.kept.set(mediaId, bytes);
    this.total += bytes.length;
  }

  get(mediaId: string): Buffer | undefined {
    return this.kept.get(mediaId);
  }

  drop(mediaId: string): void {
    const b = this.kept.get(mediaId);
    if (!b) return;
    this.kept.delete(mediaId);
    this.total -= b.length;
  }

  clear(): void {
    this.kept.clear();
    this.total = 0;
  }
}
