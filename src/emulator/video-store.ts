/**
 * The bytes of uploaded videos, kept so that the web app's review page can
 * play them (with Range requests, so the player can seek). Bounded, and the
 * bytes of uploads still arriving count too: a video declared over
 * maxVideoBytes is counted but not kept, and the bytes kept plus those of the
 * uploads in flight stay within maxTotalBytes (the oldest kept videos dropped
 * to make room; an upload that finds none stops keeping its bytes, and its
 * video is not playable), and at most maxVideos are kept. However many uploads
 * hang one byte short, the emulator holds no more than that. Imports are
 * simulated (no bytes are downloaded) and the fixture's videos have none.
 */

/** The largest upload whose bytes are kept for playback. */
export const PLAYABLE_MAX_BYTES = 64 * 1024 * 1024;
/** The bytes kept for playback in all, at most. */
export const PLAYABLE_TOTAL_BYTES = 192 * 1024 * 1024;
/** The most videos kept for playback (the newest). */
export const PLAYABLE_VIDEOS = 100;

/** The limits of the bytes kept (an emulator's option, small in tests). */
export interface PlayableLimits {
  maxVideoBytes: number;
  maxTotalBytes: number;
  maxVideos: number;
}

export class VideoBytes {
  private readonly kept = new Map<string, Buffer>();
  private total = 0;
  /** Bytes of uploads still arriving, held until they end (reserve/release). */
  private inFlight = 0;
  readonly maxVideoBytes: number;

  constructor(
    private readonly maxTotal = PLAYABLE_TOTAL_BYTES,
    private readonly maxVideos = PLAYABLE_VIDEOS,
    maxVideo = PLAYABLE_MAX_BYTES,
  ) {
    this.maxVideoBytes = maxVideo;
  }

  /** The bytes held, kept and in flight. */
  get held(): number {
    return this.total + this.inFlight;
  }

  /** Drops the oldest kept videos until `n` more bytes fit beside what is held and `count` more videos beside those kept. */
  private makeRoom(n: number, count: number): void {
    for (const [id, b] of this.kept) {
      if (this.held + n <= this.maxTotal && this.kept.size + count <= this.maxVideos) break;
      this.kept.delete(id);
      this.total -= b.length;
    }
  }

  /** Room for `n` more bytes of an upload in flight, older videos dropped to make it; false when there is none even so. */
  reserve(n: number): boolean {
    if (this.inFlight + n > this.maxTotal) return false;
    this.makeRoom(n, 0);
    this.inFlight += n;
    return true;
  }

  /** Gives back what an upload reserved (it ended, kept or not). */
  release(n: number): void {
    this.inFlight -= n;
  }

  /** Keeps a video's bytes, dropping the oldest others beyond the total (none when even so it would not fit). */
  keep(mediaId: string, bytes: Buffer): void {
    this.drop(mediaId);
    if (this.inFlight + bytes.length > this.maxTotal) return;
    this.makeRoom(bytes.length, 1);
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

  /** Forgets the kept videos (a reset); the uploads in flight give back their own bytes as they end. */
  clear(): void {
    this.kept.clear();
    this.total = 0;
  }
}
