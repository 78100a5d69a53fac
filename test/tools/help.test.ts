import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, commandTerm } from '../../src/cli/commands/index.js';
import { loadCommand } from '../../src/cli/commands/load.js';
import { fastPath } from '../../src/cli/line/fast-path.js';
import { GLOBAL_FLAGS, flagTerm } from '../../src/cli/line/flags.js';
import { ROOT_EXAMPLES, renderRootHelp } from '../../src/cli/line/root-help.js';
import { EXIT_CODES } from '../../src/exit-codes.js';
import { runCli } from '../support/cli.js';
import { ROOT, ensureBuilt, runAsync, BIN } from '../support/build.js';
import { escapeRegExp } from '../support/regexp.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

function fast(argv: string[], columns?: number): { code: number | undefined; out: string } {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = fastPath(argv, { version: '9.9.9', io: { stdout, columns } });
  stdout.end();
  return { code, out };
}

describe('vidpub --help (the root help)', () => {
  it('lists every command with its summary, every global flag, examples and the exit codes', () => {
    const text = renderRootHelp(100);
    for (const c of COMMANDS) expect(text).toMatch(new RegExp(`^  ${commandTerm(c).replace(/[[\]]/g, '\\$&')} +${escapeRegExp(c.summary)}$`, 'm'));
    for (const o of GLOBAL_FLAGS) expect(text).toContain(`  ${flagTerm(o)} `);
    expect(text).toMatch(/^ {2}-V, --version +print the version$/m);
    expect(text).toMatch(/^ {2}-h, --help +show help for a command$/m);
    expect(text).toMatch(/--max-wait <dur> +longest total wait for rate limits \(90s, 5m, 1h\) \(default: 10m\)$/m);
    // commands first, then the global flags
    expect(text.indexOf('Account commands:')).toBeLessThan(text.indexOf('Global flags (every command takes them):'));
    expect(text).toMatch(/^Examples:$/m);
    for (const e of ROOT_EXAMPLES) expect(text).toContain(`  $ ${e}\n`);
    expect(text).toMatch(/^Exit codes:$/m);
    // Each from the table of exit codes (test/docs/exit-codes.test.ts checks their order and that there is no other).
    for (const { code, meaning } of EXIT_CODES) expect(text).toContain(`${code} ${meaning}`);
    expect(text).toContain('9 outcome unknown');
  });

  it('wraps long descriptions to the terminal width, aligned under the description column', () => {
    const text = renderRootHelp(80);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(text).toMatch(/^ {2}--no-input {18}never prompt; .*\n {30}\S/m);
    // Wide terminals stop at 120 columns.
    expect(renderRootHelp(300)).toBe(renderRootHelp(120));
  });

  it('the fast path (no commander) prints exactly what the full parser prints', async () => {
    for (const columns of [100, 72]) {
      const viaCommander = await runCli(['--json', '--help'], { columns });
      expect(viaCommander.code).toBe(0);
      expect(fast(['--help'], columns).out).toBe(viaCommander.stdout);
      expect(fast(['-h'], columns).out).toBe(viaCommander.stdout);
      expect(fast(['help'], columns).out).toBe(viaCommander.stdout);
      expect(fast([], columns).out).toBe(viaCommander.stdout);
      // `vidpub` alone and `vidpub help` through main() are the same text.
      expect((await runCli([], { columns })).stdout).toBe(viaCommander.stdout);
      expect((await runCli(['help'], { columns })).stdout).toBe(viaCommander.stdout);
    }
  });

  it('the fast path answers --version and leaves everything else to the full parser', async () => {
    expect(fast(['--version'])).toEqual({ code: 0, out: '9.9.9\n' });
    expect(fast(['-V'])).toEqual({ code: 0, out: '9.9.9\n' });
    for (const argv of [['me'], ['--json', '--version'], ['--help', 'me'], ['me', '--help'], ['--nope']]) expect(fast(argv)).toEqual({ code: undefined, out: '' });
    const v = await runCli(['--json', '--version']);
    expect(v).toEqual({ code: 0, stdout: '0.0.0-test\n', stderr: '' });
  });

  it('the fast path answers no command line bin/vidpub.js sends straight to the CLI (a word other than help, or two words)', () => {
    // bin/vidpub.js loads dist/fast.cjs only for nothing, one option or `help`.
    for (const c of COMMANDS) expect(fast([c.name])).toEqual({ code: undefined, out: '' });
    for (const argv of [['helpme'], ['version'], ['me', '--version'], ['--help', '--json'], ['help', 'me']]) expect(fast(argv)).toEqual({ code: undefined, out: '' });
  });

  it('an unknown command or flag is a usage error (exit 2) with a pointer to --help', async () => {
    const r = await runCli(['uplaod']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'uplaod'/);
    expect(r.stderr).toMatch(/\(Did you mean upload\?\)|run with --help/);
    const f = await runCli(['--frobnicate']);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/unknown option '--frobnicate'/);
  });
});

describe('vidpub COMMAND --help', () => {
  for (const entry of COMMANDS) {
    it(`${entry.name}: a one-line summary, a description, its flags and at least one example`, async () => {
      expect(entry.summary).toMatch(/^[A-Z][^\n]{9,70}$/);
      const spec = await loadCommand(entry.name);
      expect(spec.examples.length).toBeGreaterThan(0);
      // Each example runs this command (global flags may come first, a pipe or an assignment around it).
      for (const e of spec.examples) expect(e).toMatch(new RegExp(`\\bvidpub\\b[^|;]*?(?:^|\\s)${entry.name}(?:\\s|$|\\))`));
      const r = await runCli([...entry.name.split(' '), '--help'], { columns: 100 });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: vidpub ${entry.name}\\b`));
      const description = (spec.description ?? entry.summary).split(/\s+/).slice(0, 6).join(' ');
      expect(r.stdout.replace(/\s+/g, ' ')).toContain(description);
      // the global flags are listed once, in vidpub --help, not under every command
      expect(r.stdout).not.toMatch(/^Global Options:$|^ {2}--no-journal /m);
      expect(r.stdout).toMatch(/^Global flags \(--json, --quiet…\): see vidpub --help$/m);
      expect(r.stdout).not.toMatch(/\(default: "/);
      expect(r.stdout).toMatch(/^Examples:\n {2}\$ \S/m);
      // long examples are broken before a flag with a shell line continuation
      for (const e of spec.examples) expect(r.stdout.replace(/ \\\n +/g, ' ')).toContain(`  $ ${e}`);
    });
  }
});

describe('the built bin', () => {
  beforeAll(() => ensureBuilt());

  it('--version prints the package version; --help is the root help', async () => {
    const v = await runAsync(process.execPath, [BIN, '--version']);
    expect(v).toEqual({ status: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const h = await runAsync(process.execPath, [BIN, '--help']);
    expect(h.status).toBe(0);
    // Not a terminal: 100 columns, as in-process.
    expect(h.stdout).toBe(renderRootHelp(undefined));
  });

  // Every command's --help through its bundle, as bin/vidpub.js loads it (dist/main.js, or dist/me.js
  // and dist/upload.js for theirs), in ONE node process: what is proven is that each command's
  // module is in the bundle and runs, which one process shows for all; the process boundary itself
  // is the runs above and the exit code below.
  it('loads every command from the bundle (each --help exits 0) and passes exit codes through', { timeout: 120_000 }, async () => {
    const script = `
      const { PassThrough, Readable } = require('node:stream');
      const names = JSON.parse(process.argv[1]);
      (async () => {
        const results = [];
        for (const name of names) {
          const argv = name.split(' ');
          const bundle = ['me', 'upload'].includes(argv[0]) ? argv[0] : 'main';
          const { main, createProcessContext } = require(${JSON.stringify(join(ROOT, 'dist'))} + '/' + bundle + '.js');
          let stdout = '';
          let stderr = '';
          const io = { stdin: Readable.from([]), stdout: new PassThrough(), stderr: new PassThrough(), stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false, columns: undefined };
          io.stdout.on('data', (c) => (stdout += c));
          io.stderr.on('data', (c) => (stderr += c));
          const code = await main([...argv, '--help'], { ...createProcessContext({ signal: new AbortController().signal }), io });
          await new Promise((r) => setImmediate(r));
          results.push({ name, bundle, status: code, stdout, stderr });
        }
        process.stdout.write(JSON.stringify(results));
      })();`;
    const r = await runAsync(process.execPath, ['-e', script, JSON.stringify(COMMANDS.map((c) => c.name))], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const results = JSON.parse(r.stdout) as { name: string; bundle: string; status: number; stdout: string; stderr: string }[];
    expect(results.map((x) => x.name)).toEqual(COMMANDS.map((c) => c.name));
    expect(new Set(results.map((x) => x.bundle))).toEqual(new Set(['main', 'me', 'upload']));
    for (const x of results) {
      expect({ name: x.name, status: x.status, stderr: x.stderr }).toEqual({ name: x.name, status: 0, stderr: '' });
      expect(x.stdout).toMatch(/Examples:/);
    }
    const bad = await runAsync(process.execPath, [BIN, 'completion', 'tcsh']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown shell "tcsh": use bash, zsh or fish/);
  });
});
