/**
 * Findings of an audit of `vidpub batch` against the README, each a case the
 * other batch tests did not cover.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/contract/wire-types.js';
import { cliRunner, runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { realClock, type Clock } from '../../src/core/clock.js';
import { scriptedPrompter } from '../support/prompter.js';
import { waitFor } from '../support/poll.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-audit-'));
  for (const v of ['a.mp4', 'b.mp4']) copyFileSync('test/fixtures/clip.mp4', join(dir, v));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const writes = async (): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.path.startsWith('/v1/') && r.method !== 'GET');

describe('vidpub batch (audit)', () => {
  it('declining the confirmation is "Cancelled: …" without "Error:", exit 130, type cancelled with --json', async () => {
    const dir = workdir({ 'x.jsonl': '{"file":"a.mp4","to":"linkedin","caption":"one"}\n' });
    const no = scriptedPrompter([false]);
    const r = await run(['batch', join(dir, 'x.jsonl')], { tty: true, prompter: no.prompter });
    expect(r.code).toBe(130);
    expect(no.asked.map((a) => a.message)).toEqual(['Send this item?']);
    expect(r.stderr).toMatch(/\nCancelled: nothing was uploaded or posted\.\n/);
    expect(r.stderr).not.toMatch(/Error:/);
    const j = await run(['batch', join(dir, 'x.jsonl'), '--json'], { tty: true, prompter: scriptedPrompter([false]).prompter });
    expect(j.code).toBe(130);
    expect(JSON.parse(j.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { type: 'cancelled', message: 'Cancelled: nothing was uploaded or posted.', exit_code: 130 } });
    expect(await writes()).toEqual([]);
  });

  it('a JSON or JSON Lines manifest saved with a UTF-8 byte order mark is read (as YAML and CSV are)', async () => {
    const item = '{"media":"med_demo_sample","to":"linkedin","caption":"bom"}';
    const dir = workdir({ 'x.jsonl': `\ufeff${item}\n`, 'x.json': `\ufeff[${item}]` });
    for (const name of ['x.jsonl', 'x.json']) {
      const r = await run(['batch', join(dir, name), '--dry-run']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Plan for .*x\.jsonl?: 1 item \(1 to post\)/);
    }
    expect(await writes()).toEqual([]);
  });

  it('a rerun after the service\'s 24 hours creates nothing twice: the journal reports the earlier posts as they are now', async () => {
    const dir = workdir({
      'x.jsonl': [
        '{"file":"a.mp4","to":"linkedin","caption":"one"}',
        '{"media":"med_demo_sample","to":"youtube","caption":"two","options":{"visibility":"unlisted"}}',
        '{"file":"b.mp4","to":"linkedin","caption":"three","draft":true}',
      ].join('\n'),
    });
    const state = mkdtempSync(join(tmpdir(), 'vidpub-batch-audit-state-'));
    const env = { VIDPUB_STATE_DIR: state };
    const first = await run(['batch', join(dir, 'x.jsonl'), '--json'], { env: { ...emu.env(), TZ: 'UTC', ...env } });
    expect(first.code).toBe(0);
    const before = (JSON.parse(first.stdout) as { items: { status: string; post_id: string; media_id: string }[] }).items;
    expect(before.map((i) => i.status)).toEqual(['published', 'published', 'draft']);

    await emu.advance(25 * 3600); // past the service's replay window
    const postsBefore = (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts').length;
    const dry = await run(['batch', join(dir, 'x.jsonl'), '--dry-run'], { env: { ...emu.env(), TZ: 'UTC', ...env } });
    expect(dry.stdout).toMatch(/: 3 items \(0 to post, 2 already posted, 1 draft\)/);
    const again = await run(['batch', join(dir, 'x.jsonl'), '--json'], { env: { ...emu.env(), TZ: 'UTC', ...env } });
    expect(again.code).toBe(0);
    const after = (JSON.parse(again.stdout) as { items: { status: string; post_id: string; media_id: string; replayed?: boolean }[] }).items;
    expect(after.map((i) => [i.status, i.post_id, i.media_id, i.replayed])).toEqual(before.map((i) => [i.status, i.post_id, i.media_id, true]));
    const reqs = await emu.requests();
    expect(reqs.filter((r) => r.method === 'POST' && r.path === '/v1/posts').length).toBe(postsBefore);
    expect(reqs.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/media')).length).toBe(2 * 2); // the first run's two uploads only

    // A post the service does not have (another service state on the same URL): the item is posted anew.
    await emu.reset();
    const fresh = await run(['batch', join(dir, 'x.jsonl'), '--json'], { env: { ...emu.env(), TZ: 'UTC', ...env } });
    expect(fresh.code).toBe(0);
    const anew = (JSON.parse(fresh.stdout) as { items: { status: string; post_id: string; replayed?: boolean }[] }).items;
    expect(anew.map((i) => [i.status, i.replayed])).toEqual([['published', undefined], ['published', undefined], ['draft', undefined]]);
    expect((await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts' && r.status === 201)).toHaveLength(3);
  });

  it('a CSV row whose quoted caption spans lines is named by the line it starts on', async () => {
    const dir = workdir({ 'x.csv': 'file,to,caption\nzz.mp4,linkedin,"Monday\nand more\nand more"\nnope.mp4,linkedin,x\n' });
    const r = await run(['batch', join(dir, 'x.csv'), '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('\n  item 1 (line 2): zz.mp4: no such file\n  item 2 (line 5): nope.mp4: no such file\n');
    expect(await writes()).toEqual([]);
  });

  it('Ctrl-C while a created post publishes: the item is "publishing" with its post and how to follow it, never "skipped" (exit 130)', async () => {
    const dir = workdir({ 'x.jsonl': '{"media":"med_demo_sample","to":"linkedin","caption":"stopped"}\n' });
    await emu.admin('POST', '/settings', { publish_ms: 5000 }); // reset before the next test
    const ctl = new AbortController();
    const running = run(['batch', join(dir, 'x.jsonl'), '--json'], { signal: ctl.signal });
    await waitFor(
      () => emu.requests(),
      // A look at the post: its creation was answered, and the batch follows it now.
      (reqs) => reqs.some((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/')),
    );
    ctl.abort();
    const r = await running;
    expect(r.code, r.stderr).toBe(130);
    const [item] = (JSON.parse(r.stdout) as { items: { status: string; post_id: string | null; error?: string }[] }).items;
    expect(item!.post_id).toMatch(/^post_/);
    expect(item).toMatchObject({
      status: 'publishing',
      error: `interrupted; post ${item!.post_id} was created and goes on at the service, its outcome not known yet; follow it with: vidpub status ${item!.post_id} --wait`,
    });
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toEqual({
      error: {
        type: 'interrupted',
        code: null,
        message: 'Interrupted: 1 of 1 item unfinished.',
        exit_code: 130,
        hint: `Follow it with: vidpub status ${item!.post_id} --wait`,
      },
    });
  });

  it('a destination that failed: the hint names "vidpub retry" for its post (a rerun replays the failed post), exit 6', async () => {
    const dir = workdir({ 'x.jsonl': '{"media":"med_demo_sample","to":"linkedin","caption":"fails"}\n{"media":"med_demo_sample","to":"youtube","caption":"goes"}\n' });
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const r = await run(['batch', join(dir, 'x.jsonl')]);
    expect(r.code).toBe(6);
    const failed = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { item: number; status: string; post_id: string }).find((o) => o.item === 1)!;
    expect(failed.status).toBe('failed');
    expect(r.stderr).toMatch(new RegExp(`\nError: 1 of 2 items failed\\.\nPost again to the destinations that failed with: vidpub retry ${failed.post_id}\n$`));
  });

  it('a rerun after a scheduled item\'s time has passed reports that item\'s post (the journal has it) instead of refusing the batch', async () => {
    const state = mkdtempSync(join(tmpdir(), 'vidpub-batch-audit-state-'));
    let offset = 0; // this machine's clock, moved on by hand
    const clock: Clock = { now: () => Date.now() + offset, sleep: (ms, signal) => realClock.sleep(ms, signal) };
    const at = new Date(clock.now() + 2 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const dir = workdir({
      'x.jsonl': `{"media":"med_demo_sample","to":"linkedin","caption":"later","at":"${at}"}\n{"media":"med_demo_sample","to":"youtube","caption":"now","options":{"visibility":"unlisted"}}\n`,
    });
    const env = { ...emu.env(), TZ: 'UTC', VIDPUB_STATE_DIR: state };
    const first = await runCli(['batch', join(dir, 'x.jsonl'), '--no-wait', '--json'], { clock, env });
    expect(first.code, first.stderr).toBe(0);
    const before = (JSON.parse(first.stdout) as { items: { status: string; post_id: string }[] }).items;
    expect(before.map((i) => i.status)).toEqual(['scheduled', 'publishing']);

    offset = 3 * 3600_000; // this machine's clock: the item's time is now past
    await emu.advance(3 * 3600); // and the service's: the scheduled post went out
    const again = await runCli(['batch', join(dir, 'x.jsonl'), '--json'], { clock, env });
    expect(again.stderr).not.toMatch(/in the past/);
    expect(again.code).toBe(0);
    const after = (JSON.parse(again.stdout) as { items: { status: string; post_id: string; replayed?: boolean }[] }).items;
    expect(after.map((i) => [i.post_id, i.replayed])).toEqual(before.map((i) => [i.post_id, true]));

    // Without the journal's word the past time is still refused before anything is sent.
    const other = await runCli(['batch', join(dir, 'x.jsonl'), '--json'], { clock, env: { ...env, VIDPUB_STATE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-batch-audit-state-')) } });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/item 1 \(line 1\): the time .* is in the past/);

    // A past time on an item with another problem is still said, with the journal too.
    writeFileSync(join(dir, 'y.jsonl'), `{"media":"med_demo_sample","to":"mastodon","caption":"later","at":"${at}"}\n`);
    const both = await runCli(['batch', join(dir, 'y.jsonl')], { clock, env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^Error: 2 problems in .*y\.jsonl; nothing was sent\n/);
    expect(both.stderr).toMatch(/\n {2}item 1 \(line 1\): the time .* is in the past\n/);
    expect(both.stderr).toMatch(/\n {2}item 1 \(line 1\): unknown destination "mastodon"/);
  });
});

describe('vidpub batch (audit): CSV syntax', () => {
  it('every CSV row that does not parse is named at once, by item and line, beside the other problems (exit 2)', async () => {
    const dir = workdir({
      'x.csv': [
        'file,to,caption',
        'a.mp4,linkedin,Hello, world', // an unquoted comma
        'nope.mp4,linkedin,fine',
        'a.mp4,linkedin,say "hi"', // a quote inside an unquoted cell
        'b.mp4,linkedin', // a cell short
        'b.mp4,linkedin,last',
      ].join('\n'),
    });
    const r = await run(['batch', join(dir, 'x.csv'), '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        `Error: 4 problems in ${join(dir, 'x.csv')}; nothing was sent`,
        '  item 1 (line 2): not valid CSV: 4 cells where the header has 3 (a cell with a comma in it needs quotes: "Hello, world")',
        '  item 2 (line 3): nope.mp4: no such file',
        '  item 3 (line 4): not valid CSV: a quote in the middle of a cell; put the whole cell in quotes and double each quote in it: "say ""hi"""',
        '  item 4 (line 5): not valid CSV: 2 cells where the header has 3 (a cell with a comma in it needs quotes: "Hello, world")',
        'Fix them and run it again ("--dry-run" shows the plan without sending anything).',
        '',
      ].join('\n'),
    );
    const j = await run(['batch', join(dir, 'x.csv'), '--json']);
    expect(j.code).toBe(2);
    expect(j.stdout).toBe('');
    const { error } = JSON.parse(j.stderr.trim().split('\n').pop()!) as { error: { problems: { item: number; line: number }[] } };
    expect(error.problems.map((p) => [p.item, p.line])).toEqual([[1, 2], [2, 3], [3, 4], [4, 5]]);
    expect(await writes()).toEqual([]);
  });

  it('a quote never closed is named at the row it opens in, not at the end of the file (exit 2)', async () => {
    const dir = workdir({ 'x.csv': 'file,to,caption\na.mp4,linkedin,ok\n\nb.mp4,linkedin,"never closed\nb.mp4,linkedin,x\nb.mp4,linkedin,y\n' });
    const r = await run(['batch', join(dir, 'x.csv'), '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '\n  item 2 (line 4): not valid CSV: a quote opened in this row is never closed (close it, or double it "" where it is part of the text); the rows after it are read once it is fixed\n',
    );
    expect(r.stderr).toMatch(/^Error: 1 problem in /);
    expect(await writes()).toEqual([]);
  });
});

describe('vidpub batch (audit): CSV saved with CRLF line ends', () => {
  it('a quoted caption spanning lines keeps the rows\' lines right and posts the same caption as the LF file', async () => {
    const lf = 'file,to,caption\na.mp4,linkedin,"Monday\nand more"\nnope.mp4,linkedin,x\nb.mp4,linkedin,"two\nlines"\nnope2.mp4,linkedin,z\n';
    const dir = workdir({ 'x.csv': lf.replace(/\n/g, '\r\n') });
    const r = await run(['batch', join(dir, 'x.csv'), '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('\n  item 2 (line 4): nope.mp4: no such file\n  item 4 (line 7): nope2.mp4: no such file\n');

    const good = workdir({ 'crlf.csv': 'file,to,caption\r\na.mp4,linkedin,"Monday\r\nand more"\r\n', 'lf.csv': 'file,to,caption\na.mp4,linkedin,"Monday\nand more"\n' });
    const plans = [];
    for (const name of ['crlf.csv', 'lf.csv']) {
      const p = await run(['batch', join(good, name), '--dry-run', '--json']);
      expect(p.code).toBe(0);
      plans.push((JSON.parse(p.stdout) as { items: { line: number; caption: string; idempotency_key: string }[] }).items[0]);
    }
    expect(plans[0]).toMatchObject({ line: 2, caption: 'Monday\nand more' });
    expect(plans[0]!.idempotency_key).toBe(plans[1]!.idempotency_key);
    expect(await writes()).toEqual([]);
  });
});

describe('vidpub batch (audit): --json FIELDS', () => {
  it('an unknown field is refused before anything is sent (it was found after the batch had posted: exit 2 over posts made)', async () => {
    const dir = workdir({ 'x.jsonl': '{"media":"med_demo_sample","to":"linkedin","caption":"fields","draft":true}\n' });
    const r = await run(['batch', join(dir, 'x.jsonl'), '--json', 'item,status']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({
      error: { type: 'usage', message: 'unknown JSON field "item"', exit_code: 2, hint: expect.stringMatching(/^Available fields: .*\bitems\b.*\bstats\b/) },
    });
    expect(await writes()).toEqual([]);

    const ok = await run(['batch', join(dir, 'x.jsonl'), '--json', 'items']);
    expect(ok.code).toBe(0);
    expect(Object.keys(JSON.parse(ok.stdout) as object)).toEqual(['items']);
    const plan = await run(['batch', join(dir, 'x.jsonl'), '--dry-run', '--json', 'posts_needed,zone']);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout)).toEqual({ posts_needed: 0, zone: 'UTC' });
  });
});

describe('vidpub batch (audit): the start line', () => {
  it('says how many posts the batch needs beside how many are left, not "0 of 30 posts left today" (exit 0)', async () => {
    const dir = workdir({ 'x.jsonl': '{"media":"med_demo_sample","to":"linkedin","caption":"start line","draft":true}\n' });
    const r = await run(['batch', join(dir, 'x.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Sending 1 item from .*x\.jsonl \(0 posts needed, \d+ left today\), 3 at a time\.$/m);
  });
});

describe('vidpub batch (audit): --timeout during an upload', () => {
  it('an upload cut off is said to be unfinished, not "video … goes on at the service" (exit 7); the rerun finishes it, one video, one post', async () => {
    const dir = workdir({ 'x.jsonl': '{"file":"a.mp4","to":"linkedin","caption":"cut during its upload"}\n' });
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'hang', times: 1 });
    const r = await run(['batch', join(dir, 'x.jsonl'), '--timeout', '20s']);
    expect(r.code).toBe(7);
    const [line] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { status: string; media_id: string; post_id: string | null; error: string });
    expect(line).toMatchObject({ status: 'skipped', post_id: null, media_id: expect.stringMatching(/^med_/) });
    expect(line!.error).toBe(`stopped waiting (--timeout); the upload of video ${line!.media_id} was not finished, so the service does not have it; nothing was posted: run the batch again to post it`);
    expect(r.stderr).toContain('\nError: Stopped waiting (--timeout) for 1 of 1 item.\nRun the batch again to post the rest: what was done is replayed, not repeated.\n');

    const again = await run(['batch', join(dir, 'x.jsonl')]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'published', media_id: line!.media_id });
    const reqs = await emu.requests();
    expect(reqs.filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads' && !q.replayed)).toHaveLength(1);
    expect(reqs.filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201)).toHaveLength(1);
  });
});

describe('vidpub batch (audit): JSON syntax', () => {
  it('a JSON syntax error names its line, not a character position (exit 2)', async () => {
    const dir = workdir({ 'x.json': '[\n  {"file": "a.mp4", "to": "linkedin", "caption": "one"}\n  {"file": "b.mp4", "to": "linkedin", "caption": "two"}\n]\n' });
    const r = await run(['batch', join(dir, 'x.json'), '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("\n  line 3: not valid JSON: Expected ',' or ']' after array element (column 3)\n");
    expect(await emu.requests()).toEqual([]);
  });
});

describe('vidpub batch (audit): draft as text', () => {
  it('draft text that is not yes/no is refused, and "y"/"1" mean a draft as in CSV; "maybe" was read as publish now (exit 2, nothing sent)', async () => {
    const dir = workdir({
      'x.jsonl': [
        '{"media":"med_demo_sample","to":"linkedin","caption":"d1","draft":"maybe"}',
        '{"media":"med_demo_sample","to":"linkedin","caption":"d2","draft":"y"}',
        '{"media":"med_demo_sample","to":"linkedin","caption":"d3","draft":"no"}',
      ].join('\n'),
      'y.jsonl': '{"media":"med_demo_sample","to":"linkedin","caption":"d2","draft":"y"}\n{"media":"med_demo_sample","to":"linkedin","caption":"d4","draft":"1"}\n',
    });
    const r = await run(['batch', join(dir, 'x.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 1 problem in .*x\.jsonl; nothing was sent\n {2}item 1 \(line 1\): draft must be true or false, not "maybe"\n/);
    const plan = await run(['batch', join(dir, 'y.jsonl'), '--dry-run', '--json']);
    expect(plan.code).toBe(0);
    expect((JSON.parse(plan.stdout) as { items: { draft: boolean }[] }).items.map((i) => i.draft)).toEqual([true, true]);
    expect(await writes()).toEqual([]);
  });
});

describe('vidpub batch (audit): at, tz and key that are not text', () => {
  it('a list or a map is refused before anything is sent; an "at" list was read as "now" (exit 2)', async () => {
    const dir = workdir({
      'x.jsonl': [
        '{"media":"med_demo_sample","to":"linkedin","caption":"a1","at":["2030-01-02 09:00"]}',
        '{"media":"med_demo_sample","to":"linkedin","caption":"a2","tz":{"zone":"Europe/Paris"}}',
        '{"media":"med_demo_sample","to":"linkedin","caption":"a3","key":["x"]}',
      ].join('\n'),
    });
    const r = await run(['batch', join(dir, 'x.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 3 problems in .*x\.jsonl; nothing was sent\n/);
    expect(r.stderr).toContain('\n  item 1 (line 1): at must be text (a time such as "2026-11-25 09:00", or "+2h")\n');
    expect(r.stderr).toContain('\n  item 2 (line 2): tz must be text (an IANA name such as Europe/Paris)\n');
    expect(r.stderr).toContain('\n  item 3 (line 3): key must be text\n');
    expect(await writes()).toEqual([]);
  });
});

describe('vidpub batch (audit): CSV header', () => {
  it('a column named twice is refused; the second "to" silently replaced the first (exit 2, nothing sent)', async () => {
    const dir = workdir({ 'x.csv': 'file,to,caption,to\na.mp4,linkedin,twice,youtube\n' });
    const r = await run(['batch', join(dir, 'x.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 1 problem in .*x\.csv; nothing was sent\n {2}line 1: column "to" is named twice: give each field one column \(several destinations go in one cell, separated by ";"\)\n/);
    expect(await writes()).toEqual([]);
  });

  it('an "options" column says which columns to use instead (exit 2)', async () => {
    const dir = workdir({ 'x.csv': 'file,to,caption,options\na.mp4,linkedin,x,privacy=1\n' });
    const r = await run(['batch', join(dir, 'x.csv')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 1 problem in .*x\.csv; nothing was sent\n {2}line 1: a CSV manifest has no "options" column: give each option its own column, option:KEY or option:DEST:KEY\n/);
    expect(await writes()).toEqual([]);
  });
});

describe('vidpub batch (audit): a manifest without items', () => {
  it('is told without asking the service (exit 2), even when the service cannot be reached (it was exit 1, "Could not reach")', async () => {
    const dir = workdir({ 'x.csv': 'file,to,caption\n' });
    const r = await run(['batch', join(dir, 'x.csv')], { env: { ...emu.env(), TZ: 'UTC', VIDPUB_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 1 problem in .*x\.csv; nothing was sent\n {2}the manifest has no items\n/);
    expect(await emu.requests()).toEqual([]);
  });
});
