/**
 * Every real timer the emulator starts goes through here so that reset and
 * close() can clear all of them (tests must exit cleanly).
 */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private readonly intervals = new Set<NodeJS.Timeout>();
  private stopped = false;

  after(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.stopped) return undefined; // a request finishing after close() starts nothing
    const t = setTimeout(() => {
      this.pending.delete(t);
      fn();
    }, Math.max(0, ms));
    this.pending.add(t);
    return t;
  }

  every(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.stopped) return undefined;
    const t = setInterval(fn, ms);
    t.unref();
    this.intervals.add(t);
    return t;
  }

  cancel(t: NodeJS.Timeout | undefined): void {
    if (!t) return;
    clearTimeout(t);
    this.pending.delete(t);
  }

  /** Clear the one-shot timers (background jobs); intervals stay. */
  clearJobs(): void {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }

  /** Clears everything and refuses new timers (close()). */
  shutdown(): void {
    this.stopped = true;
    this.clearAll();
  }

  clearAll(): void {
    this.clearJobs();
    for (const t of this.intervals) clearInterval(t);
    this.intervals.clear();
  }

  get size(): number {
    return this.pending.size;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
