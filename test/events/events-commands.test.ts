/**
 * --events on upload, import, publish, status --wait and retry (in-process against the emulator): the
 * same path as post and batch (main.ts turns it on for every command whose registry entry has the flag).
 * Every event seen is checked against the committed schema (ajv); the last line is {"type":"result"}
 * holding what --json prints. The upload's media.uploading events come from the bytes the PUT sent,
 * paced: two in a row are 5 points apart, or a second.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock, virtualClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents } from '../support/events.js';
import { createEmitter, type VidpubEvent } from '../../src/events/event.js';
import { pacedProgress, PROGRESS_EVERY_MS, PROGRESS_STEP } from '../../src/events/progress-events.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

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
    const failed = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--option', 'youtube:visibility=unlisted', '--caption', 'r', '--yes', '--json', 'id'], { env });
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
