/**
 * `vidpub emulator --seed-from PROFILE --save-fixture FILE` and `--rehearse`
 * of batch, post and publish, against a second emulator acting as the real
 * service (a workspace unlike the default fixture's): only GETs reach it, the
 * rehearsal ends as the real run then does, and the saved fixture holds no key.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { copyVideo } from '../support/video-copy.js';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/contract/wire-types.js';
import { openConfigStore } from '../../src/config/config-store.js';
import { loadFixtureFile } from '../../src/emulator/index.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { SOURCE_DESTINATIONS, SOURCE_KEY, SOURCE_LAST4, startSource } from '../support/seed-source.js';

let source: TestEmulator;
let config: string;
let dir: string;
/** This test's state and cache directories (a real run's journal must not carry into the next test). */
let local: string;

/** The env of a run with profile "acme" (the source) active, with its own state and cache directories. */
const env = (): Record<string, string> => ({
  VIDPUB_CONFIG_DIR: config,
  VIDPUB_STATE_DIR: join(local, 'state'),
  VIDPUB_CACHE_DIR: join(local, 'cache'),
  VIDPUB_PROFILE: 'acme',
});
const run = (argv: string[], signal?: AbortSignal) => runCli(argv, { env: env(), clock: scaledClock(50), signal });
const writesAt = async (emu: TestEmulator): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.method !== 'GET');

beforeAll(async () => {
  source = await startSource();
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'vidpub-rehearse-'));
  const store = await openConfigStore({ VIDPUB_CONFIG_DIR: config }, process.cwd(), { writable: true });
  await store.setProfile('acme', { api_key: SOURCE_KEY, base_url: source.baseUrl });
  copyFileSync('test/fixtures/clip.mp4', join(dir, 'a.mp4'));
  // Another video (the same one to dst_acme_films would be refused as a duplicate).
  copyVideo('test/fixtures/clip.mp4', join(dir, 'b.mp4'), true);
  writeFileSync(join(dir, 'week.yaml'), [
    'items:',
    '  - file: a.mp4',
    '    caption: Monday',
    '    to: [dst_acme_films]',
    '  - file: b.mp4',
    '    caption: Tuesday',
    '    to: [dst_acme_clips, dst_acme_films]',
    '    options:',
    '      dst_acme_clips: { privacy: SELF_ONLY }',
    '',
  ].join('\n'));
});
afterAll(() => source?.close());
beforeEach(async () => {
  local = mkdtempSync(join(dir, 'local-'));
  await source.reset();
});

/** An item's line without what differs between two services (ids, links, times). */
const shape = (o: Record<string, unknown>) => ({
  item: o.item,
  status: o.status,
  destinations: (o.destinations as { destination_id: string; status: string }[]).map((d) => `${d.destination_id}:${d.status}`),
});

describe('batch --rehearse', () => {
  it('runs the manifest against a copy, writes nothing to the service, and ends as the real run then does', async () => {
    const rehearsal = await run(['batch', join(dir, 'week.yaml'), '--rehearse', '--yes', '--json']);
    expect(rehearsal.stderr).toContain('Rehearsal: reading your workspace from');
    expect(rehearsal.code).toBe(0);
    expect(await writesAt(source)).toEqual([]);
    const doc = JSON.parse(rehearsal.stdout);
    expect(doc.rehearsal).toBe(true);
    expect(rehearsal.stderr).toMatch(/^! Rehearsed: 2 items \(2 published\) in a throwaway emulator, now stopped with its links; nothing was posted to http:\/\/127\.0\.0\.1:\d+\/v1\.$/m);
    // Nothing recorded on this machine: no journal, no run note, no key cache.
    expect(existsSync(join(local, 'state')) ? readdirSync(join(local, 'state')) : []).toEqual([]);
    expect(existsSync(join(local, 'cache')) ? readdirSync(join(local, 'cache')) : []).toEqual([]);

    const real = await run(['batch', join(dir, 'week.yaml'), '--yes', '--json']);
    expect(real.code).toBe(0);
    const realDoc = JSON.parse(real.stdout);
    expect(realDoc.rehearsal).toBeUndefined();
    expect(doc.items.map(shape)).toEqual(realDoc.items.map(shape));
    expect(doc.items.map(shape)).toEqual([
      { item: 1, status: 'published', destinations: ['dst_acme_films:published'] },
      { item: 2, status: 'published', destinations: ['dst_acme_clips:published', 'dst_acme_films:published'] },
    ]);
    // The same writes; the reads and the time depend on how long the service takes, which a rehearsal cannot tell.
    expect(doc.stats.writes).toBe(realDoc.stats.writes);
  }, 60_000);

  it('meets the daily allowance the service has left: refused before anything is sent, as the real run', async () => {
    // The source has 7 a day; 2 used by the fixture: spend 4 more, leaving 1 for a manifest of 2.
    for (let i = 0; i < 4; i++) {
      const r = await source.api.as(SOURCE_KEY).post('/posts', { media_id: 'med_acme_teaser', caption: `f${i}`, destinations: [{ destination_id: 'dst_acme_films' }], publish_at: 'now' });
      expect(r.status).toBe(201);
    }
    await source.admin('DELETE', '/requests');
    const rehearsal = await run(['batch', join(dir, 'week.yaml'), '--rehearse', '--yes']);
    const real = await run(['batch', join(dir, 'week.yaml'), '--yes']);
    expect(rehearsal.code).toBe(4);
    expect(real.code).toBe(4);
    const errorLine = (s: string) => s.split('\n').find((l) => l.startsWith('Error:'));
    expect(errorLine(rehearsal.stderr)).toBeDefined();
    expect(errorLine(rehearsal.stderr)).toBe(errorLine(real.stderr));
    expect(rehearsal.stderr).toContain('Rehearsal: this is what the real run would meet too');
    expect(await writesAt(source)).toEqual([]);
  }, 60_000);

  it('reads the videos items name by id (media:) into the copy', async () => {
    writeFileSync(join(local, 'ids.yaml'), 'items:\n  - media: med_acme_teaser\n    to: dst_acme_films\n    caption: Again\n');
    const r = await run(['batch', join(local, 'ids.yaml'), '--rehearse', '--yes', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).items.map(shape)).toEqual([{ item: 1, status: 'published', destinations: ['dst_acme_films:published'] }]);
    expect(await writesAt(source)).toEqual([]);
    expect((await source.requests()).map((q) => q.path)).toContain('/v1/media/med_acme_teaser');
  }, 60_000);
});

describe('post and publish --rehearse', () => {
  it('post: uploads and posts in the copy; the text says it was a rehearsal', async () => {
    const r = await run(['post', join(dir, 'a.mp4'), '--to', 'dst_acme_clips', '--option', 'dst_acme_clips:privacy=SELF_ONLY', '--caption', 'hi', '--rehearse', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^! Rehearsed: the post was completed \(.+ published\) in a throwaway emulator, now stopped with its links; nothing was posted to /m);
    expect(await writesAt(source)).toEqual([]);
  }, 60_000);

  it('post: a required option left out is refused in the rehearsal as in the real run', async () => {
    const argv = ['post', join(dir, 'a.mp4'), '--to', 'dst_acme_clips', '--caption', 'hi', '--yes', '--no-input'];
    const r = await run([...argv, '--rehearse']);
    expect(r.stderr).toContain('Rehearsal: this is what the real run would meet too');
    expect(await writesAt(source)).toEqual([]);
    const real = await run(argv);
    const errorLine = (s: string) => s.split('\n').find((l) => l.startsWith('Error:'));
    expect(errorLine(r.stderr)).toBe('Error: 1 required option is missing, and there is no terminal to ask on');
    expect(errorLine(r.stderr)).toBe(errorLine(real.stderr));
    expect(r.code).toBe(real.code);
    expect(r.code).toBe(2);
  }, 60_000);

  it('publish ID: the draft is read (GET) into the copy and published there; the real draft stays a draft', async () => {
    const draft = await source.api.as(SOURCE_KEY).post('/posts', { media_id: 'med_acme_teaser', caption: 'later', destinations: [{ destination_id: 'dst_acme_films', options: { license: 'cc0' } }] });
    expect(draft.status).toBe(201);
    await source.admin('DELETE', '/requests');
    const r = await run(['publish', draft.body.id, '--rehearse', '--yes', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ id: draft.body.id, status: 'completed', rehearsal: true });
    expect(await writesAt(source)).toEqual([]);
    expect((await source.requests()).map((q) => q.path)).toContain(`/v1/posts/${draft.body.id}`);
    expect((await source.api.as(SOURCE_KEY).get(`/posts/${draft.body.id}`)).body.status).toBe('draft');
  }, 60_000);
});

describe('publish --rehearse of a post the service does not have', () => {
  it('is not found, as in the real run: same message, same exit code', async () => {
    const r = await run(['publish', 'post_nope', '--rehearse', '--yes']);
    const real = await run(['publish', 'post_nope', '--yes']);
    const errorLine = (s: string) => s.split('\n').find((l) => l.startsWith('Error:'));
    expect(errorLine(r.stderr)).toContain('post_nope');
    expect(errorLine(r.stderr)).toBe(errorLine(real.stderr));
    expect(r.code).toBe(real.code);
    expect(r.code).toBe(5);
  });
});

describe('emulator --seed-from --save-fixture', () => {
  it('writes a fixture that re-loads with --fixture, answers /destinations as the service, and holds no key', async () => {
    const file = join(dir, 'acme.json');
    const stop = new AbortController();
    // The emulator stops (as on Ctrl-C) once it is listening.
    const r = await runCli(['emulator', '--seed-from', 'acme', '--save-fixture', file, '--port', '0'], {
      env: env(),
      signal: stop.signal,
      onStderr: (chunk) => chunk.includes('Press Ctrl-C to stop.') && stop.abort(),
    });
    expect(r.stdout).toMatch(/^Emulator listening: http:\/\/127\.0\.0\.1:\d+\/v1$/m);
    expect(r.stdout).toMatch(/^Web app: http:\/\/127\.0\.0\.1:\d+\/_emulator\/app$/m);
    expect(r.stdout).toContain('Acme Production');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Saved the copy as ${file}`);
    expect(await writesAt(source)).toEqual([]);

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SOURCE_KEY);
    expect(text).not.toContain(SOURCE_LAST4);
    const fromFile = await startTestEmulator({ fixture: await loadFixtureFile(file) });
    try {
      const key = fromFile.keys[0]!.key;
      const [a, b] = await Promise.all([source.api.as(SOURCE_KEY).get('/destinations'), fromFile.api.as(key).get('/destinations')]);
      expect(b.body).toEqual(a.body);
      expect((b.body.data as { id: string }[]).map((d) => d.id)).toEqual(SOURCE_DESTINATIONS);
    } finally {
      await fromFile.close();
    }
    const check = await run(['emulator', '--fixture', file, '--port', '0', '--json'], AbortSignal.abort());
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout).keys).toHaveLength(1);
  }, 60_000);

  it.each([
    [['--save-fixture', 'x.json'], '--save-fixture writes the copy that --seed-from PROFILE reads: give --seed-from too'],
    [['--seed-from', 'acme', '--fixture', 'x.json'], '--seed-from and --fixture both say what the emulator holds: give one of them'],
    [['--seed-from', 'no such'], 'invalid profile name "no such" (from --seed-from)'],
  ])('refuses %j: exit 2', async (flags, message) => {
    const r = await run(['emulator', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('a --save-fixture path that cannot be written: says which, exit 2, and nothing is started', async () => {
    const file = join(dir, 'no-such-dir', 'acme.json');
    const r = await run(['emulator', '--seed-from', 'acme', '--save-fixture', file, '--port', '0']);
    expect(r.stderr).toContain(`Error: cannot write the fixture to ${file} (ENOENT)`);
    expect(r.stderr).toContain('Give --save-fixture a path in a directory you can write.');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(await writesAt(source)).toEqual([]);
  });

  it('a profile with no key: says so, exit 3, and nothing is started', async () => {
    const r = await run(['emulator', '--seed-from', 'nobody', '--port', '0']);
    expect(r.stderr).toContain('No API key: none was given and none is stored in profile "nobody".');
    expect(r.code).toBe(3);
  });
});
