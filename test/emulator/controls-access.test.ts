/**
 * Who the emulator answers beyond its API: the test controls (/_emulator, which list every
 * key) answer only this machine's loopback unless --expose-controls is given; listening on an
 * address other than loopback is said on stderr at start. The peer here that is not loopback
 * is an address of this very machine (the client binds to it): no traffic leaves the machine.
 */
import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { controlsAnswer, listenWarning } from '../../src/emulator/access.js';
import { isLoopback } from '../../src/emulator/addresses.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { ensureBuilt } from '../support/build.js';
import { startBuiltEmulator } from '../support/built-emulator.js';
import { waitFor } from '../support/poll.js';

/** An IPv4 address of this machine that is not loopback, or undefined when it has none. */
function otherLocalAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

/** GET `path` on `port` of `host`, from the local address `from`: status and parsed body. */
function getFrom(from: string | undefined, host: string, port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { error?: { type: string; code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host, port, path, localAddress: from, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

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

  it('the pages behind review_url and a published url answer anyone: the API hands out their links', () => {
    expect(controlsAnswer('/_emulator/review/post_1', '192.0.2.7', false)).toBe(true);
    expect(controlsAnswer('/_emulator/published/post_1/dst_1', '192.0.2.7', false)).toBe(true);
    expect(controlsAnswer('/_emulator/reviewx', '192.0.2.7', false)).toBe(false);
  });

  it('a listen host other than loopback gets a warning; loopback gets none', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost', '127.0.0.2']) expect([host, listenWarning(host, false)]).toEqual([host, null]);
    for (const host of ['0.0.0.0', '::', '192.0.2.2']) {
      expect(isLoopback(host)).toBe(false);
      expect(listenWarning(host, false)).toBe(
        `The emulator listens on ${host}: whoever can reach this machine can use its API with its keys (those of the default fixture are published in vidpub's README). `
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

  // Without an address of this machine other than loopback, no request can come from elsewhere
  // without leaving the machine: the decision above and the warning below are what is tested then.
  const other = otherLocalAddress();

  it('refuses the test controls to a peer that is not loopback (403 controls_not_exposed), answers loopback and the API', async () => {
    emu = await startTestEmulator({ host: '0.0.0.0' });
    expect(emu.handle.warning).toBe(listenWarning('0.0.0.0', false));
    expect((await getFrom('127.0.0.1', '127.0.0.1', emu.port, '/_emulator')).status).toBe(200);
    if (!other) return;
    for (const path of ['/_emulator', '/_emulator/state', '/_emulator/requests']) {
      const r = await getFrom(other, other, emu.port, path);
      expect([path, r.status]).toEqual([path, 403]);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'controls_not_exposed' });
      expect(r.body.error!.message).toBe(
        `The test controls (/_emulator) answer only requests from this machine's loopback address (127.0.0.1, ::1); this one came from ${other}. `
        + 'To use them from elsewhere, start the emulator with --expose-controls.',
      );
    }
    const api = await getFrom(other, other, emu.port, '/v1/me', { authorization: `Bearer ${emu.key()}` });
    expect(api.status).toBe(200);
  });

  it('with exposeControls, answers them to that peer too', async () => {
    emu = await startTestEmulator({ host: '0.0.0.0', exposeControls: true });
    expect(emu.handle.warning).toBe(listenWarning('0.0.0.0', true));
    const from = other ?? '127.0.0.1';
    expect((await getFrom(from, from, emu.port, '/_emulator/clock')).status).toBe(200);
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
    const other = otherLocalAddress();
    const from = other ?? '127.0.0.1';
    const r = await getFrom(from, from, port, '/_emulator');
    expect(r.status).toBe(other ? 403 : 200);
  }, 30_000);

  it('with --expose-controls, says the controls are open too', async () => {
    const { stderr } = await start(['--host', '0.0.0.0', '--expose-controls']);
    expect(stderr()).toBe(`! ${listenWarning('0.0.0.0', true)}\n`);
  }, 30_000);
});
