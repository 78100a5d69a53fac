/**
 * The `type` of the JSON error object (--json) is one of the values the
 * manual's "Exit codes" section (docs/reliability.md) lists: a job branching on it must not meet
 * one it was never told about.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 30, publishMs: 30 });
const run = cliRunner(() => ({ clock: scaledClock(100), env: emu.env() }));

/** The types the manual lists (docs/reliability.md): "`type` is one of `usage`, `auth`, …;" */
function documentedTypes(): string[] {
  const readme = readFileSync(join(__dirname, '..', '..', 'docs', 'reliability.md'), 'utf8');
  const sentence = /`type` is one of ([^;]+);/.exec(readme.replace(/\s+/g, ' '))?.[1];
  expect(sentence).toBeDefined();
  return [...sentence!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
}

function errorOf(stderr: string): { type: string; exit_code: number; message: string } {
  const lines = stderr.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!).error;
}

describe('--json error types are the documented ones', () => {
  it('an unknown outcome (exit 9): its type is in the documented list', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--json']);
    expect(r.code).toBe(9);
    const e = errorOf(r.stderr);
    expect(e).toMatchObject({ type: 'outcome_unknown', exit_code: 9 });
    expect(documentedTypes()).toContain(e.type);
  });

  it('a damaged config file (exit 1): its type is in the documented list', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles":', { mode: 0o600 });
    const r = await run(['me', '--json'], { env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_API_KEY: undefined } });
    expect(r.code).toBe(1);
    const e = errorOf(r.stderr);
    expect(e.message).toMatch(/^The config file .*config\.json/);
    expect(documentedTypes()).toContain(e.type);
  });
});

describe('--json error code of a video that failed processing', () => {
  it('upload: exit 6, the record on stdout, and the error object carries the service\'s code (processing_failed)', async () => {
    await emu.fault({ media_fail: 'clip' });
    const r = await run(['upload', join(__dirname, '..', 'fixtures', 'clip.mp4'), '--json']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', error: { code: 'processing_failed' } });
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error).toMatchObject({ type: 'failed', code: 'processing_failed', exit_code: 6 });
  });
});
