/**
 * The journey over HTTPS against `startEmulator({ tls: 'generate' })`: its own
 * CA trusted through --ca-file (kept by login) or VIDPUB_CA_FILE, the upload
 * going to the storage origin, another port with its own certificate. The
 * batch also through a real proxy (tinyproxy), where --debug shows neither
 * the proxy's password nor the API key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { batchLines, batchManifest } from '../support/batch.js';
import { cliRunner, tempConfigDir, type RunResult } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { startTinyproxy, type Tinyproxy } from './tinyproxy.js';

const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ tls: 'generate' });
});
afterAll(() => emu?.close());

const caFile = () => emu.info.ca_file!;
const run = cliRunner(() => ({ clock: scaledClock(10), env: { ...emu.env(), VIDPUB_CA_FILE: caFile() } }));

describe('the emulator over HTTPS', () => {
  it('serves the API on https and the upload links on another https origin, and names its CA file', () => {
    expect(emu.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    const storage = new URL(emu.info.storage_url!);
    expect(storage.protocol).toBe('https:');
    expect(storage.port).not.toBe(String(emu.port));
    expect(caFile()).toMatch(/ca\.pem$/);
  });

  it('login --ca-file keeps the CA in the profile; me then needs nothing else', async () => {
    const dir = tempConfigDir();
    // The key in the file (no keychain asked), so that login says nothing but its result.
    const env = { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir, VIDPUB_CA_FILE: undefined, VIDPUB_API_KEY: undefined, VIDPUB_NO_KEYRING: '1' };
    const login = await run(['login', '--with-key', '--ca-file', caFile(), '--json'], { stdin: `${emu.key()}\n`, env });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({ base_url: emu.baseUrl, workspace: 'Demo' });
    const me = await run(['me', '--json'], { env: { ...env, VIDPUB_BASE_URL: undefined } });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).workspace.name).toBe('Demo');
  });

  it('destinations and options', async () => {
    const d = await run(['destinations', '--json']);
    expect(d.code).toBe(0);
    const list = JSON.parse(d.stdout) as { id: string; platform: string }[];
    expect(list.length).toBeGreaterThan(0);
    const o = await run(['options', list[0]!.id, '--json']);
    expect(o.code).toBe(0);
    expect(o.stdout.length).toBeGreaterThan(2);
  });

  it('upload: the PUT goes to the storage origin over TLS, with progress', async () => {
    const r = await run(['upload', CLIP, '--debug']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^med_\w+$/);
    expect(r.stderr).toMatch(/Uploading clip\.mp4: 100%/);
    const put = r.stderr.split('\n').find((l) => l.includes('PUT https://'))!;
    expect(new URL(put.slice(put.indexOf('https://')).split(' ')[0]!.replace('?[redacted]', '')).origin).toBe(emu.info.storage_url);
    expect(r.stderr).toContain(`POST ${emu.baseUrl}/media/uploads`);
  });

  it('post (upload and publish) and status', async () => {
    const p = await run(['post', CLIP, '--to', 'linkedin', '--caption', 'Over TLS', '--json']);
    expect(p.stderr).not.toMatch(/Error/);
    expect(p.code).toBe(0);
    const post = JSON.parse(p.stdout) as { id: string; status: string };
    expect(post.status).toBe('completed');
    const s = await run(['status', post.id, '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout).id).toBe(post.id);
  });

  it('import and publish of a draft', async () => {
    const i = await run(['import', 'https://cdn.example.com/clip.mp4', '--json']);
    expect(i.code).toBe(0);
    expect(JSON.parse(i.stdout).status).toBe('ready');
    const draft = await run(['post', CLIP, '--to', 'linkedin', '--caption', 'Draft', '--draft', '--json']);
    expect(draft.code).toBe(0);
    const pub = await run(['publish', JSON.parse(draft.stdout).id, '--yes', '--json']);
    expect(pub.code).toBe(0);
    expect(JSON.parse(pub.stdout).status).toBe('completed');
  });
});

/** A manifest of two items; `how` in the captions makes it another batch (the same manifest would be replayed, not done again). */
const twoItems = (how: string) => batchManifest([
  { file: 'a.mp4', to: 'linkedin', caption: `First ${how}` },
  { file: 'a.mp4', to: 'youtube', caption: `Second ${how}` },
]);

/** The origins the batch's PUTs went to, from its --debug lines. */
const putOrigins = (stderr: string) => [...stderr.matchAll(/→ PUT (https:\/\/[^/\s]+)\//g)].map((m) => m[1]);

/** Both items published, each after an upload to the storage origin over TLS. */
function expectTwoPublished(r: RunResult): void {
  expect(r.stderr).not.toMatch(/Error:/);
  expect(r.code).toBe(0);
  const lines = batchLines(r.stdout).sort((a, b) => a.item - b.item);
  expect(lines.map((l) => [l.item, l.status])).toEqual([[1, 'published'], [2, 'published']]);
  for (const l of lines) expect(l.media_id).toMatch(/^med_/);
  expect(putOrigins(r.stderr)).toEqual([emu.info.storage_url, emu.info.storage_url]);
}

describe('batch over HTTPS', () => {
  it('two items, each uploaded to the storage origin over TLS, then posted and published', async () => {
    // A fresh per-minute window (the journey above spent most of its writes), set through the test controls over TLS.
    await emu.api.freshMinute();
    expectTwoPublished(await run(['batch', twoItems('over TLS'), '--debug']));
  });
});

describe.skipIf(missing('tinyproxy', ['-v']))('batch over HTTPS through tinyproxy, with proxy credentials', () => {
  const AUTH = { user: 'ci-user', password: 'tls-pr0xy_secret' };
  let proxy: Tinyproxy;
  beforeAll(async () => {
    proxy = await startTinyproxy({ connectPorts: [emu.port, Number(new URL(emu.info.storage_url!).port)], auth: AUTH });
  });
  afterAll(() => proxy?.stop());

  it('two items through CONNECT tunnels; --debug shows neither the proxy password nor the API key', async () => {
    await emu.api.freshMinute();
    const before = proxy.connects().length;
    const env = { HTTPS_PROXY: `http://${AUTH.user}:${encodeURIComponent(AUTH.password)}@127.0.0.1:${proxy.port}` };
    const r = await run(['batch', twoItems('through the proxy'), '--debug'], { env });
    expectTwoPublished(r);
    const tunnels = proxy.connects().slice(before);
    expect(tunnels).toContain(`127.0.0.1:${emu.port}`);
    expect(tunnels).toContain(new URL(emu.info.storage_url!).host);
    for (const secret of [AUTH.password, encodeURIComponent(AUTH.password), emu.key(), Buffer.from(`${AUTH.user}:${AUTH.password}`).toString('base64')]) {
      expect(r.stderr).not.toContain(secret);
      expect(r.stdout).not.toContain(secret);
    }
    // The --debug lines are there: their absence would make the check above vacuous.
    expect(r.stderr).toContain(`POST ${emu.baseUrl}/posts`);
  });
});
