/**
 * Places taken in turn (a counting semaphore) on p-limit: a place is held
 * from take() until its release is called, so an item can keep one across
 * several steps. When the signal aborts, every taker still waiting is
 * refused at once with its reason: one abort listener for the pool, not one
 * per waiting item.
 */
import pLimit, { type LimitFunction } from 'p-limit';

/** Gives the place back; calling it again does nothing. */
export type Release = () => void;

export class Slots {
  private readonly limit: LimitFunction;
  private readonly refuseWaiting = () => this.limit.clearQueue();

  constructor(
    size: number,
    private readonly signal: AbortSignal,
  ) {
    this.limit = pLimit({ concurrency: size, rejectOnClear: true });
    signal.addEventListener('abort', this.refuseWaiting, { once: true });
  }

  /** Waits for a free place (FIFO); refused with the signal's reason when it aborts first. */
  take(): Promise<Release> {
    // Aborted and full: no place would come in time (the waiters were refused when it aborted).
    if (this.signal.aborted && this.limit.activeCount >= this.limit.concurrency) return Promise.reject(this.signal.reason);
    return new Promise<Release>((granted, refused) => {
      this.limit(() => new Promise<void>((release) => granted(() => release()))).catch((err: unknown) => refused(this.signal.reason ?? err));
    });
  }

  /** Stops listening to the signal (the run is over). */
  dispose(): void {
    this.signal.removeEventListener('abort', this.refuseWaiting);
  }
}
