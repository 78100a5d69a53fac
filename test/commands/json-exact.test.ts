/**
 * Exact text with --json: a service error whose code and message hold U+202E (an override) and
 * U+009B (CSI, a C1 control) is written with `\u202e` and `\u009b`, the same bytes at a terminal
 * (through the terminal boundary, ui/terminal.ts, as a real process's stderr is) and in a pipe;
 * a record's C1 controls likewise on stdout; and a usage error's JSON carries "code": "usage".
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { guardTerminal } from '../../src/ui/terminal.js';
import { makeContext, runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

/** `vidpub ARGS` with stdout and stderr a terminal (guarded as the process's are) or pipes: what each printed. */
async function at(where: 'terminal' | 'pipe', args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const tty = where === 'terminal';
  const { ctx, stdout, stderr } = makeContext({ env: emu.env(), tty: { stdout: tty, stderr: tty } });
  if (tty) {
    guardTerminal(ctx.io.stdout);
    guardTerminal(ctx.io.stderr);
  }
  const code = await main(args, ctx);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout(), stderr: stderr() };
}

const RAW = /[\u0080-\u009f\u202a-\u202e]/;

describe('--json is the same bytes at a terminal and in a pipe', () => {
  it('a service error holding U+202E and U+009B: written \\u202e and \\u009b', async () => {
    const body = JSON.stringify({ error: { type: 'invalid_request', code: 'odd\u009b\u202ecode', message: 'Refused \u202eevil\u202c here' } });
    const runs = [];
    for (const where of ['terminal', 'pipe'] as const) {
      await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 400, content_type: 'application/json', body, times: 1 });
      runs.push(await at(where, ['me', '--json']));
    }
    const [terminal, pipe] = runs;
    expect(terminal!.stderr).toBe(pipe!.stderr);
    expect(pipe!.stderr).toContain('"code":"odd\\u009b\\u202ecode"');
    expect(pipe!.stderr).toContain('Refused \\u202eevil\\u202c here');
    expect(pipe!.stderr).not.toMatch(RAW);
    expect(terminal!.stderr).not.toContain('<U+');
    const doc = JSON.parse(pipe!.stderr) as { error: { type: string; code: string; exit_code: number } };
    expect(doc.error).toMatchObject({ type: 'usage', code: 'odd\u009b\u202ecode', exit_code: 2 });
    expect([terminal!.code, pipe!.code]).toEqual([2, 2]);
  });

  it("a record's C1 and bidirectional controls on stdout: escaped alike", async () => {
    const me = (await emu.api.get('/me')).body as { workspace: { name: string } };
    me.workspace.name = 'Demo\u009b2J\u202e';
    const runs = [];
    for (const where of ['terminal', 'pipe'] as const) {
      await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 200, content_type: 'application/json', body: JSON.stringify(me), times: 1 });
      runs.push(await at(where, ['me', '--json', 'workspace']));
    }
    const [terminal, pipe] = runs;
    expect(terminal!.stdout).toBe(pipe!.stdout);
    expect(pipe!.stdout).toContain('"name": "Demo\\u009b2J\\u202e"');
    expect(pipe!.stdout).not.toMatch(RAW);
    expect([terminal!.code, pipe!.code]).toEqual([0, 0]);
  });
});

describe('a usage error carries "code": "usage"', () => {
  it("a flag's value refused, and the parser's own refusal", async () => {
    const bad = await runCli(['status', 'post_x', '--timeout', 'soon', '--json'], { env: emu.env() });
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { type: 'usage', code: 'usage', exit_code: 2 } });
    expect(bad.code).toBe(2);
    const parser = await runCli(['me', '--nope', '--json'], { env: emu.env() });
    expect(JSON.parse(parser.stderr)).toMatchObject({ error: { type: 'usage', code: 'usage', exit_code: 2 } });
    expect(parser.code).toBe(2);
  });
});
