/**
 * `vidpub emulator --state DIR` refusing what it cannot use (exit 2, the path
 * and what to do, nothing overwritten), `vidpub emulator export FILE` and
 * `--import FILE`, and `vidpub emulator reset` with its confirmation.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { startTestEmulator, useEmulator } from '../support/emulator.js';
import { scriptedPrompter } from '../support/prompter.js';
import { missing } from '../support/tools.js';

const root = mkdtempSync(join(tmpdir(), 'vidpub-state-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${++n}`);

/** A state directory holding a snapshot (and a log), as an emulator left it. */
async function stateDir(): Promise<string> {
  const dir = fresh();
  const emu = await startTestEmulator({ state: dir });
  await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 10, content_type: 'video/mp4' });
  await emu.close();
  return dir;
}

const start = (dir: string) => runCli(['emulator', '--state', dir, '--port', '0']);

/** The files of `dir`, to show nothing was written. */
const files = (dir: string) => ['state.json', 'log.jsonl'].map((f) => readFileSync(join(dir, f), 'utf8'));

describe('vidpub emulator --state: what it refuses (exit 2, nothing written)', () => {
  it('a file in place of DIR', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'mine\n');
    const r = await start(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error: --state ${file} is a file, not a directory; it was left as it is.`);
    expect(r.stderr).toMatch(/Give --state a directory \(made if missing\)/);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('a snapshot of format version 99, a truncated one, a log damaged in the middle', async () => {
    const dir = await stateDir();
    const snapshot = join(dir, 'state.json');
    const good = readFileSync(snapshot, 'utf8');
    writeFileSync(snapshot, good.replace('"version":1', '"version":99'));
    const before = files(dir);
    const newer = await start(dir);
    expect(newer.code).toBe(2);
    expect(newer.stderr).toContain(`Error: the emulator state ${snapshot} is of format version 99, written by a newer vidpub; this one reads version 1; it was left as it is.`);
    expect(newer.stderr).toMatch(/Run it with that newer vidpub, or give this one another --state DIR/);
    expect(files(dir)).toEqual(before);

    writeFileSync(snapshot, good.slice(0, good.length >> 1));
    const cut = await start(dir);
    expect(cut.code).toBe(2);
    expect(cut.stderr).toContain(`Error: the emulator state ${snapshot} is damaged (it is not whole JSON: cut short or changed); it was left as it is.`);
    expect(cut.stderr).toContain(`Move ${dir} aside (or give another --state DIR) to start afresh`);
    expect(readFileSync(snapshot, 'utf8')).toBe(good.slice(0, good.length >> 1));

    writeFileSync(snapshot, good);
    const log = join(dir, 'log.jsonl');
    writeFileSync(log, `not json\n{"s":1000000,"o":[]}\n`);
    const broken = await start(dir);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(`Error: the emulator state ${log} is damaged (line 1 is not JSON); it was left as it is.`);
    expect(readFileSync(log, 'utf8')).toBe(`not json\n{"s":1000000,"o":[]}\n`);
  });

  it('a directory another emulator holds: named by its process', async () => {
    const dir = fresh();
    mkdirSync(dir);
    // The test runner's parent: a live process of this host other than this one.
    writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: process.ppid, host: hostname() }));
    const r = await start(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error: the emulator state ${dir} is in use by another emulator (held by process ${process.ppid}); nothing was written.`);
    expect(r.stderr).toContain(`Stop that emulator first, or give this one another --state DIR. If no emulator runs there, remove ${join(dir, 'lock')}.`);
  });

  it.skipIf(process.getuid?.() === 0 && missing('setpriv'))('a directory it cannot write to', async () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o500 });
    const message = `--state ${dir} cannot be used: it is not writable (permission denied); nothing was written.`;
    if (process.getuid?.() !== 0) {
      const r = await start(dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      return;
    }
    // Root writes anywhere (as CI runs): the built vidpub runs as root without the capability that bypasses permissions.
    ensureBuilt();
    const r = spawnSync('setpriv', ['--bounding-set=-dac_override', process.execPath, BIN, 'emulator', '--state', dir, '--port', '0'], { encoding: 'utf8' });
    expect(r.stderr).toContain(message);
    expect(r.status).toBe(2);
  });
});

describe('vidpub emulator export / --import / reset', () => {
  const emu = useEmulator({ processingMs: 10, publishMs: 10 });
  const run = (argv: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(argv, { ...opts, env: { ...emu.env(), ...opts.env } });

  it('export writes the world to one file (bytes left out, said so); an emulator started from it has the same world', async () => {
    const media = await emu.api.uploadReady('clip.mp4', 500);
    const post = await emu.api.post('/posts', { media_id: media, caption: 'exported', destinations: [{ destination_id: 'dst_demo_linkedin' }], publish_at: 'now' }, { idem: 'k-export' });
    await emu.advance(60);
    const file = join(root, 'world.json');
    const r = await run(['emulator', 'export', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Exported the emulator's world to .*world\.json: 4 workspaces, \d+ videos, \d+ posts\.$/m);
    expect(r.stderr).toContain("The videos' bytes are left out");
    const world = JSON.parse(readFileSync(file, 'utf8'));
    expect(world).toMatchObject({ format: 'vidpub-emulator-state', version: 1, video_bytes: expect.stringMatching(/^left out/) });
    expect(world.secret).toBeUndefined();

    const copy = await startTestEmulator({ world, worldSource: file });
    try {
      expect((await copy.api.get(`/posts/${post.body.id}`)).body.caption).toBe('exported');
      const replay = await copy.api.post('/posts', { media_id: media, caption: 'exported', destinations: [{ destination_id: 'dst_demo_linkedin' }], publish_at: 'now' }, { idem: 'k-export' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await copy.admin('GET', '/clock')).offset_sec).toBe(60);
      expect((await copy.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);
    } finally {
      await copy.close();
    }
  });

  it('--import of a newer format or of something else: exit 2 naming the file', async () => {
    const newer = join(root, 'newer.json');
    writeFileSync(newer, JSON.stringify({ format: 'vidpub-emulator-state', version: 99 }));
    const r = await runCli(['emulator', '--import', newer, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error: --import ${newer} is of format version 99, written by a newer vidpub; this one reads version 1.`);
    const fixture = join(root, 'fixture.json');
    writeFileSync(fixture, JSON.stringify({ accounts: [], workspaces: [] }));
    const other = await runCli(['emulator', '--import', fixture, '--port', '0']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`Error: --import ${fixture} cannot be imported: it is not an emulator state (no "format": "vidpub-emulator-state").`);
    expect(other.stderr).toContain('a fixture goes to --fixture');
  });

  it('reset asks at a terminal (no: exit 130, nothing reset), resets with --yes or without a terminal', async () => {
    await emu.advance(3600);
    const { prompter, asked } = scriptedPrompter([false]);
    const no = await run(['emulator', 'reset'], { tty: true, prompter });
    expect(no.code).toBe(130);
    expect(asked[0]).toMatchObject({ kind: 'confirm', message: 'Reset it?', default: false });
    expect(no.stderr).toContain('Cancelled: nothing was reset.');
    expect((await emu.admin('GET', '/clock')).offset_sec).toBe(3600);

    const yes = await run(['emulator', 'reset', '--yes'], { tty: true });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain('Emulator reset to its fixture');
    expect((await emu.admin('GET', '/clock')).offset_sec).toBe(0);
    const piped = await run(['emulator', 'reset', '--json']);
    expect(JSON.parse(piped.stdout)).toMatchObject({ reset: true });
    const stray = await run(['emulator', 'clock', '--yes']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--yes goes with "vidpub emulator reset", not "clock"');
  });
});
