/**
 * Progress on stderr for long work: bytes sent (a cli-progress bar with
 * percent, MB/s and ETA), then the service's phase and percent (an ora
 * spinner). Without a TTY (or with TERM=dumb): a plain line every 10 % or 10 s. With --quiet:
 * nothing. cli-progress and ora are loaded only when stderr is a terminal.
 */
import type * as Readline from 'node:readline';
import { Writable } from 'node:stream';
import type * as CliProgress from 'cli-progress';
import type oraFactory from 'ora';
import type { Clock } from '../core/clock.js';
import type { IO } from '../core/io.js';
import { sanitize } from '../errors.js';
import { formatMB, percentSent } from '../util/bytes.js';

/** node:readline when a spinner first moves the cursor: it costs its load, and upload imports this module for silentProgress. */
// eslint-disable-next-line no-restricted-globals -- Node's built-in module loader, not process state
const readline = (): typeof Readline => process.getBuiltinModule('node:readline');

export interface Progress {
  /** Starts a byte count: `label` like "Uploading clip.mp4". */
  startBytes(label: string, total: number): void;
  /** Bytes sent so far (a smaller value than before means a restart). */
  bytes(sent: number): void;
  /** The service's phase and percent, e.g. ("Processing", 40). Ends a byte count. */
  status(label: string, percent?: number): void;
  /** A line of its own (a retry, a wait), printed without breaking the bar or spinner. Every text given here is sanitized (src/errors.ts). */
  note(line: string): void;
  /** Stops the bar or spinner and clears it. */
  stop(): void;
}

export interface ProgressOptions {
  io: Pick<IO, 'stderr' | 'stderrIsTTY' | 'columns'>;
  quiet: boolean;
  clock: Pick<Clock, 'now'>;
  /** stderr may be redrawn in place (canRepaint: not TERM=dumb); default: whenever it is a terminal. */
  repaint?: boolean;
}

const LINE_EVERY_MS = 10_000;
/** No byte for this long: the bar says "stalled for N s" in place of a speed and an ETA that no longer hold. */
export const STALL_AFTER_MS = 3000;
const LINE_EVERY_PERCENT = 10;

/** Throughput over the current byte count, MB/s. */
class Speed {
  private start = 0;
  constructor(private readonly clock: Pick<Clock, 'now'>) {}
  reset(): void {
    this.start = this.clock.now();
  }
  mbps(sent: number): number {
    const sec = (this.clock.now() - this.start) / 1000;
    return sec > 0 ? sent / 1e6 / sec : 0;
  }
}

/** Builds the reporter that suits stderr: TTY, plain lines, or nothing. */
export async function createProgress(opts: ProgressOptions): Promise<Progress> {
  if (opts.quiet) return silentProgress;
  if (!opts.io.stderrIsTTY || opts.repaint === false) return new PlainProgress(opts.io.stderr, opts.clock);
  const [cliProgressModule, oraModule] = await Promise.all([import('cli-progress'), import('ora')]);
  // cli-progress is CommonJS: its whole exports are `default` (Node's loader and a bundler's interop alike); Node's loader
  // also names the ones it detects, not all of them (Format is not among them in the bundle).
  const whole = (cliProgressModule as unknown as { default?: CliProgressModule }).default;
  const cliProgress = whole && typeof whole.SingleBar === 'function' ? whole : cliProgressModule;
  return new TtyProgress(opts, cliProgress, oraModule.default);
}

export const silentProgress: Progress = {
  startBytes() {},
  bytes() {},
  status() {},
  note() {},
  stop() {},
};

/** Without a terminal: sparse lines a log file or CI output can hold. */
export class PlainProgress implements Progress {
  private label = '';
  private total = 0;
  private lastPercent = 0;
  private lastSent = 0;
  private lastLineAt = 0;
  private lastStatus = '';
  private readonly speed: Speed;

  constructor(
    private readonly out: Writable,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.speed = new Speed(clock);
  }

  private line(text: string): void {
    this.out.write(text + '\n');
    this.lastLineAt = this.clock.now();
  }

  private step(percent: number, last: number): boolean {
    return Math.floor(percent / LINE_EVERY_PERCENT) > Math.floor(last / LINE_EVERY_PERCENT);
  }

  private timeDue(): boolean {
    return this.clock.now() - this.lastLineAt >= LINE_EVERY_MS;
  }

  startBytes(label: string, total: number): void {
    label = sanitize(label);
    this.label = label;
    this.total = total;
    this.lastPercent = 0;
    this.lastSent = 0;
    this.lastStatus = '';
    this.speed.reset();
    this.line(`${label} (${formatMB(total)} MB)`);
  }

  bytes(sent: number): void {
    if (sent < this.lastSent) {
      // a retry starts again from the first byte
      this.lastPercent = 0;
      this.speed.reset();
    }
    this.lastSent = sent;
    const percent = percentSent(sent, this.total);
    if (!this.step(percent, this.lastPercent) && !this.timeDue()) return;
    this.lastPercent = percent;
    this.line(`${this.label}: ${percent}% (${formatMB(sent)} of ${formatMB(this.total)} MB, ${this.speed.mbps(sent).toFixed(1)} MB/s)`);
  }

  status(label: string, percent?: number): void {
    label = sanitize(label);
    const text = percent === undefined ? `${label}...` : `${label}: ${percent}%`;
    if (label !== this.lastStatus) {
      this.lastStatus = label;
      this.lastPercent = percent ?? 0;
      this.line(text);
      return;
    }
    if (!(percent !== undefined && this.step(percent, this.lastPercent)) && !this.timeDue()) return;
    if (percent !== undefined) this.lastPercent = percent;
    this.line(text);
  }

  note(line: string): void {
    this.line(sanitize(line));
  }

  stop(): void {}
}

/**
 * The stream ora draws on: writes go straight to stderr, and `columns` is
 * never 0. A terminal of unknown size (a PTY made by `script`, some CI
 * runners) reports 0 columns, and ora divides by it: it then believes the
 * spinner spans Infinity lines and clears them forever.
 */
function spinnerStream(io: ProgressOptions['io']): Writable {
  const target = io.stderr as Writable & { columns?: number; rows?: number };
  const s = new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, encoding: BufferEncoding, callback: (err?: Error | null) => void) {
      // Hand over at once: buffering here would reorder the spinner and other stderr lines.
      target.write(chunk, encoding);
      callback();
    },
  });
  const tty = s as Writable & { isTTY: boolean; columns: number; rows: number; cursorTo: unknown; moveCursor: unknown; clearLine: unknown };
  tty.isTTY = true;
  Object.defineProperty(tty, 'columns', { get: () => (target.columns || io.columns || 80) });
  Object.defineProperty(tty, 'rows', { get: () => (target.rows || 24) });
  tty.cursorTo = (x: number, y?: number) => readline().cursorTo(s, x, y);
  tty.moveCursor = (dx: number, dy: number) => readline().moveCursor(s, dx, dy);
  tty.clearLine = (dir: -1 | 0 | 1) => readline().clearLine(s, dir);
  return s;
}

type CliProgressModule = typeof CliProgress;
type OraFactory = typeof oraFactory;
type Bar = InstanceType<CliProgressModule['SingleBar']>;
type Spinner = ReturnType<OraFactory>;

/** On a terminal: a bar for bytes, then a spinner for the service's work. */
class TtyProgress implements Progress {
  private bar: Bar | undefined;
  private spinner: Spinner | undefined;
  private total = 0;
  private sent = 0;
  private lastByteAt = 0;
  private label = '';
  private readonly speed: Speed;

  constructor(
    private readonly opts: ProgressOptions,
    private readonly cliProgress: CliProgressModule,
    private readonly ora: OraFactory,
  ) {
    this.speed = new Speed(opts.clock);
  }

  startBytes(label: string, total: number): void {
    this.stop();
    this.total = total;
    this.sent = 0;
    this.speed.reset();
    this.lastByteAt = this.opts.clock.now();
    // The label (a file name) is a value of the payload, not part of the format: a "{bar}" in it stays text.
    this.label = sanitize(label);
    const moving = `{label} [{bar}] {percentage}% | {done}/{size} MB | {speed} MB/s | ETA {eta_formatted}`;
    const stalled = `{label} [{bar}] {percentage}% | {done}/{size} MB | stalled for {stalled} s`;
    this.bar = new this.cliProgress.SingleBar({
      stream: this.opts.io.stderr,
      // The Context says stderr is a terminal; the stream object may not say so itself.
      noTTYOutput: true,
      notTTYSchedule: 200,
      // Redrawn on the bar's own timer, so a stall shows while no byte comes.
      format: (options, params, payload: Record<string, string>) => {
        const quiet = this.opts.clock.now() - this.lastByteAt;
        const format = quiet >= STALL_AFTER_MS && params.value < params.total ? stalled : moving;
        return this.cliProgress.Format.Formatter({ ...options, format }, params, { ...payload, stalled: String(Math.floor(quiet / 1000)) });
      },
      barsize: Math.max(10, Math.min(30, (this.opts.io.columns ?? 80) - 70)),
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      fps: 10,
    });
    this.bar.start(total, 0, this.payload(0));
  }

  private payload(sent: number): Record<string, string> {
    return { label: this.label, done: formatMB(sent), size: formatMB(this.total), speed: this.speed.mbps(sent).toFixed(1) };
  }

  bytes(sent: number): void {
    if (!this.bar) return;
    if (sent < this.sent) this.speed.reset();
    if (sent !== this.sent) this.lastByteAt = this.opts.clock.now();
    this.sent = sent;
    this.bar.update(sent, this.payload(sent));
  }

  status(label: string, percent?: number): void {
    if (this.bar) {
      this.bar.stop();
      this.bar = undefined;
    }
    const text = percent === undefined ? sanitize(label) : `${sanitize(label)} ${percent}%`;
    if (!this.spinner) {
      this.spinner = this.ora({ text, stream: spinnerStream(this.opts.io), isEnabled: true, discardStdin: false });
      this.spinner.start();
    } else {
      this.spinner.text = text;
    }
  }

  note(line: string): void {
    line = sanitize(line);
    if (this.spinner) {
      this.spinner.clear();
      this.opts.io.stderr.write(line + '\n');
      this.spinner.render();
    } else if (this.bar) {
      this.opts.io.stderr.write('\r\u001b[2K' + line + '\n');
      this.bar.update(this.sent, this.payload(this.sent));
    } else {
      this.opts.io.stderr.write(line + '\n');
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }
}
