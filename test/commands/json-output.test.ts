/**
 * --json FIELDS and --jq on the commands that write: a mistake in either is a
 * usage error found before anything is sent (never exit 2 after a post was
 * made, which a script reads as "nothing was done" and reruns), and a field
 * the record type has but this record lacks prints null.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 30, publishMs: 30 });
const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');
const run = cliRunner(() => ({ clock: scaledClock(10), env: emu.env() }));

const writes = async () => (await emu.requests()).filter((r) => r.method !== 'GET');

function jsonError(stderr: string): { type: string; message: string; exit_code: number; hint: string | null } {
  const lines = stderr.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!).error;
}

describe('--jq with a filter that does not compile', () => {
  it('post: exit 2 before any request, with jq\'s message about the filter itself', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--no-wait', '--jq', '.[']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const e = jsonError(r.stderr);
    expect(e).toMatchObject({ type: 'usage', exit_code: 2 });
    expect(e.message).toMatch(/^--jq \.\[: jq: error: syntax error, unexpected end of file/);
    expect(e.message).toContain('line 1');
    expect(await emu.requests()).toEqual([]);
  });

  it('upload: an undefined function is refused before the file is sent', async () => {
    const r = await run(['upload', CLIP, '--jq', '.id | nosuchfn']);
    expect(r.code).toBe(2);
    expect(jsonError(r.stderr).message).toMatch(/^--jq \.id \| nosuchfn: jq: error: nosuchfn\/0 is not defined/);
    expect(await emu.requests()).toEqual([]);
  });

  it('a filter that compiles is not run before the command (one that would never end on null input included)', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--no-wait', '--jq', 'if .id then .id else repeat(.) end']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^post_\w+$/);
  });
});

describe('--jq with a filter that fails on the document', () => {
  it('post: exit 1 saying the post was made and not printed, never exit 2 ("nothing was done")', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--no-wait', '--jq', '.destinations[0].url | ascii_downcase']);
    expect(r.stdout).toBe('');
    const e = jsonError(r.stderr);
    expect(e).toMatchObject({ type: 'error', exit_code: 1 });
    expect(e.message).toMatch(/^--jq \.destinations\[0\]\.url \| ascii_downcase: jq: error.*\. The command itself completed; its result was not printed\.$/);
    expect(e.hint).toBe('Do not run the command again for its output: fix the filter (it met a value it did not expect), or use --json.');
    expect(r.code).toBe(1);
    expect((await writes()).filter((w) => w.path === '/v1/posts')).toHaveLength(1);
  });
});

describe('--json FIELDS on a command that writes', () => {
  it('post: an unknown field is exit 2 before any write, with the fields a post has', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--no-wait', '--json', 'id,stauts']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const e = jsonError(r.stderr);
    expect(e).toMatchObject({ type: 'usage', message: 'unknown JSON field "stauts"', exit_code: 2 });
    expect(e.hint).toBe('Available fields: id, status, caption, media_id, publish_at, review_url, issues, destinations, created_at, state, posts, set, rehearsal.');
    expect(await writes()).toEqual([]);
  });

  it('upload: an unknown field is exit 2 before the file is sent', async () => {
    const r = await run(['upload', CLIP, '--json=id,nope']);
    expect(r.code).toBe(2);
    expect(jsonError(r.stderr).message).toBe('unknown JSON field "nope"');
    expect(await emu.requests()).toEqual([]);
  });

  it('upload: a field a video record may lack (error, progress) is null when this one has none, exit 0', async () => {
    const r = await run(['upload', CLIP, '--json', 'id,status,error,progress']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toEqual({ id: expect.stringMatching(/^med_/), status: 'ready', error: null, progress: null });
  });

  it('status of a video: the same fields, null when absent', async () => {
    const r = await run(['status', 'med_demo_sample', '--json', 'id,error']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'med_demo_sample', error: null });
  });

  it('publish: an unknown field is exit 2 before the publish request', async () => {
    const r = await run(['publish', 'post_nope', '--json=id,nope']);
    expect(r.code).toBe(2);
    expect(jsonError(r.stderr).message).toBe('unknown JSON field "nope"');
    expect(await emu.requests()).toEqual([]);
  });
});

describe('--json FIELDS where a field has the name of a command', () => {
  it('after the command and its id, "--json status" is the field status, not a second argument', async () => {
    const draft = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--draft', '--quiet']);
    expect(draft.code).toBe(0);
    const id = draft.stdout.trim();
    const r = await run(['status', id, '--json', 'status']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ status: 'draft' });
  });

  it('before the command, the word after --json is still the command', async () => {
    const r = await run(['--json', 'status', 'med_demo_sample']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'med_demo_sample', status: 'ready' });
  });
});

describe('--json= with no field names', () => {
  it('prints the whole record, as --json does (not an empty object)', async () => {
    const r = await run(['status', 'med_demo_sample', '--json=']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'med_demo_sample', status: 'ready', filename: 'sample.mp4' });
  });
});
