/**
 * Who the emulator answers beyond its API: the test controls (/_emulator, which list every
 * key) answer only this machine's loopback unless --expose-controls is given; listening on an
 * address other than loopback is said on stderr at start. The peer that is not loopback is a
 * test host of this test's own (a network namespace joined by a veth pair, test/support/test-host.ts):
 * no traffic leaves the machine.
 */
import { request as httpRequest } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controlsAnswer, listenWarning } from '../../src/emulator/access.js';
import { DEFAULT_KEYS } from '../../src/emulator/default-fixture.js';
import { isLoopbackHost } from '../../src/contract/addresses.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { BIN, ensureBuilt } from '../support/build.js';
import { startBuiltEmulator } from '../support/built-emulator.js';
import { waitFor } from '../support/poll.js';
import { makeContext } from '../support/cli.js';
import { main } from '../../src/cli/main.js';
import { createIpv6Pair, createTestHost, type Ipv6Pair, type TestHost } from '../support/test-host.js';

/** GET `path` on the loopback `port`: the status. */
function getLocal(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

let host: TestHost;
beforeAll(() => { host = createTestHost(); });
afterAll(() => host?.remove());

describe('the decision: which peers the test controls answer', () => {
  it('loopback peers, in every form the socket reports them', () => {
    for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) {
      expect([peer, controlsAnswer('/_emulator/reset', peer, false)]).toEqual([peer, true]);
    }
  });

  it('no other peer, and no peer whose connection is gone, unless the controls are exposed', () => {
    for (const peer of ['192.0.2.7', '::ffff:192.0.2.7', 'fd00::2', '10.0.0.1', '::', undefined]) {
      expect([peer, controlsAnswer('/_emulator', peer, false)]).toEqual([peer, false]);
      expect([peer, controlsAnswer('/_emulator/clock', peer, true)]).toEqual([peer, true]);
    }
  });

  it("the page behind a published url answers anyone (it stands for the platform's); the web app answers as the controls do", () => {
    expect(controlsAnswer('/_emulator/published/post_1/dst_1', '192.0.2.7', false)).toBe(true);
    expect(controlsAnswer('/_emulator/reviewx', '192.0.2.7', false)).toBe(false);
    for (const path of ['/_emulator/review/post_1', '/_emulator/app', '/_emulator/app/videos/med_1', '/_emulator/app/posts/post_1/publish']) {
      expect([path, controlsAnswer(path, '192.0.2.7', false)]).toEqual([path, false]);
      expect([path, controlsAnswer(path, '127.0.0.1', false)]).toEqual([path, true]);
      expect([path, controlsAnswer(path, '192.0.2.7', true)]).toEqual([path, true]);
    }
  });

  it('a listen host other than loopback gets a warning; loopback gets none', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost', '127.0.0.2']) expect([host, listenWarning(host, false)]).toEqual([host, null]);
    for (const host of ['0.0.0.0', '::', '192.0.2.2']) {
      expect(isLoopbackHost(host)).toBe(false);
      expect(listenWarning(host, false)).toBe(
        `The emulator listens on ${host}: whoever can reach this machine can use its API with its keys (those of the default fixture are published in vidpub's manual). `
        + 'Its test controls (/_emulator), which list every key, still answer only on this machine; --expose-controls opens them too.',
      );
    }
    expect(listenWarning('0.0.0.0', true)).toContain('and its test controls (/_emulator: every key, reset, the clock, faults), as --expose-controls asks.');
  });
});

describe('an emulator listening on every address', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });


  it('refuses the test controls to a peer that is not loopback (403 controls_not_exposed), answers loopback and the API', async () => {
    emu = await startTestEmulator({ host: '0.0.0.0' });
    expect(emu.handle.warning).toBe(listenWarning('0.0.0.0', false));
    expect(await getLocal(emu.port, '/_emulator')).toBe(200);
    // The web app (review_url's page, the workspace page, a video's bytes) is kept from it as the controls are.
    for (const path of ['/_emulator', '/_emulator/state', '/_emulator/requests', '/_emulator/app', '/_emulator/review/post_x', '/_emulator/app/videos/med_x']) {
      const r = await host.get(`http://${host.hostAddress}:${emu.port}${path}`);
      expect([path, r.status]).toEqual([path, 403]);
      const body = JSON.parse(r.body) as { error: { type: string; code: string; message: string } };
      expect(body.error).toMatchObject({ type: 'permission_error', code: 'controls_not_exposed' });
      expect(body.error.message).toBe(
        `The test controls (/_emulator) answer only requests from this machine's loopback address (127.0.0.1, ::1); this one came from ${host.peerAddress}. `
        + 'To use them from elsewhere, start the emulator with --expose-controls.',
      );
    }
    const api = await host.get(`http://${host.hostAddress}:${emu.port}/v1/me`, { authorization: `Bearer ${emu.key()}` });
    expect(api.status).toBe(200);
  });

  it('with exposeControls, answers them to that peer too', async () => {
    emu = await startTestEmulator({ host: '0.0.0.0', exposeControls: true });
    expect(emu.handle.warning).toBe(listenWarning('0.0.0.0', true));
    expect((await host.get(`http://${host.hostAddress}:${emu.port}/_emulator/clock`)).status).toBe(200);
    // That machine may name the emulator as it knows it (a container's service name); this machine's browsers may
    // not (a rebound Host from loopback: test/emulator/controls-guard.test.ts).
    expect((await host.get(`http://${host.hostAddress}:${emu.port}/_emulator`, { host: `emulator.internal:${emu.port}` })).status).toBe(200);
  });

  it('on loopback (the default), says nothing', async () => {
    emu = await startTestEmulator();
    expect(emu.handle.warning).toBeNull();
  });
});

describe('vidpub emulator --host 0.0.0.0, the built command', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGTERM');
    child = undefined;
  });

  async function start(args: string[]): Promise<{ port: number; stderr: () => string }> {
    ensureBuilt();
    const started = await startBuiltEmulator(args);
    child = started.child;
    let err = '';
    child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
    // The warning comes before the start document: it is already on its way.
    await waitFor(() => err, (t) => t.endsWith('\n'));
    return { port: Number(new URL(started.baseUrl).port), stderr: () => err };
  }

  it('warns on stderr before anything else, and keeps its controls from other machines', async () => {
    const { port, stderr } = await start(['--host', '0.0.0.0']);
    expect(stderr()).toBe(`! ${listenWarning('0.0.0.0', false)}\n`);
    expect((await host.get(`http://${host.hostAddress}:${port}/_emulator`)).status).toBe(403);
    expect(await getLocal(port, '/_emulator')).toBe(200);
  }, 30_000);

});

describe('vidpub emulator --host 0.0.0.0 --expose-controls, in-process (the same command; the built one is above)', () => {
  it('says the controls are open too, and answers them to another machine', async () => {
    const stop = new AbortController();
    const { ctx, stdout, stderr } = makeContext({ signal: stop.signal });
    const running = main(['emulator', '--port', '0', '--json', '--host', '0.0.0.0', '--expose-controls'], ctx);
    try {
      await waitFor(() => stdout(), (out) => out.includes('\n'), 20_000);
      expect(stderr()).toBe(`! ${listenWarning('0.0.0.0', true)}\n`);
      const port = Number(new URL((JSON.parse(stdout().split('\n')[0]!) as { base_url: string }).base_url).port);
      expect((await host.get(`http://${host.hostAddress}:${port}/_emulator`)).status).toBe(200);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
  }, 30_000);
});

describe('a real IPv6 peer whose address carries 127.0.0.1 without being loopback (the built emulator in a network namespace)', () => {
  // NAT64, IPv4-compatible and 6to4 forms of 127.0.0.1: addresses of other hosts, which any remote peer may use.
  const SOURCES = ['64:ff9b::7f00:1', '::7f00:1', '2002:7f00:1::1'];
  let pair: Ipv6Pair;
  let child: ChildProcess | undefined;
  let port = 0;
  beforeAll(async () => {
    ensureBuilt();
    pair = createIpv6Pair(SOURCES);
    child = pair.spawnInServer(process.execPath, [BIN, 'emulator', '--host', '::', '--port', '0', '--json']);
    let out = '';
    port = await new Promise<number>((resolve, reject) => {
      child!.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(Number(new URL((JSON.parse(out.split('\n')[0]!) as { base_url: string }).base_url).port));
      });
      child!.on('exit', (code) => reject(new Error(`the emulator exited (${code}) before it started`)));
    });
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGTERM');
    pair?.remove();
  });

  it('refuses the test controls and the start information (403 controls_not_exposed) to each, and answers the API', async () => {
    const base = `http://[${pair.serverAddress}]:${port}`;
    for (const from of [pair.peerAddress, ...SOURCES]) {
      for (const path of ['/_emulator', '/_emulator/state', '/_emulator/requests']) {
        const r = await pair.get(`${base}${path}`, { from });
        expect([from, path, r.status]).toEqual([from, path, 403]);
        expect((JSON.parse(r.body) as { error: { code: string; message: string } }).error.code).toBe('controls_not_exposed');
      }
      const clock = await pair.get(`${base}/_emulator/clock`, { from });
      expect([from, clock.status]).toEqual([from, 403]);
      const api = await pair.get(`${base}/v1/me`, { from, headers: { authorization: `Bearer ${DEFAULT_KEYS.demo_rw}` } });
      expect([from, api.status]).toEqual([from, 200]);
    }
    // The message names the peer as the socket saw it.
    const named = await pair.get(`${base}/_emulator`, { from: '64:ff9b::7f00:1' });
    expect((JSON.parse(named.body) as { error: { message: string } }).error.message).toContain('this one came from 64:ff9b::7f00:1.');
  }, 60_000);

  it('answers loopback in the same namespace: ::1, and 127.0.0.1 (a dual-stack socket reports it as ::ffff:127.0.0.1)', async () => {
    expect((await pair.getInServer(`http://[::1]:${port}/_emulator`)).status).toBe(200);
    expect((await pair.getInServer(`http://127.0.0.1:${port}/_emulator`)).status).toBe(200);
  }, 30_000);
});
