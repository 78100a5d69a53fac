import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PlainProgress, createProgress, silentProgress } from '../../src/ui/progress.js';
import { virtualClock } from '../support/clock.js';
import { waitFor } from '../support/poll.js';

function sink() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { stream, text: () => text };
}


const flush = () => new Promise((r) => setImmediate(r));

describe('PlainProgress (stderr is not a terminal)', () => {
  it('writes a line every 10 % of the bytes, with MB and MB/s', async () => {
    const out = sink();
    const clock = virtualClock(1_000_000);
    const p = new PlainProgress(out.stream, clock);
    p.startBytes('Uploading clip.mp4', 100_000_000);
    for (let sent = 0; sent <= 100_000_000; sent += 1_000_000) {
      clock.tick(10);
      p.bytes(sent);
    }
    await flush();
    const lines = out.text().trim().split('\n');
    expect(lines[0]).toBe('Uploading clip.mp4 (100 MB)');
    expect(lines.slice(1).map((l) => /: (\d+)%/.exec(l)?.[1])).toEqual(['10', '20', '30', '40', '50', '60', '70', '80', '90', '100']);
    expect(lines[10]).toMatch(/^Uploading clip\.mp4: 100% \(100 of 100 MB, 99\.0 MB\/s\)$/);
  });

  it('writes a line every 10 s when progress is slow, and starts over after a retry', async () => {
    const out = sink();
    const clock = virtualClock(1_000_000);
    const p = new PlainProgress(out.stream, clock);
    p.startBytes('Uploading big.mov', 1000);
    clock.tick(4000);
    p.bytes(10);
    clock.tick(6000);
    p.bytes(20); // 10 s since the last line
    p.bytes(0); // a retry
    clock.tick(1000);
    p.bytes(150);
    await flush();
    expect(out.text().trim().split('\n')).toEqual([
      'Uploading big.mov (0.00 MB)',
      'Uploading big.mov: 2% (0.00 of 0.00 MB, 0.0 MB/s)',
      'Uploading big.mov: 15% (0.00 of 0.00 MB, 0.0 MB/s)',
    ]);
  });

  it("writes the service's phase when it changes, then every 10 % or 10 s", async () => {
    const out = sink();
    const clock = virtualClock(1_000_000);
    const p = new PlainProgress(out.stream, clock);
    p.status('Downloading', 0);
    p.status('Downloading', 5);
    p.status('Downloading', 25);
    p.status('Processing', 0);
    p.status('Processing', 0);
    clock.tick(10_000);
    p.status('Processing', 0);
    p.note('A note.');
    await flush();
    expect(out.text().trim().split('\n')).toEqual(['Downloading: 0%', 'Downloading: 25%', 'Processing: 0%', 'Processing: 0%', 'A note.']);
  });
});

describe('createProgress', () => {
  it('is silent with --quiet, even on a terminal', async () => {
    const out = sink();
    const p = await createProgress({ io: { stderr: out.stream, stderrIsTTY: true }, quiet: true, clock: virtualClock(1_000_000) });
    expect(p).toBe(silentProgress);
  });

  it('gives plain lines without a terminal', async () => {
    const out = sink();
    const p = await createProgress({ io: { stderr: out.stream, stderrIsTTY: false }, quiet: false, clock: virtualClock(1_000_000) });
    expect(p).toBeInstanceOf(PlainProgress);
  });

  it('draws a bar with percent, MB/s and ETA, then a spinner, on the stream it is given', async () => {
    const out = sink();
    // The bar and the spinner redraw on timers of their own: the clock runs those too.
    const clock = virtualClock(1_000_000, { timers: true });
    const p = await createProgress({ io: { stderr: out.stream, stderrIsTTY: true, columns: 100 }, quiet: false, clock });
    p.startBytes('Uploading clip.mp4', 10_000_000);
    clock.tick(1000);
    p.bytes(5_000_000);
    clock.tick(250);
    p.status('Processing', 50);
    clock.tick(150);
    p.stop();
    await flush();
    const text = out.text();
    expect(text).toMatch(/Uploading clip\.mp4 \[.*\] 50% \| 5\.00\/10\.0 MB \| 5\.0 MB\/s \| ETA/);
    expect(text).toMatch(/Processing 50%/);
  });

  it('keeps the spinner sane on a terminal that reports 0 columns (ora would otherwise clear Infinity lines)', async () => {
    const out = sink();
    // Like a tty.WriteStream of unknown size (a PTY made by `script`).
    Object.assign(out.stream, {
      isTTY: true,
      columns: 0,
      cursorTo: (x: number) => cursorTo(out.stream, x),
      moveCursor: (dx: number, dy: number) => moveCursor(out.stream, dx, dy),
      clearLine: (dir: -1 | 0 | 1) => clearLine(out.stream, dir),
    });
    const clock = virtualClock(1_000_000, { timers: true });
    const p = await createProgress({ io: { stderr: out.stream, stderrIsTTY: true }, quiet: false, clock });
    p.status('Processing', 10);
    clock.tick(300);
    p.note('A line of its own.');
    p.status('Processing', 60);
    clock.tick(100);
    p.stop();
    await flush();
    expect(out.text()).toMatch(/Processing 60%/);
    expect(out.text()).toMatch(/A line of its own\.\n/);
    expect(out.text().length).toBeLessThan(20_000);
  });
});

describe('the upload bar during a stall', () => {
  it('says "stalled for N s" in place of the last speed and ETA while no byte comes, and goes back to them when bytes flow', async () => {
    const out = sink();
    const clock = virtualClock(1_000_000);
    const p = await createProgress({ io: { stderr: out.stream, stderrIsTTY: true, columns: 100 }, quiet: false, clock });
    p.startBytes('Uploading clip.mp4', 10_000_000);
    clock.tick(1000);
    p.bytes(5_000_000);
    await waitFor(out.text, (t) => /50% \| 5\.00\/10\.0 MB \| 5\.0 MB\/s \| ETA/.test(t));
    expect(out.text()).not.toMatch(/stalled/);
    // no byte for 12 s: the bar's next redraw says so
    clock.tick(12_000);
    await waitFor(out.text, (t) => /Uploading clip\.mp4 \[.*\] 50% \| 5\.00\/10\.0 MB \| stalled for 12 s/.test(t));
    const mark = out.text().length;
    p.bytes(6_000_000);
    await waitFor(out.text, (t) => /60% \| 6\.00\/10\.0 MB \| [\d.]+ MB\/s \| ETA/.test(t.slice(mark)));
    p.stop();
  });
});
