/**
 * What a new user met (a fresh HOME, the README top to bottom), each through the CLI against the
 * emulator: a file name after --json is the file, not a field list.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { ROOT } from '../support/build.js';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));
const FIXTURES = join(ROOT, 'test/fixtures');

describe('--json and the word after it', () => {
  it('a file name after --json is the file: post --json clip.webm posts it and prints the whole record', async () => {
    const r = await run(['post', '--json', 'clip.webm', '--to', 'youtube', '--caption', 'after --json', '--no-input'], { cwd: FIXTURES });
    expect(r.stderr).not.toMatch(/unknown JSON field/);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    expect(post).toMatchObject({ caption: 'after --json', status: 'completed' });
    expect(Object.keys(post)).toEqual(expect.arrayContaining(['id', 'media_id', 'destinations', 'review_url']));
  });

  it('a list of the command\'s fields after --json is still the field list', async () => {
    const r = await run(['status', 'med_demo_sample', '--json', 'id,status']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'med_demo_sample', status: 'ready' });
  });
});

describe('one vocabulary', () => {
  it('status --json of a post with a failed destination says so at the top level (state: failed), beside the service\'s status', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const made = await emu.api.post<Post>('/posts', {
      media_id: 'med_demo_sample',
      caption: 'one fails',
      destinations: [{ destination_id: 'dst_demo_linkedin' }, { destination_id: 'dst_demo_youtube' }],
      publish_at: 'now',
    });
    const r = await run(['status', made.body.id, '--wait', '--json']);
    expect(r.code).toBe(6);
    const doc = JSON.parse(r.stdout) as { id: string; status: string; state: string };
    expect(doc).toMatchObject({ id: made.body.id, status: 'completed', state: 'failed' });
    expect(Object.keys(doc).slice(0, 3)).toEqual(['id', 'status', 'state']);
    const only = await run(['status', made.body.id, '--json', 'id,state']);
    expect(JSON.parse(only.stdout)).toEqual({ id: made.body.id, state: 'failed' });
  });

  it('history --json names a post `id` as every command does (post_id kept), so history --json id,status works', async () => {
    const dir = (await import('../support/cli.js')).tempConfigDir();
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
    const posted = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'named', '--no-input', '--json', 'id,state'], { env });
    expect(posted.code).toBe(0);
    const { id, state } = JSON.parse(posted.stdout) as { id: string; state: string };
    expect(state).toBe('completed');
    const all = await run(['history', '--json'], { env });
    expect(JSON.parse(all.stdout)).toEqual([expect.objectContaining({ id, post_id: id, state: 'completed' })]);
    const r = await run(['history', '--json', 'id,status'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id, status: 'completed' }]);
  });
});
