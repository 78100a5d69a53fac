/**
 * batch --slots in-process against the emulator, on a clock set to Saturday 2027-03-20 (the
 * emulator's advanced to it too): the plan over the weekend and the spring-forward night; posts
 * already scheduled by hand (the journal) push the items to the next free slots; a run schedules
 * each item at its slot and a rerun keeps those times and sends nothing; bad rules: exit 2, nothing sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { aheadBy } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { realClock } from '../../src/cli/run/context.js';

// The emulator's clock starts at NOW whatever today's date is (the test moves it on, never back).
const emu = useEmulator({ processingMs: 20, publishMs: 20, now: () => NOW });
const NOW = Date.parse('2027-03-20T12:00:00Z');
let config = '';
const run = cliRunner(() => ({ clock: aheadBy(realClock, NOW - Date.now()), env: { ...emu.env(), TZ: 'Europe/Berlin', VIDPUB_CONFIG_DIR: config, NO_COLOR: '1' } }));

beforeEach(async () => {
  config = tempConfigDir();
  const emuNow = Date.parse((await emu.api.admin('GET', '/clock')).body.now as string);
  if (emuNow < NOW) await emu.api.admin('POST', '/clock', { advance_sec: Math.floor((NOW - emuNow) / 1000) });
});

/** A JSON Lines manifest of `n` items of the demo video, to LinkedIn, without times. */
function manifest(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-slots-'));
  const items = Array.from({ length: n }, (_, i) => JSON.stringify({ media: 'med_demo_sample', to: 'linkedin', caption: `clip ${i + 1}` }));
  writeFileSync(join(dir, 'backlog.jsonl'), items.join('\n') + '\n');
  return join(dir, 'backlog.jsonl');
}

const RULE = ['--slots', 'mon-fri 09:00,17:00', '--from', '2027-03-25'];
const TWELVE = [
  '2027-03-25T09:00:00+01:00', '2027-03-25T17:00:00+01:00', '2027-03-26T09:00:00+01:00', '2027-03-26T17:00:00+01:00',
  '2027-03-29T09:00:00+02:00', '2027-03-29T17:00:00+02:00', '2027-03-30T09:00:00+02:00', '2027-03-30T17:00:00+02:00',
  '2027-03-31T09:00:00+02:00', '2027-03-31T17:00:00+02:00', '2027-04-01T09:00:00+02:00', '2027-04-01T17:00:00+02:00',
];
type PlanDoc = { items: { item: number; publish_at: string }[]; slots: { times: { item: number; destination: string; local: string; utc: string; from: string }[]; notes: string[] } };

describe('batch --slots', () => {
  it('--dry-run plans 12 items over the weekend and the spring-forward night, as a table and as JSON', async () => {
    const path = manifest(12);
    const doc = await run(['batch', path, ...RULE, '--dry-run', '--json']);
    expect(doc.stderr).toBe('');
    expect(doc.code).toBe(0);
    const plan = JSON.parse(doc.stdout) as PlanDoc;
    expect(plan.items.map((it) => it.publish_at)).toEqual(TWELVE);
    expect(plan.slots.times[4]).toEqual({ item: 5, destination: '@vidpub-demo (linkedin)', local: '2027-03-29T09:00:00+02:00', utc: '2027-03-29T07:00:00Z', from: 'slot' });
    const table = await run(['batch', path, ...RULE, '--dry-run']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Slots of "mon-fri 09:00,17:00" in Europe\/Berlin:$/m);
    expect(table.stdout).toMatch(/^5\t@vidpub-demo \(linkedin\)\t2027-03-29T09:00:00\+02:00\t2027-03-29T07:00:00Z$/m);
    expect(await emu.requests()).not.toContainEqual(expect.objectContaining({ method: 'POST', path: '/v1/posts' }));
  });

  it('takes the next free slots around 3 posts scheduled by hand; a run schedules each at its slot, a rerun keeps them and sends nothing', async () => {
    for (const at of ['2027-03-25 09:00', '2027-03-25 17:00', '2027-03-29 09:00']) {
      const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', `by hand ${at}`, '--at', at, '--yes', '--no-wait', '--json', 'id']);
      expect(r.code).toBe(0);
    }
    const path = manifest(3);
    const plan = JSON.parse((await run(['batch', path, ...RULE, '--dry-run', '--json'])).stdout) as PlanDoc;
    const expected = ['2027-03-26T09:00:00+01:00', '2027-03-26T17:00:00+01:00', '2027-03-29T17:00:00+02:00'];
    expect(plan.items.map((it) => it.publish_at)).toEqual(expected);

    const first = await run(['batch', path, ...RULE, '--yes']);
    expect(first.code).toBe(0);
    const ids = first.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { post_id: string }).post_id);
    const onService = await Promise.all(ids.map(async (id) => (await emu.api.get(`/posts/${id}`)).body as { status: string; publish_at: string }));
    expect(onService.map((p) => [p.status, Date.parse(p.publish_at)])).toEqual(expected.map((t) => ['scheduled', Date.parse(t)]));

    const posts = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts').length;
    const again = await run(['batch', path, ...RULE, '--dry-run', '--json']);
    const replan = JSON.parse(again.stdout) as PlanDoc;
    expect(replan.items.map((it) => it.publish_at)).toEqual(expected);
    expect(replan.slots.times.map((t) => t.from)).toEqual(['journal', 'journal', 'journal']);
    const rerun = await run(['batch', path, ...RULE, '--yes']);
    expect(rerun.code).toBe(0);
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && !q.replayed).length).toBe(posts);
  });

  it.each([
    [['--slots', 'funday 25:00'], /invalid rule "funday 25:00" for --slots: "funday" \(character 1\) is not a day/],
    [['--slots', 'mon 9:00', '--every', '2h'], /--slots and --every are two rules for the same times: give one of them/],
    [['--slots', ''], /invalid rule "" for --slots: at character 1 is empty/],
    [['--slots', 'daily 9:00', '--from', '2027-03-01'], /the time 2027-03-01T00:00:00\+01:00 \(2027-02-28T23:00:00Z\) for --from is in the past/],
    [['--from', 'tomorrow 9:00'], /--from goes with a rule of times/],
  ])('%j: exit 2 naming what is wrong, nothing sent', async (flags, message) => {
    const r = await run(['batch', manifest(2), ...flags, '--yes']);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect((await emu.requests()).filter((q) => q.path.startsWith('/v1/'))).toEqual([]);
  });
});
