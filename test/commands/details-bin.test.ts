/**
 * Small things a new user met: `vidpub help nope` is `vidpub nope` (exit 2); `emulator clock -1h`
 * is a value, not an unknown option; `vidpub emulator clock|fault|requests` drive the emulator of
 * the active profile (not port 4010 whatever it is), and say so clearly when none answers.
 * `vidpub help nope` runs in the built bin (a one-word line would be its fast path's: two words
 * must not be); the rest is main(argv, ctx) in-process (runCli, with a config directory of its
 * own and none of this process's environment), which is what the bin runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

/** The bin with no VIDPUB_* of this process, a config directory of its own. */
function vidpubBin(args: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIDPUB_')));
  return runAsync(process.execPath, [BIN, ...args], { env: { ...clean, NO_COLOR: '1', TZ: 'UTC' }, timeoutMs: 60_000 });
}

/** main in-process with only `env` (and a config directory of its own unless it names one). */
async function vidpub(args: string[], env: Record<string, string> = {}) {
  const r = await runCli(args, { env: { NO_COLOR: '1', TZ: 'UTC', ...env } });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(() => ensureBuilt(), 120_000);

describe('vidpub help NAME', () => {
  it('an unknown name (the built bin): exit 2 with the message of `vidpub nope`, not the root help', async () => {
    const direct = await vidpub(['nope']);
    const help = await vidpubBin(['help', 'nope']);
    expect(direct.status).toBe(2);
    expect(help.status).toBe(2);
    expect(help.stderr).toBe(direct.stderr);
    expect(help.stderr).toMatch(/^Error: unknown command 'nope'/m);
    expect(help.stdout).toBe('');
  });

  it('a known name still shows its help (exit 0)', async () => {
    const r = await vidpub(['help', 'status']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: vidpub status \[options\]/m);
  });
});

describe('vidpub emulator controls', () => {
  it('clock -1h is read as a value: exit 2 saying the clock only moves forward (no "unknown option")', async () => {
    const r = await vidpub(['emulator', 'clock', '-1h'], { VIDPUB_BASE_URL: emu.baseUrl });
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(/unknown option/);
    expect(r.stderr).toMatch(/^Error: the emulator's clock only moves forward \(what it released cannot be taken back\), got "-1h"$/m);
    expect(r.stderr).toMatch(/^Restart "vidpub emulator" to start again from this machine's time, or move it forward: vidpub emulator clock \+1h$/m);
  });

  it("go to the active profile's emulator (logged in on another port), and --base-url overrides it", async () => {
    const config = mkdtempSync(join(tmpdir(), 'vidpub-controls-'));
    const keyFile = join(config, 'key');
    writeFileSync(keyFile, emu.key() + '\n', { mode: 0o600 });
    const login = await vidpub(['login', '--base-url', emu.baseUrl, '--api-key-file', keyFile], { VIDPUB_CONFIG_DIR: config });
    expect(login.status, login.stderr).toBe(0);
    const clock = await vidpub(['emulator', 'clock', '+1h', '--json'], { VIDPUB_CONFIG_DIR: config });
    expect(clock.status, clock.stderr).toBe(0);
    expect(JSON.parse(clock.stdout)).toMatchObject({ offset_sec: 3600 });
    // the profile's emulator moved, as its own controls say
    expect((await emu.admin('GET', '/clock')) as { offset_sec: number }).toMatchObject({ offset_sec: 3600 });
    const faults = await vidpub(['emulator', 'fault', 'list'], { VIDPUB_CONFIG_DIR: config });
    expect(faults.status, faults.stderr).toBe(0);
    // --base-url over the profile: a port where nothing listens
    const port = await closedPort();
    const elsewhere = await vidpub(['emulator', 'requests', '--base-url', `http://127.0.0.1:${port}/v1`], { VIDPUB_CONFIG_DIR: config });
    expect(elsewhere.status).toBe(1);
    expect(elsewhere.stderr).toMatch(new RegExp(`^Error: no emulator answers at http://127\\.0\\.0\\.1:${port} \\(the base URL from --base-url\\): nothing listens there$`, 'm'));
    expect(elsewhere.stderr).not.toMatch(/fetch failed/);
  });

  it('a service that is not on this machine is refused: exit 2, naming it', async () => {
    const r = await vidpub(['emulator', 'fault', 'list', '--base-url', 'https://api.example.com/v1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Error: the base URL https:\/\/api\.example\.com \(from --base-url\) is not an emulator on this machine: the test controls are the emulator's$/m);
  });

  it('another program on the port (no test controls): exit 1, saying so', async () => {
    // The emulator's /v1 origin answers /_emulator; a plain HTTP server that answers 404 does not.
    const { createServer: http } = await import('node:http');
    const server = http((_q, res) => res.writeHead(404).end('not here'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await vidpub(['emulator', 'clock', '--base-url', `http://127.0.0.1:${port}/v1`]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^Error: http://127\\.0\\.0\\.1:${port} \\(the base URL from --base-url\\) answers, but has no emulator test controls$`, 'm'));
    } finally {
      server.close();
    }
  });
});
