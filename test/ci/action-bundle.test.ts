/**
 * The action from a copy of this checkout as a runner downloads a ref: no node_modules, and an
 * `npm` on PATH that records that it was called and fails. With the prebuilt dist/ of a release
 * (built from the copy's sources), the step posts without npm; with a dist/ another source made,
 * or none, the set-up step says why and builds (here: calls the recording npm, which fails).
 */
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { actionRunner } from '../support/action.js';
// @ts-expect-error -- plain JavaScript run by the runner, without types
import { SOURCES, sourceDigest, staleBundle } from '../../scripts/action/bundle.mjs';

const emu = useEmulator();
const runAction = actionRunner();
const dir = mkdtempSync(join(tmpdir(), 'vidpub-action-ref-'));
const bin = join(dir, 'bin');
const npmCalls = join(dir, 'npm-calls');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  ensureBuilt();
  mkdirSync(bin);
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "npm $*" >> '${npmCalls}'\necho 'npm: not here' >&2\nexit 1\n`);
  chmodSync(join(bin, 'npm'), 0o755);
});

/** A copy of the checkout as a ref of the action: sources, bin/, scripts/, action.yml, and dist/ when asked. */
function checkout(name: string, withDist: boolean): string {
  const to = join(dir, name);
  for (const p of [...(SOURCES as string[]), 'bin', 'scripts', 'action.yml', ...(withDist ? ['dist'] : [])]) cpSync(join(ROOT, p), join(to, p), { recursive: true });
  expect(existsSync(join(to, 'node_modules'))).toBe(false);
  return to;
}

const PATH = `${bin}:${process.env.PATH}`;
const inputs = () => ({ file: join(ROOT, 'test', 'fixtures', 'clip.mp4'), to: 'youtube', caption: 'From a release', 'api-key': emu.key(), 'base-url': emu.baseUrl });
const calls = () => (existsSync(npmCalls) ? readFileSync(npmCalls, 'utf8') : '');

describe('the prebuilt dist/ of a release', () => {
  it('records the digest of the sources it was built from', () => {
    expect(readFileSync(join(ROOT, 'dist', 'SOURCES'), 'utf8').trim()).toBe(sourceDigest(ROOT));
    expect(staleBundle(ROOT)).toBeUndefined();
  });

  it('is run at once: the step posts with no node_modules and no npm', async () => {
    rmSync(npmCalls, { force: true });
    const ref = checkout('release', true);
    const r = await runAction(inputs(), { actionPath: ref, path: PATH });
    expect(r.code, r.log).toBe(0);
    expect(calls()).toBe('');
    expect(r.outputs.status).toBe('completed');
  });

  it('is not run when the sources changed after it was built: the step says why and builds', async () => {
    rmSync(npmCalls, { force: true });
    const ref = checkout('changed', true);
    appendFileSync(join(ref, 'src', 'errors.ts'), '\n// a change after the release was built\n');
    expect(staleBundle(ref)).toBe('the prebuilt dist/ was built from other sources than this ref');
    const r = await runAction(inputs(), { actionPath: ref, path: PATH });
    expect(r.code).toBe(1);
    expect(r.log).toContain('the prebuilt dist/ was built from other sources than this ref: building vidpub (npm ci, about a minute)');
    expect(calls()).toBe('npm ci --no-audit --no-fund\n');
    expect(await emu.requests()).toEqual([]);
  });

  it('a ref without dist/ is built first', async () => {
    rmSync(npmCalls, { force: true });
    const ref = checkout('branch', false);
    const r = await runAction(inputs(), { actionPath: ref, path: PATH });
    expect(r.code).toBe(1);
    expect(r.log).toContain('this ref of the action carries no prebuilt dist/: building vidpub (npm ci, about a minute)');
    expect(calls()).toBe('npm ci --no-audit --no-fund\n');
  });

  it('the vidpub input skips the set-up step whatever the checkout holds', async () => {
    rmSync(npmCalls, { force: true });
    const ref = checkout('with-sea', false);
    // The set-up step in bash, as the runner runs it; the post step's script in this process (a node start saved). Not
    // waiting for the post to publish (the test before waits): a first look a second after it starts, of no matter here.
    const r = await runAction({ ...inputs(), wait: 'false', vidpub: join(ROOT, 'bin', 'vidpub.js') }, { actionPath: ref, path: PATH, inProcess: true });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs['post-id']).toMatch(/^post_\w+$/);
    expect(calls()).toBe('');
  });
});
