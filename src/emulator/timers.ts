/**
 * Every timer the emulator starts goes through here so that reset and close()
 * can clear all of them (tests must exit cleanly).
 *
 * A one-shot job (a processing step, a destination publishing) is due at a
 * time of the emulator's clock: it runs when that much real time has passed,
 * or as soon as the clock reaches it sooner (POST /_emulator/clock, or an
 * injected time source that jumps): `runDue()` runs those, in the order they
 * fell due, and the emulator calls it on every clock advance and tick.
 */
interface Job {
  readonly dueAt: number;
  readonly seq: number;
  readonly fn: () => void;
  timeout?: NodeJS.Timeout;
}

/** A job started by `after`, for `cancel`. */
export type JobHandle = object;

export class Timers {
  private readonly jobs = new Set<Job>();
  private readonly intervals = new Set<NodeJS.Timeout>();
  private stopped = false;
  private seq = 0;

  /** `now`: the emulator's clock (ms). */
  constructor(private readonly now: () => number = Date.now) {}

  after(ms: number, fn: () => void): JobHandle | undefined {
    if (this.stopped) return undefined; // a request finishing after close() starts nothing
    const wait = Math.max(0, ms);
    const job: Job = { dueAt: this.now() + wait, seq: this.seq++, fn };
    job.timeout = setTimeout(() => this.run(job), wait);
    this.jobs.add(job);
    return job;
  }

  every(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.stopped) return undefined;
    const t = setInterval(fn, ms);
    t.unref();
    this.intervals.add(t);
    return t;
  }

  cancel(handle: JobHandle | undefined): void {
    const job = handle as Job | undefined;
    if (!job) return;
    clearTimeout(job.timeout);
    this.jobs.delete(job);
  }

  /** Runs the jobs the clock has reached, earliest first (with those they start that are due too). */
  runDue(): void {
    for (let job = this.nextDue(); job; job = this.nextDue()) this.run(job);
  }

  private nextDue(): Job | undefined {
    const now = this.now();
    let next: Job | undefined;
    for (const j of this.jobs) {
      if (j.dueAt <= now && (!next || j.dueAt < next.dueAt || (j.dueAt === next.dueAt && j.seq < next.seq))) next = j;
    }
    return next;
  }

  private run(job: Job): void {
    if (!this.jobs.delete(job)) return; // cancelled, cleared, or run already
    clearTimeout(job.timeout);
    job.fn();
  }

  /** Clear the one-shot timers (background jobs); intervals stay. */
  clearJobs(): void {
    for (const j of this.jobs) clearTimeout(j.timeout);
    this.jobs.clear();
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
    return this.jobs.size;
  }
}
