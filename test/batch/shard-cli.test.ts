import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReport, type ShardReport } from '../../src/batch/report/format.js';
import { cliRunner, runCli } from '../support/cli.js';
import { manualClock, scaledClock } from '../support/clock.js';
import { sleep } from '../support/poll.js';
import { startTestEmulator, useEmulator, writes } from '../support/emulator.js';

/**
 * `batch --shard`, `--report`, `--skip-done` in this process against the emulator: what is
 * refused (exit 2, nothing sent), the keys and the split the same whatever the machine, the
 * report of a run and of a stopped one, and two shards on one key pacing as one batch does.
 */
const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));

function manifest(items: Record<string, unknown>[], name = 'm.jsonl'): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-shard-'));
  writeFileSync(join(dir, name), items.map((it) => JSON.stringify(it)).join('\n') + '\n');
  return join(dir, name);
}
const drafts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ media: 'med_demo_sample', to: 'linkedin', caption: `${tag} ${i + 1}`, draft: true }));
const readReport = (file: string): ShardReport => parseReport(readFileSync(file, 'utf8'), file);
const postsMade = async () => (await writes(emu)).filter((w) => w.path === '/v1/posts' && w.status < 300 && !w.replayed).length;

describe('batch --shard: bad input, exit 2, nothing sent', () => {
  const cases: [string, string[], Record<string, string>, string][] = [
    ['--shard 0/4', ['--shard', '0/4'], {}, 'Error: --shard 0/4: shards are counted from 1 (1/4 to 4/4); JOB_COMPLETION_INDEX with --shard-count counts from 0'],
    ['--shard 5/4', ['--shard', '5/4'], {}, 'Error: --shard 5/4: there are only 4 shards (1/4 to 4/4)'],
    ['--shard 1/0', ['--shard', '1/0'], {}, 'Error: --shard 1/0: the number of shards must be at least 1'],
    ['--shard a/b', ['--shard', 'a/b'], {}, 'Error: --shard a/b: a shard is I/N (shard I of N, counted from 1), e.g. 2/4'],
    [
      '--shard disagreeing with JOB_COMPLETION_INDEX',
      ['--shard', '1/4', '--shard-count', '4'],
      { JOB_COMPLETION_INDEX: '2' },
      'Error: --shard 1/4 disagrees with JOB_COMPLETION_INDEX=2 with --shard-count 4 (shard 3/4): give one of them, so that every runner takes the shard it is meant to',
    ],
  ];
  for (const [name, args, env, message] of cases) {
    it(name, async () => {
      const r = await run(['batch', manifest(drafts(4, 'bad')), '--yes', ...args], { env });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(message);
      expect(await writes(emu)).toEqual([]);
    });
  }

  it('--report with --rehearse (a rehearsal posts nothing: its report would make --skip-done skip real posts)', async () => {
    const r = await run(['batch', manifest(drafts(2, 'rehearsed')), '--yes', '--rehearse', '--report', join(mkdtempSync(join(tmpdir(), 'vidpub-shard-')), 'r.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('Error: --report is for a real run: --rehearse posts nothing to the service');
    expect(await writes(emu)).toEqual([]);
  });

  it("--skip-done with another manifest's report names it", async () => {
    const other: ShardReport = { kind: 'vidpub.batch.report', v: 1, manifest: { id: 'm-0123456789abcdef', items: 2 }, shard: null, started_at: '2030-01-01T00:00:00.000Z', ended_at: null, complete: false, items: [] };
    const file = join(mkdtempSync(join(tmpdir(), 'vidpub-shard-')), 'other.json');
    writeFileSync(file, JSON.stringify(other));
    const r = await run(['batch', manifest(drafts(4, 'other')), '--yes', '--skip-done', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^Error: --skip-done ${file.replace(/[.]/g, '\\.')} is a report of another manifest \\(m-0123456789abcdef; this one is m-[0-9a-f]{16}\\): nothing was sent\\n`));
    expect(await writes(emu)).toEqual([]);
  });
});

describe('batch --shard: nothing of the machine in the split or the keys', () => {
  it('the same manifest elsewhere (another directory, HOME, state, named relatively or not): the same shard, the same Idempotency-Keys', async () => {
    // A day some weeks ahead (the service schedules at most a year out), a local time read in TZ=UTC.
    const day = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    const items = [0, 1, 2, 3, 4, 5].map((i) => ({ file: 'clips/a.mp4', to: 'linkedin', caption: `clip ${i}`, at: `${day} 09:00` }));
    const plans = [];
    for (const where of ['one', 'two']) {
      const dir = mkdtempSync(join(tmpdir(), `vidpub-shard-${where}-`));
      mkdirSync(join(dir, 'clips'));
      copyFileSync('test/fixtures/clip.mp4', join(dir, 'clips', 'a.mp4'));
      writeFileSync(join(dir, 'm.jsonl'), items.map((it) => JSON.stringify(it)).join('\n') + '\n');
      const home = join(dir, 'home');
      const r = await run(['batch', where === 'one' ? 'm.jsonl' : join(dir, 'm.jsonl'), '--shard', '2/3', '--dry-run', '--json'], {
        cwd: dir,
        env: { HOME: home, VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state') },
      });
      expect(r.code, r.stderr).toBe(0);
      plans.push((JSON.parse(r.stdout) as { items: { item: number; idempotency_key: string }[] }).items);
    }
    expect(plans[0]!.length).toBeGreaterThan(0);
    expect(plans[0]!.length).toBeLessThan(items.length);
    expect(plans[1]).toEqual(plans[0]);
  });
});

describe('batch --report and --skip-done', () => {
  it('each shard reports its items; the reports together are the manifest; --skip-done with them sends nothing again', async () => {
    const file = manifest(drafts(9, 'report'));
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-shard-'));
    const reports: ShardReport[] = [];
    for (const i of [1, 2, 3]) {
      const r = await run(['batch', file, '--yes', '--shard', `${i}/3`, '--report', join(dir, `r${i}.json`)]);
      expect(r.code, r.stderr).toBe(0);
      reports.push(readReport(join(dir, `r${i}.json`)));
    }
    const items = reports.flatMap((r) => r.items);
    expect(items.map((it) => it.item).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(items.map((it) => it.id)).size).toBe(9);
    expect(items.every((it) => it.result === 'posted' && it.status === 'draft' && /^post_/.test(it.post_id ?? ''))).toBe(true);
    expect(new Set(reports.map((r) => r.manifest.id)).size).toBe(1);
    expect(reports.map((r) => [r.shard, r.complete, r.manifest.items])).toEqual([1, 2, 3].map((i) => [{ index: i, count: 3 }, true, 9]));
    const made = await postsMade();
    expect(made).toBe(9);

    // A rerun of the whole manifest past the service's 24 hours: the reports guard it, not the journal (another one).
    await emu.advance(25 * 3600);
    const again = await run(['batch', file, '--yes', '--report', join(dir, 'all.json'), ...[1, 2, 3].flatMap((i) => ['--skip-done', join(dir, `r${i}.json`)])], {
      env: { VIDPUB_STATE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-shard-state-')) },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Skipping 9 items an earlier report has as posted (--skip-done).');
    expect(await postsMade()).toBe(9);
    const all = readReport(join(dir, 'all.json'));
    expect(all.complete).toBe(true);
    expect(all.items.map((it) => it.result)).toEqual(Array(9).fill('refused'));
    const first = items.find((it) => it.item === 1)!;
    expect(all.items[0]).toMatchObject({ item: 1, id: first.id, post_id: first.post_id, status: 'skipped' });
    expect(all.items[0]!.error).toMatch(/^--skip-done: .*r\d\.json has it as posted \(post post_\w+\); not sent again$/);
  });

  it('a run stopped (Ctrl-C) while items wait for the next minute: its report says what ended, the rest pending, not complete', async () => {
    // On its own real-time emulator: the items past the minute's 20 writes wait for the next one, until stopped.
    const real = await startTestEmulator({ processingMs: 20, publishMs: 20 });
    try {
      await real.api.freshMinute();
      const report = join(mkdtempSync(join(tmpdir(), 'vidpub-shard-')), 'r.json');
      const ctl = new AbortController();
      let seen = 0;
      const r = await runCli(['batch', manifest(drafts(24, 'stopped')), '--yes', '--report', report], {
        env: { ...real.env(), TZ: 'UTC' },
        signal: ctl.signal,
        onStderr: (s) => {
          seen += s.match(/item \d+: draft/g)?.length ?? 0;
          if (seen >= 20) ctl.abort();
        },
      });
      expect(r.code, r.stderr).toBe(130);
      const rep = readReport(report);
      expect(rep.complete).toBe(false);
      expect(rep.ended_at).not.toBeNull();
      const count = (result: string) => rep.items.filter((it) => it.result === result).length;
      expect(count('posted')).toBe(20);
      expect(count('pending')).toBe(4);
      expect(rep.items.length).toBe(24);
    } finally {
      await real.close();
    }
  });
});

describe('batch --shard: shards of one key share its allowance', () => {
  it('two shards at once, 30 writes on a key of 20 a minute: both pace (Retry-After, the allowance gate) and end with every item, each once', async () => {
    // The emulator and both runs on one clock that moves only by the waits the runs ask for (Retry-After, the gate's
    // wait for the next minute), never by the machine's time: the 30 writes meet the minute's 20 however slow the
    // machine (a clock of real time scaled let a loaded machine spread them over several minutes and never pace).
    const clock = manualClock(Date.now());
    const paced = await startTestEmulator({ processingMs: 20, publishMs: 20, now: clock.now });
    try {
      await paced.api.freshMinute();
      const file = manifest(drafts(30, 'paced'));
      let ended = 0;
      const runs = await Promise.all([
        ...[1, 2].map((i) =>
          runCli(['batch', file, '--yes', '--json', '--shard', `${i}/2`], { clock, env: { ...paced.env(), TZ: 'UTC', VIDPUB_STATE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-shard-state-')) } }).finally(() => ended++),
        ),
        // The time of the runs' waits, the shortest first; the whole batch's --timeout (30m) is never the one moved to.
        (async () => {
          while (ended < 2) {
            const waits = clock.pending().filter((ms) => ms < 1_800_000);
            if (waits.length > 0) clock.tick(Math.min(...waits));
            await sleep(5);
          }
        })().then(() => undefined),
      ]).then((all) => all.slice(0, 2) as Awaited<ReturnType<typeof runCli>>[]);
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const statuses = runs.flatMap((r) => (JSON.parse(r.stdout) as { items: { status: string }[] }).items.map((o) => o.status));
      expect(statuses).toEqual(Array(30).fill('draft'));
      const posts = (await writes(paced)).filter((w) => w.path === '/v1/posts');
      expect(posts.filter((w) => w.status < 300 && !w.replayed).length).toBe(30);
      expect(new Set(posts.map((w) => w.idempotency_key)).size).toBe(30);
      // They met the minute's end: some were held back (by a 429's Retry-After, or by the gate before sending).
      const held = posts.filter((w) => w.status === 429).length + runs.reduce((n, r) => n + (JSON.parse(r.stdout) as { stats: { paced_waits: number } }).stats.paced_waits, 0);
      expect(held).toBeGreaterThan(0);
    } finally {
      await paced.close();
    }
  });
});
