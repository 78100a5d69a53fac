import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCli, type RunOptions, type RunResult } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

/**
 * A batch of many items waits for its places: the items still waiting do not
 * add an abort listener each (Node warns past 10 on one signal), and
 * stopping the run refuses them all at once.
 */
const ITEMS = 50;
const FACTOR = 50;

// Both clocks run 50x: the emulator's minute windows (20 writes each) last 1.2 s of real time.
const clock = scaledClock(FACTOR);
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ processingMs: 20, publishMs: 20, now: clock.now });
});
afterAll(() => emu?.close());

function manifest(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-many-'));
  const items = Array.from({ length: ITEMS }, (_, i) => ({ media: 'med_demo_sample', to: 'linkedin', caption: `draft ${i}`, draft: true }));
  writeFileSync(join(dir, 'x.json'), JSON.stringify(items));
  return join(dir, 'x.json');
}

/** Runs vidpub, with the warnings this process emitted meanwhile. */
async function runWatched(argv: string[], opts: RunOptions = {}): Promise<RunResult & { warnings: Error[] }> {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const r = await runCli(argv, { clock, env: { ...emu.env(), TZ: 'UTC' }, ...opts });
    // A warning is emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    return { ...r, warnings };
  } finally {
    process.off('warning', onWarning);
  }
}

const maxListeners = (warnings: Error[]) => warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message);

describe('vidpub batch: many items', () => {
  it(`${ITEMS} items, 3 at a time: every one saved, no MaxListenersExceededWarning`, async () => {
    await emu.api.freshMinute();
    const r = await runWatched(['batch', manifest(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { items: { status: string }[] };
    expect(body.items.map((o) => o.status)).toEqual(Array(ITEMS).fill('draft'));
    expect(maxListeners(r.warnings)).toEqual([]);
  });

  it(`Ctrl-C with ${ITEMS - 20} items waiting for the next minute's writes: all of them stop at once, no MaxListenersExceededWarning`, async () => {
    // On real time, the next minute's writes are up to a minute away: a stop that waited for them fails the
    // bound below by far, and a loaded machine neither ends the minute during the run nor breaks the bound.
    const real = await startTestEmulator({ processingMs: 20, publishMs: 20 });
    onTestFinished(() => real.close());
    await real.api.freshMinute();
    const ctl = new AbortController();
    let drafts = 0;
    let stoppedAt = 0;
    const r = await runWatched(['batch', manifest(), '--json'], {
      clock: scaledClock(1),
      env: { ...real.env(), TZ: 'UTC' },
      signal: ctl.signal,
      onStderr: (s) => {
        drafts += s.match(/item \d+: draft/g)?.length ?? 0;
        // The minute's 20 writes are spent: the others wait for its end.
        if (drafts >= 20 && !stoppedAt) {
          stoppedAt = Date.now();
          ctl.abort();
        }
      },
    });
    const took = Date.now() - stoppedAt;
    expect(r.code, r.stderr).toBe(130);
    const items = (JSON.parse(r.stdout) as { items: { status: string; error?: string }[] }).items;
    const skipped = items.filter((o) => o.status === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(ITEMS - 40);
    for (const o of skipped) expect(o.error).toBe('interrupted: run the batch again to finish it (what was done is replayed, not repeated)');
    expect(items.every((o) => ['draft', 'skipped', 'unknown'].includes(o.status))).toBe(true);
    // Stopping waits for no place, no minute's end (up to 60 s away) and no request.
    expect(took).toBeLessThan(20_000);
    expect(maxListeners(r.warnings)).toEqual([]);
  });
});
