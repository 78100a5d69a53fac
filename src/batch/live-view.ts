/**
 * What a batch shows while it runs, on stderr: at a terminal one multi-line
 * view redrawn in place (a line per item: its state, and a bar while its
 * file uploads); on a pipe a sparse plain line when an item changes state;
 * nothing with --quiet.
 */
import type { Screen, Session } from '../session/session.js';
import { LiveRegion } from '../ui/live-region.js';
import type { Progress } from '../ui/progress.js';

export interface BatchView {
  /** An item's state in a few words ("uploading", "processing 50%", "published"). */
  state(n: number, text: string): void;
  /** Bytes sent of an item's upload. */
  bytes(n: number, sent: number, total: number): void;
  /** A line of its own (a wait, a retry). */
  note(line: string): void;
  /** The item has ended (after its last state): nothing more is told of it. */
  end(n: number): void;
  stop(): void;
}

const BAR = 20;
/** The most lines the live view takes. */
const MAX_LINES = 12;

class LiveView implements BatchView {
  private rows = new Map<number, { label: string; state: string; sent?: number; total?: number }>();
  private readonly region: LiveRegion;
  private timer: ReturnType<typeof setInterval> | undefined;
  private dirty = false;
  constructor(private readonly screen: Screen, labels: Map<number, string>) {
    this.region = new LiveRegion((text) => screen.write(text));
    for (const [n, label] of labels) this.rows.set(n, { label, state: 'waiting' });
    this.timer = setInterval(() => this.flush(), 100);
    this.timer.unref?.();
    this.draw();
  }
  state(n: number, text: string): void {
    const r = this.rows.get(n);
    if (!r) return;
    r.state = text;
    if (!/^uploading/.test(text)) r.total = undefined;
    this.dirty = true;
  }
  bytes(n: number, sent: number, total: number): void {
    const r = this.rows.get(n);
    if (!r) return;
    r.sent = sent;
    r.total = total;
    r.state = 'uploading';
    this.dirty = true;
  }
  end(): void {}
  note(line: string): void {
    this.region.clear();
    this.screen.write(line + '\n');
    this.draw();
  }
  private flush(): void {
    if (this.dirty) this.draw();
  }
  private line(n: number, r: { label: string; state: string; sent?: number; total?: number }): string {
    const c = this.screen.colors;
    const width = Math.max(30, (this.screen.columns ?? 80) - 1);
    let state = r.state;
    if (r.total !== undefined && r.sent !== undefined) {
      const pct = r.total > 0 ? Math.min(1, r.sent / r.total) : 1;
      const full = Math.round(pct * BAR);
      state = `uploading [${'█'.repeat(full)}${'░'.repeat(BAR - full)}] ${Math.floor(pct * 100)}%`;
    }
    const style = /^(published|scheduled|draft)/.test(state) ? c.green : /^(failed|blocked)/.test(state) ? c.red : /^unknown/.test(state) ? c.yellow : (s: string) => s;
    const head = `${String(n).padStart(3)}  ${r.label}`;
    const room = width - state.length - 2;
    const label = head.length > room ? head.slice(0, Math.max(5, room - 1)) + '…' : head.padEnd(room);
    return `${label}  ${style(state)}`;
  }
  private draw(): void {
    this.dirty = false;
    let entries = [...this.rows.entries()];
    let summary: string | undefined;
    if (entries.length > MAX_LINES) {
      // A long batch: the items under way, and a count of the rest (a view taller than the terminal cannot be redrawn).
      const final = (st: string) => /^(published|scheduled|draft|failed|blocked|skipped|unknown|publishing post)/.test(st);
      const done = entries.filter(([, r]) => final(r.state)).length;
      const waiting = entries.filter(([, r]) => r.state === 'waiting').length;
      entries = entries.filter(([, r]) => !final(r.state) && r.state !== 'waiting').slice(0, MAX_LINES - 1);
      summary = this.screen.colors.dim(`  ${done} done, ${entries.length} under way, ${waiting} waiting`);
    }
    const lines = entries.map(([n, r]) => this.line(n, r));
    if (summary) lines.push(summary);
    this.region.paint(lines);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
    this.region.release();
  }
}

class PlainView implements BatchView {
  private last = new Map<number, string>();
  constructor(private readonly say: (line: string) => void) {}
  state(n: number, text: string): void {
    // Percentages change often: a line per state, not per percent.
    const word = text.replace(/\s*\(?\d+%\)?$/, '');
    // Sparse: the steps that take time and the end, not every state in between.
    if (word === 'ready' || word === 'publishing' || word === 'waiting') return;
    if (this.last.get(n) === word) return;
    this.last.set(n, word);
    this.say(`item ${n}: ${text}`);
  }
  bytes(): void {}
  note(line: string): void {
    this.say(line);
  }
  end(n: number): void {
    this.last.delete(n);
  }
  stop(): void {}
}

const silentView: BatchView = { state() {}, bytes() {}, note() {}, end() {}, stop() {} };

/** `labels` (every item's, for the view at a terminal) is made only for that view. */
export function createView(session: Session, labels: () => Map<number, string>): BatchView {
  if (session.quiet) return silentView;
  if (session.screen.tty) return new LiveView(session.screen, labels());
  return new PlainView((line) => session.log.info(line));
}

/** The Progress an upload flow reports to, drawn as item `n`'s line. */
export function itemProgress(view: BatchView, n: number): Progress {
  let total = 0;
  return {
    startBytes(_label, t) {
      total = t;
      view.bytes(n, 0, t);
    },
    bytes(sent) {
      view.bytes(n, sent, total);
    },
    status(label, percent) {
      view.state(n, `${label.toLowerCase()}${percent !== undefined ? ` ${percent}%` : ''}`);
    },
    note(line) {
      view.note(`item ${n}: ${line}`);
    },
    stop() {},
  };
}
