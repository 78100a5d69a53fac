/**
 * `vidpub emulator clock|fault|requests`: the test controls of a running
 * emulator without hand-written JSON (Stripe CLI style).
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeContext, runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = (argv: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(argv, { ...opts, env: { ...emu.env(), TZ: 'UTC', ...opts.env } });

describe('vidpub emulator clock', () => {
  it('shows the clock in the one human form; +DURATION moves it forward (exit 0)', async () => {
    const shown = await run(['emulator', 'clock']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Emulator clock: today \d\d:\d\d(:\d\d)? UTC, .* \(\S+Z\); 0 s ahead of this machine's$/m);
    const moved = await run(['emulator', 'clock', '+2h', '--json']);
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ offset_sec: 7200, released_posts: 0 });
  });

  it('a time that is not +DURATION: exit 2, nothing moved', async () => {
    const r = await run(['emulator', 'clock', '2h']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: vidpub emulator clock moves the clock forward: write \+DURATION \(\+90s, \+2h, \+1d\), got "2h"/);
    const bad = await run(['emulator', 'clock', '+soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Error: invalid clock advance "soon"/);
  });
});

describe('vidpub emulator fault', () => {
  it('KEY=VALUE pairs become a fault (numbers typed, action status implied by status), list and clear', async () => {
    const added = await run(['emulator', 'fault', 'path=/v1/me,method=GET,status=503,times=2']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('Fault added; the emulator holds 1.');
    const me = await runCli(['me'], { env: emu.env() });
    expect(me.stderr).toMatch(/503/);
    // both times used by the two attempts of me: none left
    const listed = await run(['emulator', 'fault', 'list', '--json']);
    expect(JSON.parse(listed.stdout).faults.requests).toEqual([]);
    await run(['emulator', 'fault', 'destination_fail=dst_demo_linkedin']);
    expect((await run(['emulator', 'fault', 'list'])).stdout).toBe('destination_fail=dst_demo_linkedin\n');
    const cleared = await run(['emulator', 'fault', 'clear']);
    expect(cleared.code).toBe(0);
    expect(cleared.stderr).toContain('Faults cleared.');
  });

  it('what the emulator refuses, and a pair that is not KEY=VALUE: exit 2 with its words and how to write one', async () => {
    const refused = await run(['emulator', 'fault', 'path=/v1/me,action=explode']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Error: the emulator refused it: .*action must be one of/);
    expect(refused.stderr).toMatch(/Write a fault as KEY=VALUE pairs/);
    const bad = await run(['emulator', 'fault', 'status503']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Error: invalid fault "status503": "status503" is not KEY=VALUE/);
    const none = await run(['emulator', 'fault']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Error: vidpub emulator fault needs a fault, "list" or "clear"/);
  });
});

describe('vidpub emulator requests', () => {
  it('prints the request log; --follow prints each new request as it comes, until Ctrl-C ends it (exit 0)', async () => {
    await runCli(['me'], { env: emu.env() });
    const once = await run(['emulator', 'requests']);
    expect(once.code).toBe(0);
    expect(once.stdout).toMatch(/^GET\t\/v1\/me\t200\t\t$/m);

    const ac = new AbortController();
    const { ctx, stdout } = makeContext({ env: emu.env(), signal: ac.signal });
    const following = main(['emulator', 'requests', '--follow'], ctx);
    await waitFor(stdout, (t) => /^GET\t\/v1\/me\t200/m.test(t));
    // a request made while it follows is printed as it comes
    await runCli(['destinations'], { env: emu.env() });
    await waitFor(stdout, (t) => /^GET\t\/v1\/destinations\t200/m.test(t));
    ac.abort();
    expect(await following).toBe(0);
    // each request once
    expect(stdout().match(/\/v1\/me\t/g)).toHaveLength(1);
  });

  it('no emulator there: exit 1 saying where it looked and how to start one', async () => {
    const r = await runCli(['emulator', 'requests'], { env: { VIDPUB_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: no emulator answers at http:\/\/127\.0\.0\.1:9 \(the base URL from VIDPUB_BASE_URL\): /m);
    expect(r.stderr).not.toMatch(/fetch failed/);
    expect(r.stderr).toMatch(/Start one with "vidpub emulator", or name the one running: vidpub emulator requests --base-url http:\/\/127\.0\.0\.1:PORT\/v1/);
  });
});

describe('vidpub emulator --verbose', () => {
  it('logs each request it answers on stderr: method, path, status (and the fault that answered)', async () => {
    const ac = new AbortController();
    const { ctx, stdout, stderr } = makeContext({ signal: ac.signal });
    const running = main(['emulator', '--port', '0', '--verbose', '--json'], ctx);
    const info = JSON.parse(await waitFor(stdout, (t) => t.includes('\n'))) as { base_url: string; keys: { key: string; access: string }[] };
    const key = info.keys.find((k) => k.access === 'read_write')!.key;
    const env = { VIDPUB_BASE_URL: info.base_url, VIDPUB_API_KEY: key };
    expect((await runCli(['me'], { env })).code).toBe(0);
    await waitFor(stderr, (t) => /^GET \/v1\/me 200$/m.test(t));
    await runCli(['emulator', 'fault', 'path=/v1/destinations,status=503,times=1'], { env });
    await runCli(['destinations', '--max-wait', '0'], { env });
    await waitFor(stderr, (t) => /^GET \/v1\/destinations 503 \(fault: .+\)$/m.test(t));
    ac.abort();
    expect(await running).toBe(0);
    // the controls themselves are not in the log
    expect(stderr()).not.toMatch(/_emulator/);
  });
});
