/**
 * vidpub schedule and the exports, in-process against the emulator: posts scheduled with
 * `post --at` (the journal), shown by day in the zone with each day's count; --ics parsed by
 * ical.js (one event per post and destination, stable UIDs, the caption as the summary, folded
 * and escaped, the review URL); --csv and history --csv read back by Python's csv module (the
 * header, every row, a caption "=1+1" written so no spreadsheet runs it); bad input: exit 2.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import ICAL from 'ical.js';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { aheadBy } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { realClock } from '../../src/cli/run/context.js';

// The posts are made once, for every test of the file: none of them writes.
// The emulator's clock starts at NOW whatever today's date is (the test moves it on, never back).
const emu = useEmulator({ processingMs: 20, publishMs: 20, resetEachTest: false, now: () => NOW });
const NOW = Date.parse('2027-03-20T12:00:00Z');
let config = '';
const run = cliRunner(() => ({ clock: aheadBy(realClock, NOW - Date.now()), env: { ...emu.env(), TZ: 'Europe/Berlin', VIDPUB_CONFIG_DIR: config, NO_COLOR: '1' } }));
const noPython = missing('python3');

const LONG = 'Spring – a caption long enough to be folded: ünïcödé, commas; semicolons\\ and a second line\nhere, with 🌷 flowers 🌷🌷🌷 and more words';
const POSTS: [string, string, string[]][] = [
  ['2027-03-25 09:00', '=1+1', ['linkedin']],
  ['2027-03-25 17:00', LONG, ['linkedin', 'youtube']],
  ['2027-03-29 09:00', '@someone, "quoted"', ['linkedin']],
];

beforeAll(async () => {
  config = tempConfigDir();
  const emuNow = Date.parse((await emu.api.admin('GET', '/clock')).body.now as string);
  if (emuNow < NOW) await emu.api.admin('POST', '/clock', { advance_sec: Math.floor((NOW - emuNow) / 1000) });
  for (const [at, caption, to] of POSTS) {
    const r = await run(['post', '--media', 'med_demo_sample', ...to.flatMap((t) => ['--to', t]), ...(to.includes('youtube') ? ['--option', 'youtube:visibility=unlisted'] : []), '--caption', caption, '--at', at, '--yes', '--no-wait', '--json', 'id']);
    expect(r.code, r.stderr).toBe(0);
  }
});

type Doc = { zone: string; days: { day: string; posts: number; destinations: Record<string, number> }[]; entries: { post_id: string; local: string; destination_id: string; caption: string; review_url: string | null }[] };

/** Python's csv module reading `text`: its rows. */
function pythonCsv(text: string): string[][] {
  const py = spawnSync('python3', ['-c', 'import csv, io, json, sys; print(json.dumps(list(csv.reader(io.StringIO(sys.stdin.buffer.read().decode("utf-8"), newline="")))))'], { input: text });
  expect(py.stderr.toString()).toBe('');
  return JSON.parse(py.stdout.toString()) as string[][];
}

describe('vidpub schedule', () => {
  it('--json: each post and destination in time order, by day in the zone with the posts each day spends; --since/--until', async () => {
    const r = await run(['schedule', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.zone).toBe('Europe/Berlin');
    expect(doc.entries.map((e) => [e.local, e.destination_id])).toEqual([
      ['2027-03-25T09:00:00+01:00', 'dst_demo_linkedin'],
      ['2027-03-25T17:00:00+01:00', 'dst_demo_linkedin'],
      ['2027-03-25T17:00:00+01:00', 'dst_demo_youtube'],
      ['2027-03-29T09:00:00+02:00', 'dst_demo_linkedin'],
    ]);
    expect(doc.days.map((d) => [d.day, d.posts])).toEqual([['2027-03-25', 2], ['2027-03-29', 1]]);
    expect(doc.entries[0]!.review_url).toMatch(/^https?:\/\/.*post_/);
    const window = JSON.parse((await run(['schedule', '--since', '2027-03-25 12:00', '--until', '2027-03-29', '--json'])).stdout) as Doc;
    expect(window.entries.map((e) => e.destination_id)).toEqual(['dst_demo_linkedin', 'dst_demo_youtube']);
    const table = await run(['schedule']);
    expect(table.stdout).toMatch(/^2027-03-29\t2027-03-29T09:00:00\+02:00\tdst_demo_linkedin\tpost_\w+\t@someone, "quoted"$/m);
  });

  it('--ics parses with ical.js: one event per post and destination, stable UIDs, the caption as summary, the review URL', async () => {
    const first = await run(['schedule', '--ics']);
    expect(first.code).toBe(0);
    expect(first.stdout.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    const events = new ICAL.Component(ICAL.parse(first.stdout)).getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
    expect(events).toHaveLength(4);
    expect(events.map((e) => e.summary)).toEqual(['=1+1', LONG.split('\n')[0], LONG.split('\n')[0], '@someone, "quoted"']);
    expect(events[1]!.description).toContain(LONG);
    expect(events.map((e) => e.startDate.toJSDate().toISOString())).toEqual(['2027-03-25T08:00:00.000Z', '2027-03-25T16:00:00.000Z', '2027-03-25T16:00:00.000Z', '2027-03-29T07:00:00.000Z']);
    expect(new Set(events.map((e) => e.uid)).size).toBe(4);
    expect(events[0]!.component.getFirstPropertyValue('url')).toMatch(/^https?:\/\/.*post_/);
    const again = new ICAL.Component(ICAL.parse((await run(['schedule', '--ics'])).stdout)).getAllSubcomponents('vevent').map((v) => new ICAL.Event(v).uid);
    expect(again).toEqual(events.map((e) => e.uid));
  });

  it.skipIf(noPython)('--csv and history --csv open in Python\'s csv module: the header, every row, formulas made safe', async () => {
    const schedule = pythonCsv((await run(['schedule', '--csv'])).stdout);
    const doc = JSON.parse((await run(['schedule', '--json'])).stdout) as Doc;
    expect(schedule[0]).toEqual(Object.keys(doc.entries[0]!));
    expect(schedule).toHaveLength(5);
    const caption = schedule[0]!.indexOf('caption');
    expect(schedule.slice(1).map((row) => row[caption])).toEqual(["'=1+1", LONG, LONG, "'@someone, \"quoted\""]);

    const history = await run(['history', '--csv']);
    expect(history.code).toBe(0);
    const rows = pythonCsv(history.stdout);
    const posts = JSON.parse((await run(['history', '--json'])).stdout) as Record<string, unknown>[];
    expect(rows[0]).toEqual(expect.arrayContaining(Object.keys(posts[0]!)));
    expect(rows).toHaveLength(4);
    expect(rows.slice(1).map((row) => row[rows[0]!.indexOf('caption')])).toEqual(expect.arrayContaining(["'=1+1", LONG]));
  });

  it.each([
    [['schedule', '--ics', '--json'], /--ics and --json are two forms of the same output: give one of them/],
    [['schedule', '--since', '2027-03-29', '--until', '2027-03-25'], /--until \(2027-03-25\) is not after --since \(2027-03-29\)/],
    [['schedule', '--since', 'someday'], /invalid time "someday" for --since/],
    [['history', '--csv', '--json'], /--csv and --json are two forms of the same output/],
  ])('%j: exit 2', async (argv, message) => {
    const r = await run(argv);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
  });
});
