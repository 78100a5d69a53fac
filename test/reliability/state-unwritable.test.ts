/**
 * A `post` whose note of the run cannot be written (a read-only state
 * directory, a full disk, a file in its place) would be posted twice by a
 * plain rerun after a kill: it is refused before anything is uploaded (exit 1,
 * as a read-only config file), naming the directory and the ways on. With
 * --idempotency-key (a rerun with it is safe without a note) or --no-journal
 * it posts. The disks are real: a file where the directory should be, and a
 * read-only and a full tmpfs mounted in a mount namespace of the run's own
 * (unshare), which fail for root too.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/build.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { spawnWatched, type Ended } from '../support/spawned.js';
import { escapeRegExp } from '../support/regexp.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

const CLIP = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'No note', '--no-input', '--no-wait'];

/** What the service was asked to write (uploads, imports, posts). */
const writes = async () => (await emu.requests()).filter((q) => q.method !== 'GET' && q.path.startsWith('/v1/'));

const REFUSED = (dir: string, why: string) =>
  new RegExp(
    `^Error: The state directory cannot be written \\(${escapeRegExp(dir)}/runs: ${why}\\); nothing was uploaded or posted\\. ` +
      'vidpub notes a post there before its first write, so that a plain rerun after a kill continues it instead of posting twice\\.$',
    'm',
  );
const WAYS =
  /^Free or fix that directory \(or set VIDPUB_STATE_DIR to one that can be written\), or run with --idempotency-key KEY \(a rerun with the same key is safe\), or with --no-journal to post without the note\.$/m;

/** Runs the built vidpub in a mount namespace of its own where `setup` (sh) has prepared STATE. */
function inNamespace(setup: string, state: string, args: string[]): Promise<Ended> {
  const script = `set -e; mkdir -p "$STATE"; ${setup}; exec "$NODE" "$BIN" "$@"`;
  const env = { ...emu.env(), STATE: state, NODE: process.execPath, BIN, VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_STATE_DIR: state, NO_COLOR: '1' };
  return spawnWatched(['--mount', '--map-root-user', 'sh', '-c', script, 'sh', ...args], env, { command: 'unshare' }).ended;
}

describe('a state directory where the note of a run cannot be written', () => {
  it('a file where the directory should be: exit 1 before any write, naming the directory and the ways on', async () => {
    const base = mkdtempSync(join(tmpdir(), 'vidpub-nostate-'));
    writeFileSync(join(base, 'state'), 'a file, not a directory');
    const state = join(base, 'state', 'vidpub');
    const r = await runCli(CLIP, { clock: scaledClock(20), env: { ...emu.env(), VIDPUB_STATE_DIR: state, NO_COLOR: '1' } });
    expect(r.stderr).toMatch(REFUSED(state, 'a file is where a directory should be'));
    expect(r.stderr).toMatch(WAYS);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(await writes()).toEqual([]);
  });

  it('--json: the same refusal as one JSON object, type "error", exit 1', async () => {
    const base = mkdtempSync(join(tmpdir(), 'vidpub-nostate-'));
    writeFileSync(join(base, 'state'), '');
    const r = await runCli([...CLIP, '--json'], { clock: scaledClock(20), env: { ...emu.env(), VIDPUB_STATE_DIR: join(base, 'state') } });
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ type: 'error', exit_code: 1, message: expect.stringMatching(/^The state directory cannot be written/) });
    expect(r.code).toBe(1);
    expect(await writes()).toEqual([]);
  });

  it('with --idempotency-key, or --no-journal, the same post goes ahead (one post each)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'vidpub-nostate-'));
    writeFileSync(join(base, 'state'), '');
    const env = { ...emu.env(), VIDPUB_STATE_DIR: join(base, 'state'), NO_COLOR: '1' };
    const keyed = await runCli([...CLIP, '--idempotency-key', 'nightly-2026-11-26'], { clock: scaledClock(20), env });
    expect(keyed.stderr).not.toMatch(/The state directory cannot be written/);
    expect(keyed.code).toBe(0);
    const unjournalled = await runCli([...CLIP, '--no-journal'], { clock: scaledClock(20), env });
    expect(unjournalled.code).toBe(0);
    expect((await writes()).filter((q) => q.path === '/v1/posts' && q.status === 201)).toHaveLength(2);
  });

  it('a read-only file system: exit 1, "a read-only file system", nothing uploaded', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'vidpub-rostate-')), 'state');
    const r = await inNamespace('mount -t tmpfs -o ro,size=64k tmpfs "$STATE"', state, CLIP);
    expect(r.stderr).toMatch(REFUSED(state, 'a read-only file system'));
    expect(r.stderr).toMatch(WAYS);
    expect(r.code).toBe(1);
    expect(await writes()).toEqual([]);
  });

  it('a full disk: exit 1, "no space left on the device", nothing uploaded', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'vidpub-fullstate-')), 'state');
    // 64 KiB, filled to the last block (head stops at ENOSPC), and the runs directory made before it filled.
    const r = await inNamespace('mount -t tmpfs -o size=64k tmpfs "$STATE"; mkdir -m 700 "$STATE/runs"; head -c 1M /dev/zero > "$STATE/fill" 2>/dev/null || true', state, CLIP);
    expect(r.stderr).toMatch(REFUSED(state, 'no space left on the device'));
    expect(r.code).toBe(1);
    expect(await writes()).toEqual([]);
  });
});
