/**
 * The journey over HTTPS against `startEmulator({ tls: 'generate' })`: its own
 * CA trusted through --ca-file (kept by login) or VIDPUB_CA_FILE, the upload
 * going to the storage origin, another port with its own certificate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

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
    const env = { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir, VIDPUB_CA_FILE: undefined, VIDPUB_API_KEY: undefined };
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
