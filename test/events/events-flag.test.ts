/**
 * --events on post and batch (in-process against the emulator): stdout is JSON lines, each event
 * valid against the committed schema, in the order things happened, and the last line is
 * {"type":"result","result":DOC} with what --json prints; with --json it is refused (exit 2).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents } from '../support/events.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-events-'));
  return { dir, env: { ...emu.env(), VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_CACHE: '1' } };
}

/** The lines of an --events run: the events (each checked against the schema) and the result line's document. */
function split(stdout: string): { events: ReturnType<typeof expectEvents>; result: unknown } {
  const lines = stdout.trimEnd().split('\n');
  const last = JSON.parse(lines.pop()!) as { type: string; result: unknown };
  expect(last.type).toBe('result');
  return { events: expectEvents(lines.join('\n')), result: last.result };
}

describe('--events', () => {
  it('post: created, then each destination, then the end; the last line is the --json document', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const { env } = setup();
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--option', 'youtube:visibility=unlisted', '--caption', 'hi', '--yes', '--events'], { env });
    expect(r.code, r.stderr).toBe(6);
    const { events, result } = split(r.stdout);
    const id = (result as { id: string }).id;
    expect(events[0]).toMatchObject({ type: 'post.created', post_id: id, media_id: 'med_demo_sample', profile: 'default' });
    expect(events.map((e) => `${e.type} ${e.destination_id ?? ''}`).slice(1).sort()).toEqual(
      ['post.destination.failed dst_demo_youtube', 'post.destination.published dst_demo_linkedin', 'post.failed ', 'post.publishing '].sort(),
    );
    expect(events.at(-1)!.type).toBe('post.failed');
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // What --json prints of the same post now.
    const s = await runCli(['status', id, '--json'], { env });
    expect(result).toEqual(JSON.parse(s.stdout));
  });

  it('batch: each item\'s events, and the last line holds the document --json prints', async () => {
    const { dir, env } = setup();
    const manifest = (c: string) => {
      const path = join(dir, `${c}.json`);
      writeFileSync(path, JSON.stringify({ defaults: { to: 'linkedin' }, items: [1, 2].map((n) => ({ media: 'med_demo_sample', caption: `${c}${n}` })) }));
      return path;
    };
    const r = await runCli(['batch', manifest('a'), '--yes', '--events'], { env });
    expect(r.code, r.stderr).toBe(0);
    const { events, result } = split(r.stdout);
    const posts = new Set(events.filter((e) => e.type === 'post.created').map((e) => e.post_id));
    expect(posts.size).toBe(2);
    expect(events.filter((e) => e.type === 'post.completed').map((e) => e.post_id).sort()).toEqual([...posts].sort());
    const j = await runCli(['batch', manifest('b'), '--yes', '--json'], { env });
    const doc = JSON.parse(j.stdout) as Record<string, unknown>;
    const got = result as Record<string, unknown> & { items: { status: string }[] };
    expect(Object.keys(got).sort()).toEqual(Object.keys(doc).sort());
    expect(got.items.map((i) => i.status)).toEqual(['published', 'published']);
  });

  it('with --json: refused before anything is sent (exit 2)', async () => {
    const { env } = setup();
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--events', '--json'], { env });
    expect(r.stderr).toMatch(/--events cannot be used with --json: --events prints JSON lines, the last of them the --json document/);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect((await emu.requests()).filter((q) => q.method === 'POST')).toEqual([]);
  });
});
