/**
 * `vidpub watch` without --once through the real bin, on the emulator's clock: it reads each post
 * only once its time has come (a post due in an hour is not read), follows until --timeout (exit 7)
 * or until every post has settled (exit 0), and with --forward-to POSTs each event, signed, to a
 * real local receiver. The posts are made in-process (the same journal); the clock is moved, never
 * waited for.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents, publishedAtService } from '../support/events.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

describe('vidpub watch, following (real bin, emulator clock)', () => {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-follow-'));
  const env = () => ({ ...emu.env(), VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state'), VIDPUB_NO_CACHE: '1', VIDPUB_NO_KEYRING: '1', NO_COLOR: '1' });
  const watch = (...extra: string[]) => runAsync(process.execPath, [BIN, 'watch', ...extra], { env: { ...process.env, ...env() } });
  const hits: { signature: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      hits.push({ signature: String(req.headers['vidpub-signature']), body });
      res.writeHead(204).end();
    });
  });

  async function scheduled(inSec: number): Promise<string> {
    const at = new Date((await emu.api.clockNow()) + inSec * 1000).toISOString();
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'later', '--at', at, '--yes', '--json', 'id'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { id: string }).id;
  }

  beforeAll(async () => {
    ensureBuilt();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  }, 120_000);
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads a post only once it is due, stops at --timeout (7), and ends (0) once all have settled, forwarding each event signed', async () => {
    const first = await scheduled(3600);
    const second = await scheduled(7200);
    await emu.advance(3660);
    await publishedAtService(emu.api.as(emu.key()), [first]);

    // The first is due, the second not for an hour: it follows, pausing until then (a minute at most), and the timeout ends it.
    const r1 = await watch('--json', '--timeout', '8s');
    expect(expectEvents(r1.stdout).map((e) => `${e.type} ${e.post_id}`)).toEqual([`post.destination.published ${first}`, `post.completed ${first}`]);
    expect(r1.stderr).toMatch(/Watch: 1 post read, 2 new events, 1 not due yet \(next: /);
    expect(r1.stderr).toMatch(/Stopped \(--timeout reached\) while following the posts; the next run goes on from there/);
    expect(r1.status).toBe(7);
    const reads = (await emu.requests()).filter((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/')).map((q) => q.path);
    expect(reads).toContain(`/v1/posts/${first}`);
    expect(reads).not.toContain(`/v1/posts/${second}`);

    // Its time comes: a watch that follows reads it, forwards its events, and ends with nothing left open.
    await emu.advance(3660);
    await publishedAtService(emu.api.as(emu.key()), [second]);
    const { port } = server.address() as AddressInfo;
    const r2 = await watch('--json', '--forward-to', `http://127.0.0.1:${port}/hook`);
    expect(r2.status, r2.stderr).toBe(0);
    const events = expectEvents(r2.stdout);
    expect(events.map((e) => `${e.type} ${e.post_id}`)).toEqual([`post.destination.published ${second}`, `post.completed ${second}`]);
    const secret = (await runCli(['watch', '--print-secret'], { env: env() })).stdout.trim();
    expect(hits.map((h) => JSON.parse(h.body) as unknown)).toEqual(events);
    for (const h of hits) {
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(h.signature)!;
      expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${h.body}`).digest('hex'));
    }
  }, 60_000);
});
