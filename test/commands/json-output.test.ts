/**
 * --jq on the commands that write: a filter that does not compile is a usage
 * error found before anything is sent (never exit 2 after a post was made,
 * which a script reads as "nothing was done" and reruns).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 30, publishMs: 30 });
const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');
const run = cliRunner(() => ({ clock: scaledClock(10), env: emu.env() }));

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
