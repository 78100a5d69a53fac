/**
 * --events on upload, import, publish, status --wait and retry (in-process against the emulator): the
 * same path as post and batch (main.ts turns it on for every command whose registry entry has the flag).
 * Every event seen is checked against the committed schema (ajv); the last line is {"type":"result"}
 * holding what --json prints. The upload's media.uploading events come from the bytes the PUT sent,
 * paced: two in a row are 5 points apart, or a second. Then a reader that stops early (the real bin
 * and a real pipe: `post --events | head -3`), and the MCP server's wait_for_post telling the same
 * changes as notifications/progress. One file, one worker: the CLI is loaded once for all of them.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, writeSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { makeContext, runCli, tempConfigDir } from '../support/cli.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';
import { waitFor } from '../support/poll.js';
import { main } from '../../src/cli/main.js';
import { scaledClock, virtualClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents } from '../support/events.js';
import { createEmitter, type VidpubEvent } from '../../src/events/event.js';
import { pacedProgress, PROGRESS_EVERY_MS, PROGRESS_STEP } from '../../src/events/progress-events.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
/** A test that needs slower steps sets them; the next test starts from these again. */
const steps = (processing_ms: number, publish_ms: number) => emu.admin('POST', '/settings', { processing_ms, publish_ms });
afterEach(() => steps(20, 20));

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-events-cmd-'));
  return { dir, env: { ...emu.env(), VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_CACHE: '1' } };
}

/** The lines of an --events run: the events (each checked against the schema) and the result line's document. */
function split(stdout: string): { events: VidpubEvent[]; result: unknown } {
  const lines = stdout.trimEnd().split('\n');
  const last = JSON.parse(lines.pop()!) as { type: string; result: unknown };
  expect(last.type).toBe('result');
  return { events: expectEvents(lines.join('\n')), result: last.result };
}

const types = (events: VidpubEvent[]) => events.map((e) => `${e.type}${e.destination_id ? ` ${e.destination_id}` : ''}`);

/** clip.mp4 with a 2 MB free box after it: an upload long enough to report its progress many times. */
function bigClip(dir: string): string {
  const path = join(dir, 'big.mp4');
  const fd = openSync(path, 'w');
  writeSync(fd, readFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4')));
  const free = Buffer.alloc(2_000_000);
  free.writeUInt32BE(free.length, 0);
  free.write('free', 4, 'latin1');
  writeSync(fd, free);
  closeSync(fd);
  return path;
}

describe('--events on the other commands that work over time', () => {
  it('upload: media.uploading paced from the bytes sent, then processing and ready; the result is the --json record', async () => {
    const { dir, env } = setup();
    const r = await runCli(['upload', bigClip(dir), '--events'], { env, clock: scaledClock(10) });
    expect(r.code, r.stderr).toBe(0);
    const { events, result } = split(r.stdout);
    const id = (result as { id: string }).id;
    const uploading = events.filter((e) => e.type === 'media.uploading');
    expect(uploading.length).toBeGreaterThan(3);
    expect(uploading[0]!.progress).toBe(0);
    for (let i = 1; i < uploading.length; i++) {
      const [a, b] = [uploading[i - 1]!, uploading[i]!];
      expect(b.progress!).toBeGreaterThan(a.progress!);
      expect(b.progress! - a.progress! >= PROGRESS_STEP || Date.parse(b.at) - Date.parse(a.at) >= PROGRESS_EVERY_MS, `${a.progress}% -> ${b.progress}%`).toBe(true);
    }
    expect(events.every((e) => e.media_id === id)).toBe(true);
    expect(types(events).filter((t) => t !== 'media.uploading' && t !== 'media.processing')).toEqual(['media.ready']);
    expect(events.at(-1)!.type).toBe('media.ready');
    const s = await runCli(['status', id, '--json'], { env });
    expect(result).toEqual(JSON.parse(s.stdout));
    // The same file again: the ready video is used instead of sent, and said ready.
    const again = await runCli(['upload', join(dir, 'big.mp4'), '--events'], { env });
    const reused = split(again.stdout);
    expect(reused.events.map((e) => [e.type, e.media_id])).toEqual([['media.ready', id]]);
    expect(reused.result).toMatchObject({ id, reused: true });
  });

  it('import: the download, processing and ready; with --json it is refused before anything is sent (exit 2)', async () => {
    const { env } = setup();
    const r = await runCli(['import', 'https://cdn.example.com/videos/launch.mp4', '--events'], { env, clock: scaledClock(10) });
    expect(r.code, r.stderr).toBe(0);
    const { events, result } = split(r.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'media.ready', media_id: (result as { id: string }).id, status: 'ready' });
    expect(events.length).toBeGreaterThan(1);
    const refused = await runCli(['import', 'https://cdn.example.com/videos/launch.mp4', '--events', '--json'], { env });
    expect(refused.stderr).toMatch(/--events cannot be used with --json/);
    expect([refused.code, refused.stdout]).toEqual([2, '']);
  });

  it('publish a draft, then status --wait of a post sent without waiting: each destination and the end', async () => {
    const { env } = setup();
    const draft = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'd', '--draft', '--json', 'id'], { env });
    const draftId = (JSON.parse(draft.stdout) as { id: string }).id;
    const p = await runCli(['publish', draftId, '--yes', '--events'], { env, clock: scaledClock(10) });
    expect(p.code, p.stderr).toBe(0);
    const published = split(p.stdout);
    expect(types(published.events)).toEqual(expect.arrayContaining(['post.destination.published dst_demo_linkedin', 'post.completed']));
    expect(published.events.at(-1)).toMatchObject({ type: 'post.completed', post_id: draftId });
    expect(published.result).toEqual(JSON.parse((await runCli(['status', draftId, '--json'], { env })).stdout));

    const sent = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--option', 'youtube:visibility=unlisted', '--caption', 's', '--yes', '--no-wait', '--json', 'id'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    const id = (JSON.parse(sent.stdout) as { id: string }).id;
    const s = await runCli(['status', id, '--wait', '--events'], { env, clock: scaledClock(10) });
    expect(s.code, s.stderr).toBe(0);
    const waited = split(s.stdout);
    expect(types(waited.events).filter((t) => t !== 'post.publishing').sort()).toEqual(['post.completed', 'post.destination.published dst_demo_linkedin', 'post.destination.published dst_demo_youtube']);
    expect(waited.events.at(-1)!.type).toBe('post.completed');
    expect(waited.result).toEqual(JSON.parse((await runCli(['status', id, '--json'], { env })).stdout));
  });

  it('retry: the new post created, its destination published, the end; exit codes unchanged', async () => {
    const { env } = setup();
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const failed = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--option', 'youtube:visibility=unlisted', '--caption', 'r', '--yes', '--json', 'id'], { env, clock: scaledClock(10) });
    expect(failed.code).toBe(6);
    const original = (JSON.parse(failed.stdout) as { id: string }).id;
    await emu.admin('DELETE', '/faults');
    const r = await runCli(['retry', original, '--yes', '--events'], { env, clock: scaledClock(10) });
    expect(r.code, r.stderr).toBe(0);
    const { events, result } = split(r.stdout);
    const id = (result as { id: string }).id;
    expect(id).not.toBe(original);
    expect(events[0]).toMatchObject({ type: 'post.created', post_id: id, media_id: 'med_demo_sample' });
    expect(types(events)).toEqual(expect.arrayContaining(['post.destination.published dst_demo_youtube', 'post.completed']));
    expect(events.at(-1)!.type).toBe('post.completed');
  });
});

describe('pacedProgress', () => {
  it('tells a fast phase every 5 points and a slow one every second it moved; other events at once', () => {
    const clock = virtualClock();
    const seen: VidpubEvent[] = [];
    const tell = pacedProgress(createEmitter({ profile: 'p', clock, sink: (e) => seen.push(e) }), clock);
    for (let pct = 0; pct <= 100; pct++) {
      tell({ type: 'media.uploading', media_id: 'med_1', progress: pct });
      clock.tick(10);
    }
    expect(seen.map((e) => e.progress)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100]);
    seen.length = 0;
    for (const pct of [1, 1, 2, 3]) {
      tell({ type: 'media.processing', media_id: 'med_1', progress: pct });
      clock.tick(400);
    }
    // 1 first; 1 again: no move; 2 only 800 ms after 1; 3 1.2 s after 1.
    expect(seen.map((e) => e.progress)).toEqual([1, 3]);
    tell({ type: 'media.ready', media_id: 'med_1', status: 'ready' });
    expect(seen.at(-1)!.type).toBe('media.ready');
  });
});

/** A reader that stops early: head leaves after the upload's first events; the post goes on (its events written into the
 * closed pipe are dropped: EPIPE is no failure), ends as it would have, and vidpub exits with the post's own code. */
describe('--events | head -3 (real bin, real pipe)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('the post is made and followed to its end; exit 0; no stack trace', async () => {
    // Processing and publishing take a while after the upload: most events are written once head has gone.
    await steps(150, 300);
    const home = mkdtempSync(join(tmpdir(), 'vidpub-events-pipe-'));
    const env = { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state'), VIDPUB_NO_CACHE: '1', NO_COLOR: '1' };
    const clip = join(ROOT, 'test', 'fixtures', 'clip.mp4');
    const script = `{ "$0" "${BIN}" post "${clip}" --to linkedin --caption pipe --yes --events; echo "vidpub exit $?" >&2; } | { head -3; echo "head gone" >&2; }`;
    const r = await runAsync('bash', ['-c', script, process.execPath], { env });
    expect(r.status).toBe(0);
    const events = expectEvents(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['media.uploading', 'media.uploading', 'media.processing']);
    // head left before vidpub ended, and vidpub ended with the post's code.
    expect(r.stderr.indexOf('head gone')).toBeGreaterThanOrEqual(0);
    expect(r.stderr.indexOf('head gone')).toBeLessThan(r.stderr.indexOf('vidpub exit 0'));
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at |Error:/);
    // What the post became: published at the service, and the journal (read as it is on disk) knows it.
    const journal = readFileSync(join(home, 'state', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; post_id?: string; outcome?: string });
    const id = journal.find((r) => r.kind === 'post')!.post_id!;
    expect(journal.filter((r) => r.post_id === id).at(-1)).toMatchObject({ kind: 'status', outcome: 'published' });
    const at = await emu.api.as(emu.key()).get(`/posts/${id}`);
    expect(at.body).toMatchObject({ status: 'completed', destinations: [{ status: 'published' }] });
  }, 30_000);
});

/** wait_for_post of the local MCP server (in-process over its stdio transport, fed message by message): the post publishing,
 * each destination as it ends, the post's end, as notifications/progress with the request's progressToken, the values
 * strictly increasing (the MCP spec's MUST) out of total = destinations + 1, all before the answer. */
describe('vidpub mcp: wait_for_post progress', () => {
  it('tells the post publishing, each destination as it ends and the end as progress notifications, then answers the finished post', async () => {
    // Publishing takes a minute of the emulator's clock a destination: the test moves it on while the tool waits.
    await steps(20, 60_000);
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_NO_CACHE: '1' };
    const sent = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--option', 'youtube:visibility=unlisted', '--caption', 'm', '--yes', '--no-wait', '--json', 'id,status'], { env });
    expect(JSON.parse(sent.stdout)).toMatchObject({ status: 'publishing' });
    const id = (JSON.parse(sent.stdout) as { id: string }).id;

    const base = makeContext({ env, clock: scaledClock(3) });
    const stdin = new PassThrough();
    const run = main(['mcp'], { ...base.ctx, io: { ...base.ctx.io, stdin } });
    const out = (): Json[] => base.stdout().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    stdin.write(lines(initialize, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait_for_post', arguments: { post_id: id }, _meta: { progressToken: 'w1' } } }));
    await waitFor(out, (m) => m.some((x) => x.method === 'notifications/progress'), 15_000);
    // Each destination takes a minute, one after the other: LinkedIn first, then YouTube.
    const told = (re: RegExp) => (m: Json[]) => m.some((x) => x.method === 'notifications/progress' && re.test(x.params.message));
    await emu.advance(61);
    await waitFor(out, told(/\(linkedin\): published/), 15_000);
    await emu.advance(60);
    const all = await waitFor(out, (m) => m.some((x) => x.id === 2), 15_000);
    stdin.end();
    expect(await run).toBe(0);

    const answer = all.findIndex((m) => m.id === 2);
    expect(all[answer].result.structuredContent).toMatchObject({ id, status: 'completed' });
    const progress = all.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(all.findLastIndex((m) => m.method === 'notifications/progress')).toBeLessThan(answer);
    expect(progress.every((p) => p.progressToken === 'w1' && p.total === 3)).toBe(true);
    const values = progress.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
    expect([values[0], values.at(-1)]).toEqual([0, 3]);
    const messages = progress.map((p) => p.message as string);
    expect(messages[0]).toBe(`Post ${id}: publishing`);
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/\(linkedin\): published http/), expect.stringMatching(/\(youtube\): failed/)]));
    expect(messages.at(-1)).toBe(`Post ${id}: done, a destination failed or was cancelled`);
  }, 30_000);
});
