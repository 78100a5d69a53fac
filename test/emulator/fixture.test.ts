import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFixture, loadFixtureFile, startEmulator, validateFixture, type Fixture } from '../../src/emulator/index.js';
import { runCli } from '../support/cli.js';
import { startTestEmulator } from '../support/emulator.js';
import type { Json } from '../support/rest.js';
import { escapeRegExp } from '../support/regexp.js';

let dir: string;
/** A file that is not there, one that is not JSON, one whose content is invalid. */
const broken = { missing: '', badJson: '', invalid: '' };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vidpub-fixture-'));
  broken.missing = join(dir, 'nope.json');
  broken.badJson = join(dir, 'bad.json');
  await writeFile(broken.badJson, '{"workspaces": [');
  broken.invalid = join(dir, 'invalid.json');
  await writeFile(broken.invalid, JSON.stringify({ workspaces: [{ name: 'X', plan: 'standard', keys: [{ key: 'vp_live_abcdefgh', access: 'admin' }] }] }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const MINIMAL = {
  workspaces: [
    {
      name: 'Mine',
      plan: 'studio',
      keys: [{ key: 'vp_live_mine_12345678', access: 'read_write' }],
      destinations: [
        { id: 'dst_a', platform: 'youtube', handle: '@mine', options: [{ key: 'visibility', type: 'enum', values: ['public', 'private'], default: 'private', required: true }] },
      ],
      media: [{ id: 'med_a', filename: 'a.mp4', content_type: 'video/mp4', size_bytes: 1000, duration_sec: 5 }],
    },
  ],
};

describe('default fixture', () => {
  it('has the described workspaces, plans and keys', () => {
    const f = defaultFixture();
    expect(f.accounts.map((a) => `${a.id}:${a.plan}`)).toEqual(['acct_demo:standard', 'acct_studio:studio', 'acct_free:free']);
    expect(f.workspaces.map((w) => `${w.name}:${w.account}:${w.keys.map((k) => `${k.access}${k.revoked ? '(revoked)' : ''}`).join('+')}`)).toEqual([
      'Demo:acct_demo:read_write+read+read_write(revoked)',
      'Demo Second:acct_demo:read_write',
      'Studio:acct_studio:read_write',
      'Free:acct_free:read_write',
    ]);
    expect(validateFixture(f)).toEqual(f);
  });

  it('respects the accounts-per-platform allowance of each plan (Standard and Free: 2)', () => {
    const f = defaultFixture();
    for (const w of f.workspaces) {
      const plan = f.accounts.find((a) => a.id === w.account)!.plan;
      const perPlatform = new Map<string, number>();
      for (const d of w.destinations) perPlatform.set(d.platform, (perPlatform.get(d.platform) ?? 0) + 1);
      if (plan !== 'studio') expect(Math.max(...perPlatform.values()), w.name).toBeLessThanOrEqual(2);
    }
    expect(f.workspaces[2]!.destinations.filter((d) => d.platform === 'tiktok')).toHaveLength(3);
  });

  it('Demo has the creator-disclosure, long-form, optional-only and disconnected accounts', () => {
    const demo = defaultFixture().workspaces[0]!;
    const [tt, yt, li, ig] = demo.destinations;
    expect(tt!.creator).not.toBeNull();
    expect(tt!.video_limits.max_duration_sec).toBe(600);
    expect(tt!.options.find((o) => o.key === 'privacy')).toMatchObject({ required: true, default: null });
    expect(yt!.options.find((o) => o.required)).toMatchObject({ key: 'visibility', default: 'private' });
    expect(li!.options.every((o) => !o.required)).toBe(true);
    expect(ig!.status).toBe('disconnected');
  });
});

describe('validateFixture', () => {
  it('normalizes a minimal fixture (implicit account from plan, defaults filled)', () => {
    const f = validateFixture(MINIMAL, 'mine.json');
    expect(f.accounts).toEqual([{ id: 'acct_ws_1', name: 'Mine', plan: 'studio' }]);
    expect(f.workspaces[0]).toMatchObject({ id: 'ws_1', name: 'Mine', account: 'acct_ws_1' });
    expect(f.workspaces[0]!.keys[0]).toMatchObject({ name: 'Key 1', revoked: false });
    expect(f.workspaces[0]!.destinations[0]).toMatchObject({ display_name: '@mine', status: 'active', creator: null, caption_max_length: null });
    expect(f.workspaces[0]!.destinations[0]!.video_limits.content_types).toHaveLength(5);
    expect(f.workspaces[0]!.media[0]).toMatchObject({ status: 'ready', duration_sec: 5 });
  });

  const bad = (mutate: (f: Json) => void): Json => {
    const f = structuredClone(defaultFixture()) as Json;
    mutate(f);
    return f;
  };
  const cases: [string, Json, string][] = [
    ['not an object', [], 'fixture.json: must be an object, got []'],
    ['no workspaces', { workspaces: [] }, 'fixture.json: workspaces must list at least one workspace'],
    ['bad access', bad((f) => { f.workspaces[1].keys[0].access = 'write'; }), 'fixture.json: workspaces[1].keys[0].access must be "read" or "read_write", got "write"'],
    ['missing access', bad((f) => { delete f.workspaces[1].keys[0].access; }), 'fixture.json: workspaces[1].keys[0].access must be "read" or "read_write"'],
    ['key without _live_', bad((f) => { f.workspaces[0].keys[0].key = 'vp_test_abcdefgh'; }), 'fixture.json: workspaces[0].keys[0].key must look like "vp_live_"'],
    ['duplicate key', bad((f) => { f.workspaces[1].keys[0].key = f.workspaces[0].keys[0].key; }), 'fixture.json: workspaces[1].keys[0].key duplicates key'],
    ['unknown plan', bad((f) => { f.accounts[0].plan = 'pro'; }), 'fixture.json: accounts[0].plan must be "free", "standard", "studio", got "pro"'],
    ['unknown account', bad((f) => { f.workspaces[0].account = 'acct_x'; }), 'fixture.json: workspaces[0].account must be the id of an entry of accounts'],
    ['both account and plan', bad((f) => { f.workspaces[0].plan = 'studio'; }), 'fixture.json: workspaces[0] must have either "account"'],
    ['typo field', bad((f) => { f.workspaces[0].destinatons = []; }), 'fixture.json: workspaces[0].destinatons is not a known field'],
    ['bad destination status', bad((f) => { f.workspaces[0].destinations[1].status = 'paused'; }), 'fixture.json: workspaces[0].destinations[1].status must be "active", "disconnected", "expired", got "paused"'],
    ['duplicate destination id', bad((f) => { f.workspaces[0].destinations[1].id = 'dst_demo_tiktok'; }), 'workspaces[0].destinations[1].id duplicates destination id "dst_demo_tiktok"'],
    ['creator without required privacy', bad((f) => { f.workspaces[0].destinations[0].options[0].default = 'SELF_ONLY'; }), 'workspaces[0].destinations[0].options must have a "privacy" option with required: true and no default'],
    ['creator without max duration', bad((f) => { f.workspaces[0].destinations[0].video_limits.max_duration_sec = null; }), 'workspaces[0].destinations[0].video_limits.max_duration_sec is required for a destination with creator'],
    ['enum default not in values', bad((f) => { f.workspaces[0].destinations[1].options[0].default = 'secret'; }), 'workspaces[0].destinations[1].options[0].default must be one of values'],
    ['enum without values', bad((f) => { f.workspaces[0].destinations[1].options[0].values = []; }), 'workspaces[0].destinations[1].options[0].values must list at least one value'],
    ['bad option type', bad((f) => { f.workspaces[0].destinations[1].options[0].type = 'list'; }), 'workspaces[0].destinations[1].options[0].type must be "enum", "boolean", "string"'],
    ['unsupported media type', bad((f) => { f.workspaces[0].media[0].content_type = 'video/x-matroska'; }), 'workspaces[0].media[0].content_type must be'],
    ['media too large', bad((f) => { f.workspaces[0].media[0].size_bytes = 2_000_000_000; }), 'workspaces[0].media[0].size_bytes must be a whole number from 1 to 1000000000'],
  ];
  for (const [name, raw, message] of cases) {
    it(`rejects: ${name}`, () => {
      expect(() => validateFixture(raw, 'fixture.json')).toThrow(message);
      try {
        validateFixture(raw, 'fixture.json');
      } catch (err) {
        expect((err as Error).message).not.toContain('\n');
        expect((err as Error).name).toBe('FixtureError');
      }
    });
  }
});

describe('loadFixtureFile', () => {
  it('reads and validates a file', async () => {
    const path = join(dir, 'ok.json');
    await writeFile(path, JSON.stringify(MINIMAL));
    const f: Fixture = await loadFixtureFile(path);
    expect(f.workspaces[0]!.name).toBe('Mine');
  });

  const problems = () => [
    { file: broken.missing, message: `${broken.missing}: the fixture: no such file` },
    { file: broken.badJson, message: new RegExp(`^${escapeRegExp(broken.badJson)}: is not valid JSON \\(`) },
    { file: broken.invalid, message: `${broken.invalid}: workspaces[0].keys[0].access must be "read" or "read_write", got "admin"` },
  ];

  it('names the file and the problem: missing file, bad JSON, invalid content', async () => {
    for (const { file, message } of problems()) await expect(loadFixtureFile(file)).rejects.toThrow(message);
    await expect(loadFixtureFile(dir)).rejects.toThrow('is a directory');
    // A FIFO is refused at once, never waited on.
    const fifo = join(dir, 'fixture.fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(loadFixtureFile(fifo)).rejects.toThrow(`${fifo}: the fixture is a pipe (FIFO), not a regular file`);
  });

  it('vidpub emulator --fixture: each of them is a usage error (exit 2) naming the file and the problem, and nothing starts', async () => {
    for (const { file, message } of problems()) {
      // Already aborted: were the fixture accepted, the emulator would stop at once instead of serving.
      const r = await runCli(['emulator', '--port', '0', '--fixture', file], { signal: AbortSignal.abort() });
      expect(r.code, file).toBe(2);
      expect(r.stdout).toBe('');
      const first = r.stderr.split('\n')[0]!;
      expect(first.startsWith('Error: invalid fixture: '), r.stderr).toBe(true);
      const detail = first.slice('Error: invalid fixture: '.length);
      expect(detail).toMatch(message);
      expect(r.stderr).toContain('See "Fixture files" in the manual (docs/emulator.md) for the format.');
    }
  });
});

describe('a fixture with several problems', () => {
  /** Three problems of different kinds: a value, an unknown field, an id used twice. */
  const threeProblems = () => {
    const f = structuredClone(MINIMAL) as Json;
    f.workspaces[0].keys[0].access = 'write';
    f.workspaces[0].destinations[0].platfrom = 'youtube';
    f.workspaces[0].media.push({ id: 'med_a', filename: 'b.mp4', content_type: 'video/mp4', size_bytes: 1000 });
    return f;
  };
  const lines = (file: string) => [
    `${file}: workspaces[0].keys[0].access must be "read" or "read_write", got "write"`,
    `${file}: workspaces[0].destinations[0].platfrom is not a known field (known: id, platform, handle, display_name, status, video_limits, options, creator, caption_max_length)`,
    `${file}: workspaces[0].media[1].id duplicates media id "med_a" already used at workspaces[0].media[0].id`,
  ];

  it('validateFixture reports every one of them, one line each naming its path', () => {
    let error: unknown;
    try {
      validateFixture(threeProblems(), 'mine.json');
    } catch (err) {
      error = err;
    }
    expect((error as Error).name).toBe('FixtureError');
    expect((error as Error).message.split('\n')).toEqual(lines('mine.json'));
    expect((error as { problems: unknown }).problems).toEqual([
      { path: 'workspaces[0].keys[0].access', message: 'must be "read" or "read_write", got "write"' },
      { path: 'workspaces[0].destinations[0].platfrom', message: expect.stringMatching(/^is not a known field/) },
      { path: 'workspaces[0].media[1].id', message: 'duplicates media id "med_a" already used at workspaces[0].media[0].id' },
    ]);
  });

  it('vidpub emulator --fixture prints the three lines under a count, exit 2; --json lists them as "problems"', async () => {
    const file = join(dir, 'three.json');
    await writeFile(file, JSON.stringify(threeProblems()));
    const r = await runCli(['emulator', '--port', '0', '--fixture', file], { signal: AbortSignal.abort() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toEqual([
      `Error: invalid fixture: 3 problems in ${file}`,
      ...lines(file).map((line) => `  ${line}`),
      'See "Fixture files" in the manual (docs/emulator.md) for the format.',
      '',
    ]);

    const j = await runCli(['emulator', '--port', '0', '--json', '--fixture', file], { signal: AbortSignal.abort() });
    expect(j.code).toBe(2);
    const { error } = JSON.parse(j.stderr) as { error: { exit_code: number; problems: { path: string }[] } };
    expect(error.exit_code).toBe(2);
    expect(error.problems.map((p) => p.path)).toEqual(['workspaces[0].keys[0].access', 'workspaces[0].destinations[0].platfrom', 'workspaces[0].media[1].id']);
  });
});

describe('startEmulator with a custom fixture', () => {
  it('serves the fixture instead of the default', async () => {
    const emu = await startTestEmulator({ processingMs: 10, publishMs: 10, fixture: MINIMAL });
    try {
      expect(emu.keys).toEqual([{ key: 'vp_live_mine_12345678', workspace: 'Mine', plan: 'studio', access: 'read_write' }]);
      const api = emu.api.as('vp_live_mine_12345678');
      const me = await api.get('/me');
      expect(me.body.workspace).toEqual({ id: 'ws_1', name: 'Mine' });
      expect(me.body.plan.name).toBe('studio');
      const post = await api.post('/posts', { media_id: 'med_a', caption: 'x', destinations: [{ destination_id: 'dst_a' }], publish_at: 'now' });
      expect(post.status).toBe(201);
      expect((await api.get('/me', { key: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td' })).status).toBe(401);
    } finally {
      await emu.close();
    }
  });

  it('throws the validation error for an invalid fixture option, and for bad ports or timings', async () => {
    await expect(startEmulator({ port: 0, fixture: { workspaces: 3 } })).rejects.toThrow('fixture: workspaces must be an array, got 3');
    await expect(startEmulator({ port: 70000 })).rejects.toThrow('port must be a whole number from 0 to 65535');
    await expect(startEmulator({ port: 0, processingMs: -1 })).rejects.toThrow('processingMs must be');
  });
});
