import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Post, RecordedRequest } from '../../src/contract/wire-types.js';
import { cliRunner, runCli } from '../support/cli.js';
import { manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { scriptedPrompter } from '../support/prompter.js';
import { exhaustDailyAllowance, startTestEmulator, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const TZ = 'Europe/Paris';
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ } }));

/** A directory with a manifest and the videos it names (copies of the test clips). */
function workdir(files: Record<string, string>, videos = ['a.mp4', 'b.mp4', 'c.mp4', 'd.mp4']): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-'));
  // Each video of its own content (its last byte): the same content would be uploaded once and reused (media/reuse.ts).
  const clip = readFileSync('test/fixtures/clip.mp4');
  videos.forEach((v, i) => {
    const b = Buffer.from(clip);
    b[b.length - 1] = (b[b.length - 1]! + i + 1) & 0xff;
    writeFileSync(join(dir, v), b);
  });
  copyFileSync('test/fixtures/long.mp4', join(dir, 'long.mp4'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const api = async (): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.path.startsWith('/v1/'));
const writesOf = (reqs: RecordedRequest[]) => reqs.filter((r) => r.method !== 'GET');
const fresh = (reqs: RecordedRequest[], method: string, path: string) => reqs.filter((r) => r.method === method && r.path === path && !r.replayed && r.status < 300);

interface Line {
  item: number;
  line?: number;
  status: string;
  media_id: string | null;
  post_id: string | null;
  review_url: string | null;
  destinations: { destination_id: string; status: string }[];
  error?: string;
}
/** The stdout lines, in the order the items ended. */
const ended = (stdout: string): Line[] => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
/** The stdout lines by item number. */
const lines = (stdout: string): Line[] => ended(stdout).sort((a, b) => a.item - b.item);
const getPost = async (id: string) => (await emu.api.get<Post>(`/posts/${id}`)).body;

/** A day some weeks ahead (the service schedules at most a year out). */
const DAY = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);

const YAML = `# two clips this week
batch_key: week-47
defaults:
  to: [youtube, "@vidpub.demo"]
  options:
    "@vidpub.demo": { privacy: SELF_ONLY }
    youtube: { visibility: unlisted }
items:
  - file: a.mp4
    caption: Monday
  - file: b.mp4
    caption: Tuesday
    at: "${DAY} 09:00"
    tz: America/New_York
    options:
      youtube: { visibility: public }
  - file: c.mp4
    caption_file: caption.txt
    to: linkedin
    draft: true
`;

describe('vidpub batch: formats', () => {
  it('each line is written as its item ends: the draft and the scheduled item before the one still publishing', async () => {
    const dir = workdir({ 'week.yaml': YAML, 'caption.txt': 'From a file\n' });
    // Publishing takes 10 minutes of the emulator's clock, which moves on only once the other two lines are out:
    // the order is staged, not left to how fast each item goes. (The scheduled item is weeks ahead: it stays.)
    await emu.admin('POST', '/settings', { publish_ms: 600_000 });
    let released: Promise<void> | undefined;
    let out = '';
    try {
      const r = await run(['batch', join(dir, 'week.yaml')], {
        clock: scaledClock(5),
        onStdout: (chunk) => {
          out += chunk;
          if (!released && out.split('\n').filter(Boolean).length >= 2) released = emu.advance(1200);
        },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(released).toBeDefined();
      const order = ended(r.stdout).map((o) => o.status);
      expect(order).toHaveLength(3);
      expect(order[2]).toBe('published');
      expect(order.slice(0, 2).sort()).toEqual(['draft', 'scheduled']);
    } finally {
      await released;
      await emu.admin('POST', '/settings', { publish_ms: 20 });
    }
  });

  it('YAML: defaults inherited, an item overriding them, a scheduled item in its own zone, a draft with a caption file (exit 0)', async () => {
    const dir = workdir({ 'week.yaml': YAML, 'caption.txt': 'From a file\n' });
    const r = await run(['batch', join(dir, 'week.yaml')]);
    expect(r.stderr).toMatch(/Sending 3 items from .*week\.yaml \(2 posts needed, 30 left today\), 3 at a time\./);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((o) => [o.item, o.line, o.status])).toEqual([
      [1, 9, 'published'],
      [2, 11, 'scheduled'],
      [3, 17, 'draft'],
    ]);
    const p1 = await getPost(out[0]!.post_id!);
    expect(p1.caption).toBe('Monday');
    expect(Object.fromEntries(p1.destinations.map((d) => [d.destination_id, d.options]))).toMatchObject({
      dst_demo_youtube: { visibility: 'unlisted' },
      dst_demo_tiktok: { privacy: 'SELF_ONLY' },
    });
    const p2 = await getPost(out[1]!.post_id!);
    expect(p2.publish_at).toMatch(new RegExp(`^${DAY}T1[34]:00:00.000Z$`));
    expect((out[1] as Line & { publish_at: string }).publish_at).toMatch(new RegExp(`^${DAY}T09:00:00-0[45]:00$`));
    expect(p2.destinations.find((d) => d.destination_id === 'dst_demo_youtube')!.options.visibility).toBe('public');
    const p3 = await getPost(out[2]!.post_id!);
    expect(p3).toMatchObject({ status: 'draft', caption: 'From a file' });
    expect(p3.destinations.map((d) => d.destination_id)).toEqual(['dst_demo_linkedin']);
    // stderr ends with the table
    expect(r.stderr).toMatch(/ITEM\s+STATUS\s+VIDEO\s+POST\s+DESTINATIONS/);
    expect(r.stderr).toMatch(/1 published, 1 scheduled, 1 draft in/);
  });

  it('CSV: a header row, option:KEY and option:DEST:KEY columns, destinations separated by ";"', async () => {
    const csv = [
      'file,to,caption,option:privacy,option:youtube:visibility,at,tz',
      'a.mp4,@vidpub.demo;youtube,"Hello, world",FOLLOWER_OF_CREATOR,public,,',
      `b.mp4,linkedin,Later,,,${DAY} 10:00,UTC`,
    ].join('\n');
    const dir = workdir({ 'posts.csv': csv });
    const r = await run(['batch', join(dir, 'posts.csv')]);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((o) => [o.item, o.line, o.status])).toEqual([
      [1, 2, 'published'],
      [2, 3, 'scheduled'],
    ]);
    const p1 = await getPost(out[0]!.post_id!);
    expect(p1.caption).toBe('Hello, world');
    expect(Object.fromEntries(p1.destinations.map((d) => [d.destination_id, d.options]))).toMatchObject({
      dst_demo_tiktok: { privacy: 'FOLLOWER_OF_CREATOR' },
      dst_demo_youtube: { visibility: 'public' },
    });
    expect((await getPost(out[1]!.post_id!)).publish_at).toBe(`${DAY}T10:00:00.000Z`);
  });

  it('JSON: an object with defaults and items; --json prints one document', async () => {
    const doc = {
      defaults: { to: 'linkedin', options: { visibility: 'CONNECTIONS' } },
      items: [
        { file: 'a.mp4', caption: 'One' },
        { media: 'med_demo_sample', caption: 'Two', to: ['youtube'], options: { visibility: 'private' } },
      ],
    };
    const dir = workdir({ 'b.json': JSON.stringify(doc, null, 2) });
    const r = await run(['batch', join(dir, 'b.json'), '--json']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { items: Line[]; stats: { reads: number; writes: number } };
    expect(body.items.map((o) => [o.item, o.status])).toEqual([
      [1, 'published'],
      [2, 'published'],
    ]);
    expect(body.items[1]!.media_id).toBe('med_demo_sample');
    expect((await getPost(body.items[0]!.post_id!)).destinations[0]!.options.visibility).toBe('CONNECTIONS');
    expect((await getPost(body.items[1]!.post_id!)).destinations[0]!.options.visibility).toBe('private');
    // a video already at the service is not uploaded again: one upload for two items
    expect(fresh(await api(), 'POST', '/v1/media/uploads')).toHaveLength(1);
    expect(body.stats.writes).toBe(4);
  });

  it('JSON Lines on stdin with --format jsonl; without --format it is refused (exit 2)', async () => {
    const jsonl = ['{"file":"test/fixtures/clip.mp4","to":"linkedin","caption":"A"}', '', '{"file":"test/fixtures/clip.mp4","to":"youtube","caption":"B"}'].join('\n');
    const r = await run(['batch', '-', '--format', 'jsonl'], { stdin: jsonl });
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((o) => [o.item, o.line, o.status])).toEqual([
      [1, 1, 'published'],
      [2, 3, 'published'],
    ]);
    const bad = await run(['batch', '-'], { stdin: jsonl });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/reading the manifest from stdin needs --format yaml, csv, json or jsonl/);
  });
});

describe('vidpub batch: checks before anything is sent', () => {
  it('reports every problem at once with its item and line, exit 2, and sends no write', async () => {
    const yaml = `items:
  - file: missing.mp4
    to: linkedin
    caption: x
  - file: a.mp4
    to: youtube
    caption: x
    options: { visibility: secret }
  - file: a.mp4
    to: linkedin
    caption: x
    at: "2020-01-01 09:00"
  - file: a.mp4
    to: "@nobody"
    caption: x
  - file: a.mp4
    to: "@vidpub.demo"
    caption: no privacy
  - file: long.mp4
    to: "@vidpub.demo"
    caption: too long
    options: { privacy: SELF_ONLY }
  - file: b.mp4
    to: linkedin
    caption: twice
  - file: b.mp4
    to: linkedin
    caption: twice
  - file: a.mp4
    to: dst_demo_instagram
    caption: disconnected
  - to: linkedin
    caption: no video
`;
    const dir = workdir({ 'bad.yaml': yaml });
    const r = await run(['batch', join(dir, 'bad.yaml'), '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: 9 problems in .*bad\.yaml; nothing was sent/);
    expect(r.stderr).toMatch(/item 1 \(line 2\): missing\.mp4: no such file/);
    expect(r.stderr).toMatch(/item 2 \(line 5\): option visibility=secret: "secret" is not an allowed value of visibility for youtube/);
    expect(r.stderr).toMatch(/item 3 \(line 9\): the time 2020-01-01T09:00:00\+01:00 \(2020-01-01T08:00:00Z\) is in the past/);
    expect(r.stderr).toMatch(/item 4 \(line 13\): unknown destination "@nobody"/);
    expect(r.stderr).toMatch(/item 5 \(line 16\): @vidpub\.demo needs option "privacy".*a person chooses it, vidpub never fills it in/);
    expect(r.stderr).toMatch(/item 6 \(line 19\): the video is \d+m( \d+s)? long; @vidpub\.demo \(tiktok\) takes at most 10m/);
    expect(r.stderr).toMatch(/item 8 \(line 26\): repeats item 7/);
    expect(r.stderr).toMatch(/item 9 \(line 29\): cannot post to @vidpub\.demo \(instagram\): it is disconnected/);
    expect(r.stderr).toMatch(/item 10 \(line 32\): no video: give file, url or media/);
    expect(writesOf(await api())).toEqual([]);
  });

  it('CSV problems name the line of the row; an unknown column is refused', async () => {
    const csv = ['file,to,caption,colour', 'a.mp4,linkedin,ok,red', 'a.mp4,,missing to,blue'].join('\n');
    const dir = workdir({ 'x.csv': csv });
    const r = await run(['batch', join(dir, 'x.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 1: unknown column "colour"/);
    expect(r.stderr).toMatch(/item 2 \(line 3\): "to" is missing/);
    expect(writesOf(await api())).toEqual([]);
  });

  it('a CSV item missing a required option: the allowed values and how to write it in CSV (a column), not only in YAML (exit 2)', async () => {
    const dir = workdir({ 'x.csv': ['file,to,caption', 'a.mp4,@vidpub.demo,hi'].join('\n') });
    const r = await run(['batch', join(dir, 'x.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/item 1 \(line 2\): @vidpub\.demo needs option "privacy" .*one of: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY; .*a column option:privacy in CSV/);
    expect(writesOf(await api())).toEqual([]);
  });

  it('--json: the problems also come as a list in the JSON error object (item, line, message)', async () => {
    const csv = ['file,to,caption', 'a.mp4,linkedin,ok', 'missing.mp4,linkedin,gone', 'a.mp4,,missing to'].join('\n');
    const dir = workdir({ 'x.csv': csv });
    const r = await run(['batch', join(dir, 'x.csv'), '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { type: string; message: string; problems: unknown[] } };
    expect(error).toMatchObject({ type: 'usage', exit_code: 2 });
    expect(error.message).toMatch(/^2 problems in .*x\.csv; nothing was sent$/);
    expect(error.problems).toEqual([
      { item: 2, line: 3, message: 'missing.mp4: no such file' },
      { item: 3, line: 4, message: '"to" is missing: where should it be posted? (ids, @handles or platforms)' },
    ]);
    expect(writesOf(await api())).toEqual([]);
  });

  it('a YAML syntax error names its line (exit 2)', async () => {
    const dir = workdir({ 'x.yaml': 'items:\n  - file: a.mp4\n    to: [linkedin\n' });
    const r = await run(['batch', join(dir, 'x.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line \d+: not valid YAML/);
    expect(await api()).toEqual([]);
  });

  it('--dry-run prints the plan (defaults marked, local time and UTC, allowance) and sends no write', async () => {
    const dir = workdir({ 'week.yaml': YAML, 'caption.txt': 'From a file\n' });
    const r = await run(['batch', join(dir, 'week.yaml'), '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Plan for .*week\.yaml: 3 items \(2 to post, 1 draft\); times in Europe\/Paris$/m);
    // The reset in the form a person reads a time: the date, the time in the plan's zone, then UTC.
    expect(r.stdout).toMatch(/^Daily post allowance: 2 needed, 30 left of 30 \(resets \d{4}-\d\d-\d\d \d\d:\d\d \S+ \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\)$/m);
    expect(r.stdout).toMatch(/^item 2 \(line 11\): b\.mp4 \(13\.7 kB, \d+s\)$/m);
    expect(r.stdout).toMatch(new RegExp(`^ {2}when: {4}${DAY} 09:00 (EST|EDT) \\(${DAY}T1[34]:00:00Z\\)$`, 'm'));
    expect(r.stdout).toMatch(/^ {2}to @vidpubdemo \(youtube\): visibility=public$/m);
    expect(r.stdout).toMatch(/^ {2}to @vidpub\.demo \(tiktok\): privacy=SELF_ONLY \(from defaults\)$/m);
    expect(writesOf(await api())).toEqual([]);

    const j = await run(['batch', join(dir, 'week.yaml'), '--dry-run', '--json']);
    const plan = JSON.parse(j.stdout) as { items: { destinations: { options: Record<string, { from: string }> }[] }[]; posts_needed: number };
    expect(plan.posts_needed).toBe(2);
    expect(plan.items[0]!.destinations[0]!.options.visibility!.from).toBe('defaults');
  });

  it('a shortfall of the daily allowance is exit 4 naming how many fit, nothing sent', async () => {
    await exhaustDailyAllowance(emu);
    const before = writesOf(await api()).length;
    const dir = workdir({ 'x.jsonl': ['{"file":"a.mp4","to":"linkedin","caption":"d","draft":true}', '{"file":"b.mp4","to":"linkedin","caption":"p"}'].join('\n') });
    const r = await run(['batch', join(dir, 'x.jsonl')]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/The batch needs 1 posts of the daily allowance, but 0 are left of 30: only the first 1 item would fit\. Nothing was sent\./);
    expect(r.stderr).toMatch(/--wait-for-quota/);
    expect(writesOf(await api())).toHaveLength(before);
  });
});

describe('vidpub batch: running', () => {
  it('an injected destination failure: that item failed, the rest published (exit 6)', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const jsonl = ['a.mp4 youtube', 'b.mp4 linkedin', 'c.mp4 youtube'].map((s) => {
      const [file, to] = s.split(' ');
      return JSON.stringify({ file, to, caption: file });
    });
    const dir = workdir({ 'x.jsonl': jsonl.join('\n') });
    const r = await run(['batch', join(dir, 'x.jsonl')]);
    expect(r.code).toBe(6);
    const out = lines(r.stdout);
    expect(out.map((o) => o.status)).toEqual(['published', 'failed', 'published']);
    expect(out[1]!.error).toMatch(/1 of 1 destinations did not publish: @vidpub-demo \(linkedin\) failed/);
    expect(out[1]!.post_id).toMatch(/^post_/);
    expect(r.stderr).toMatch(/Error: 1 of 3 items failed\./);
  });

  it('Ctrl-C in the middle, then a rerun: nothing is created twice', async () => {
    const items = ['a.mp4', 'b.mp4', 'c.mp4', 'd.mp4'].map((file, i) => ({ file, to: 'linkedin', caption: `clip ${i + 1}` }));
    const dir = workdir({ 'x.json': JSON.stringify(items) });
    const ctl = new AbortController();
    const first = await run(['batch', join(dir, 'x.json'), '--concurrency', '1'], {
      signal: ctl.signal,
      onStderr: (s) => {
        if (/item 1: published/.test(s)) ctl.abort();
      },
    });
    // 130; or 9 when Ctrl-C came while an item's write was in flight (its outcome unknown; the rerun settles it).
    expect([130, 9]).toContain(first.code);
    expect(first.stderr).toMatch(first.code === 130 ? /Interrupted: \d of 4 items unfinished/ : /The outcome of \d of 4 items is unknown/);
    const firstOut = lines(first.stdout);
    expect(firstOut[0]!.status).toBe('published');
    // The unfinished items: "skipped" before their post, "publishing" once it was created.
    const unfinished = firstOut.filter((o) => o.status !== 'published');
    expect(unfinished.length).toBeGreaterThan(0);
    for (const o of unfinished) {
      if (o.status !== 'unknown') expect(o.status === 'skipped' ? o.post_id : o.status === 'publishing' ? o.post_id !== null : o.status).toBe(o.status === 'skipped' ? null : true);
    }

    const second = await run(['batch', join(dir, 'x.json'), '--concurrency', '1']);
    expect(second.code).toBe(0);
    const out = lines(second.stdout);
    expect(out.map((o) => o.status)).toEqual(['published', 'published', 'published', 'published']);
    expect(out[0]).toMatchObject({ post_id: firstOut[0]!.post_id, media_id: firstOut[0]!.media_id, replayed: true });

    const reqs = await api();
    expect(fresh(reqs, 'POST', '/v1/media/uploads')).toHaveLength(4);
    expect(fresh(reqs, 'POST', '/v1/posts')).toHaveLength(4);
    const posts = (await emu.api.get<{ usage: { post_count: number } }>('/me')).body;
    expect(posts.usage.post_count).toBe(4);
  });

  it('a run needing more writes than one minute allows meets no 429 (a fast emulator clock)', async () => {
    // Both clocks run 20x: the emulator's minute windows last 3 s of real time.
    const clock = scaledClock(20);
    const fast = await startTestEmulator({ processingMs: 20, publishMs: 20, now: clock.now });
    try {
      const items = Array.from({ length: 8 }, (_, i) => ({ file: `v${i}.mp4`, to: 'linkedin', caption: `clip ${i}` }));
      const dir = workdir({ 'x.json': JSON.stringify(items) }, items.map((it) => it.file));
      // Start just after a minute begins, so the 24 writes cannot all fall in one window.
      await fast.api.freshMinute();
      const r = await runCli(['batch', join(dir, 'x.json'), '--concurrency', '4', '--json'], { clock, env: { ...fast.env(), TZ } });
      expect(r.stderr).not.toMatch(/Rate limited/);
      expect(r.code).toBe(0);
      const body = JSON.parse(r.stdout) as { items: Line[]; stats: { writes: number; paced_waits: number; elapsed_ms: number } };
      expect(body.items.map((o) => o.status)).toEqual(Array(8).fill('published'));
      // the pacing held writes back until the window turned
      expect(body.stats.paced_waits).toBeGreaterThan(0);
      expect(Object.keys(body.stats).sort()).toEqual(['elapsed_ms', 'paced_waits', 'reads', 'writes']);
      const reqs = (await fast.requests()).filter((q) => q.path.startsWith('/v1/'));
      // 8 uploads, 8 completes, 8 posts: 24 writes on a key allowed 20 a minute
      expect(writesOf(reqs)).toHaveLength(24);
      expect(reqs.filter((q) => q.status === 429)).toEqual([]);
    } finally {
      await fast.close();
    }
  });

  it('at a terminal: the plan, one confirmation, a line per item redrawn in place; declining sends nothing (exit 130)', async () => {
    const dir = workdir({ 'x.jsonl': ['{"file":"a.mp4","to":"linkedin","caption":"one"}', '{"file":"b.mp4","to":"youtube","caption":"two"}'].join('\n') });
    const no = scriptedPrompter([false]);
    const declined = await run(['batch', join(dir, 'x.jsonl')], { tty: true, prompter: no.prompter });
    expect(declined.code).toBe(130);
    expect(no.asked.map((a) => a.message)).toEqual(['Send these 2 items?']);
    expect(declined.stderr).toMatch(/Plan for .*x\.jsonl: 2 items.*\(2 to post\)/);
    expect(declined.stderr).toMatch(/Cancelled: nothing was uploaded or posted\./);
    expect(writesOf(await api())).toEqual([]);

    const yes = scriptedPrompter([true]);
    const r = await run(['batch', join(dir, 'x.jsonl')], { tty: true, prompter: yes.prompter });
    expect(r.code).toBe(0);
    // the live view moves the cursor up to redraw its lines, and ends with every item's final state
    expect(r.stderr).toContain('\u001b[2A');
    expect(r.stderr).toMatch(/ {2}1 {2}a\.mp4 +.*published post_\w+/);
    expect(r.stderr).toMatch(/ {2}2 {2}b\.mp4 +.*published post_\w+/);
    // stdout at a terminal: lines for a person, no JSON
    const { stripVTControlCharacters } = await import('node:util');
    expect(stripVTControlCharacters(r.stdout)).toMatch(/^item 1 \(line 1\): published post_\w+$/m);
    expect(stripVTControlCharacters(r.stdout)).toMatch(/^item 2 \(line 2\): published post_\w+$/m);
    expect(r.stdout).not.toMatch(/^\{/m);
  });

  it('--yes skips the confirmation at a terminal; bad flags are refused (exit 2)', async () => {
    const dir = workdir({ 'x.jsonl': '{"file":"a.mp4","to":"linkedin","caption":"one"}\n' });
    const r = await run(['batch', join(dir, 'x.jsonl'), '--yes'], { tty: true });
    expect(r.code).toBe(0);
    const c = await run(['batch', join(dir, 'x.jsonl'), '--concurrency', '0']);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/--concurrency must be a whole number from 1 to 16, not "0"/);
    const f = await run(['batch', join(dir, 'x.txt')]);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/cannot tell the format of .*x\.txt from its extension/);
    const m = await run(['batch', join(dir, 'nope.yaml')]);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/nope\.yaml: no such file/);
  });

  it('keys come from each item: editing one item changes only its keys; another batch_key changes them all', async () => {
    const manifest = (caption2: string, batchKey: string) =>
      JSON.stringify({ batch_key: batchKey, items: ['a.mp4', 'b.mp4', 'c.mp4'].map((file, i) => ({ file, to: 'linkedin', caption: i === 1 ? caption2 : file })) });
    const keysOf = async (text: string) => {
      const dir = workdir({ 'x.json': text });
      const r = await run(['batch', join(dir, 'x.json'), '--dry-run', '--json']);
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { items: { idempotency_key: string }[] }).items.map((i) => i.idempotency_key);
    };
    const a = await keysOf(manifest('two', 'w1'));
    const b = await keysOf(manifest('two, edited', 'w1'));
    const c = await keysOf(manifest('two', 'w2'));
    expect(new Set(a).size).toBe(3);
    expect([b[0] === a[0], b[1] === a[1], b[2] === a[2]]).toEqual([true, false, true]);
    expect(c.filter((k, i) => k === a[i])).toEqual([]);
  });

  it('links are imported, at most 5 downloading at once, with no imports_in_flight refusal', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ url: `https://cdn.example.com/v${i}.mp4`, to: 'linkedin', caption: `link ${i}` }));
    const dir = workdir({ 'x.json': JSON.stringify(items) });
    const r = await run(['batch', join(dir, 'x.json'), '--concurrency', '7']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((o) => o.status)).toEqual(Array(7).fill('published'));
    const reqs = await api();
    expect(fresh(reqs, 'POST', '/v1/media/imports')).toHaveLength(7);
    expect(reqs.filter((q) => q.status === 429)).toEqual([]);
  });

  it('--timeout for the whole batch: an item still publishing says so with its post and the command to follow it, exit 7', async () => {
    const slow = await startTestEmulator({ processingMs: 20, publishMs: 600_000 });
    try {
      const dir = workdir({ 'x.jsonl': '{"file":"a.mp4","to":"linkedin","caption":"slow"}\n' });
      // The hour runs out on a clock that moves only when told, once the post is made and vidpub watches it: never
      // during the upload or the processing, however slow the machine (their looks move the clock as they begin).
      const clock = manualClock();
      const running = runCli(['batch', join(dir, 'x.jsonl'), '--timeout', '1h'], { clock, env: { ...slow.env(), TZ } });
      await timeUpWhen(clock, 3_600_000, async () => (await slow.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201), { meanwhile: true });
      const r = await running;
      expect(r.code).toBe(7);
      const [o] = lines(r.stdout);
      expect(o).toMatchObject({
        status: 'publishing',
        post_id: expect.stringMatching(/^post_/),
        error: `stopped waiting (--timeout); post ${o!.post_id} was created and goes on at the service, its outcome not known yet; follow it with: vidpub status ${o!.post_id} --wait`,
      });
      expect(r.stderr).toContain(`Error: Stopped waiting (--timeout) for 1 of 1 item; they go on at the service.\nFollow it with: vidpub status ${o!.post_id} --wait\n`);
    } finally {
      await slow.close();
    }
  });

  it('a long batch at a terminal: the view shows the items under way and counts the rest', async () => {
    const items = Array.from({ length: 14 }, (_, i) => ({ media: 'med_demo_sample', to: 'linkedin', caption: `c${i}` }));
    const dir = workdir({ 'x.json': JSON.stringify(items) }, []);
    const r = await run(['batch', join(dir, 'x.json'), '--yes'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/14 done, 0 under way, 0 waiting/);
    // never more than 12 lines redrawn at once
    // eslint-disable-next-line no-control-regex
    const ups = [...r.stderr.matchAll(/\u001b\[(\d+)A/g)].map((m) => Number(m[1]));
    expect(Math.max(...ups)).toBeLessThanOrEqual(12);
  });
});
