/**
 * Every place that names the exit codes says what the one table says
 * (src/exit-codes.ts: code, meaning, the commands that end with it): the root
 * help, the reference pages (docs/commands/), the man pages (man/),
 * docs/reliability.md's table and bin/vidpub.js's signal codes. Help and the
 * reference are rendered from the table; this reads what they wrote, so a
 * renderer that drops or reorders a code fails here, as does a stale page, a
 * guide whose table is not the table's, or a bin whose signals say other codes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { exitCodeTable } from '../../src/cli/reference/exit-codes.js';
import { roffText } from '../../src/cli/reference/roff.js';
import { renderRootHelp } from '../../src/cli/line/root-help.js';
import { InterruptedError, OutcomeUnknownError, UsageError, exitCodeOf } from '../../src/errors.js';
import { EXIT_CODES, ExitCode, usedBy, type ExitCodeRow } from '../../src/exit-codes.js';
import { ROOT } from '../support/build.js';

const ROWS: readonly ExitCodeRow[] = EXIT_CODES;

/** A command's pages: vidpub-batch-report for the subcommand batch report. */
const pageOf = (name: string) => `vidpub-${name.replaceAll(' ', '-')}`;

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The rows of the first Markdown table after `heading` (up to the next heading), each as its cells. */
function markdownRows(path: string, heading: string): string[][] {
  const section = read(path).split(`\n${heading}\n`)[1];
  expect(section, `"${heading}" in ${path}`).toBeDefined();
  const body = section!.split(/\n#{1,3} /)[0]!;
  return [...body.matchAll(/^\| (\d+) \|(.*)\|$/gm)].map((m) => [m[1]!, ...m[2]!.split(' | ').map((c) => c.trim())]);
}

/** The EXIT STATUS of a man page: each `.TP` / `\fBcode\fR` / meaning, as [code, meaning]. */
function manStatus(path: string): [number, string][] {
  const section = read(path).split('\n.SH "EXIT STATUS"\n')[1];
  expect(section, `EXIT STATUS in ${path}`).toBeDefined();
  const body = section!.split('\n.SH ')[0]!;
  return [...body.matchAll(/^\.TP\n\\fB(\d+)\\fR\n(.*)$/gm)].map((m) => [Number(m[1]), m[2]!]);
}

function codesOf(command: string): number[] {
  return ROWS.filter((r) => usedBy(r, command)).map((r) => r.code);
}

describe('the table of exit codes (src/exit-codes.ts)', () => {
  it('has each code and each name once, and names only commands of the registry', () => {
    expect(new Set(ROWS.map((r) => r.code)).size).toBe(ROWS.length);
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
    expect(ROWS.map((r) => r.code)).toEqual(expect.arrayContaining([0, 1, 2, 9, 130, 143, 129]));
    const names = COMMANDS.map((c) => c.name);
    for (const r of ROWS) if (r.commands !== 'every') expect(names, `the commands of exit code ${r.code}`).toEqual(expect.arrayContaining([...r.commands]));
    expect(() => exitCodeTable()).not.toThrow();
  });

  it('gives the error classes their codes and exitCodeOf the signals\' codes', () => {
    for (const r of ROWS) expect((ExitCode as Record<string, number>)[r.name]).toBe(r.code);
    expect(new UsageError('x').exitCode).toBe(ROWS.find((r) => r.name === 'USAGE')!.code);
    for (const r of ROWS.filter((row) => row.signal)) {
      const controller = new AbortController();
      controller.abort(Object.assign(new Error(`received ${r.signal}`), { signal: r.signal }));
      expect(exitCodeOf(new InterruptedError('stopped'), controller.signal), r.signal).toBe(r.code);
      // An unknown outcome stays one whatever stopped it.
      expect(exitCodeOf(new OutcomeUnknownError('?', { request: 'POST /v1/posts', reason: 'interrupt' }), controller.signal)).toBe(ExitCode.OUTCOME_UNKNOWN);
    }
  });
});

describe('every place that names the exit codes says what the table says', () => {
  it('the root help: each code with its meaning, in the table\'s order, and no other', () => {
    for (const columns of [40, 80, 100, 200]) {
      const section = renderRootHelp(columns).split('\nExit codes:\n')[1]!.split('\n\n')[0]!;
      const lines = section.split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(Math.max(columns, 40));
      const entries = lines.flatMap((line) => line.trim().split(' · '));
      expect(entries).toEqual(ROWS.map((r) => `${r.code} ${r.meaning}`));
    }
  });

  it('the reference: docs/commands/exit-codes.md lists each code with its meaning and commands', () => {
    const every = 'every command';
    const expected = ROWS.map((r) => [String(r.code), r.meaning, r.commands === 'every' ? every : COMMANDS.filter((c) => usedBy(r, c.name)).map((c) => `[${c.name}](${pageOf(c.name)}.md)`).join(', ')]);
    // The page escapes Markdown in the meaning (none of today's needs it but a `code`).
    const rows = markdownRows('docs/commands/exit-codes.md', '# Exit codes').map(([code, meaning, commands]) => [code, meaning!.replace(/\\(.)/g, '$1'), commands]);
    expect(rows).toEqual(expected);
  });

  it('each command\'s reference page and man page list the codes it can end with, with their meanings', () => {
    for (const c of COMMANDS) {
      const rows = ROWS.filter((r) => usedBy(r, c.name));
      expect(rows.map((r) => r.code)).toEqual(codesOf(c.name));
      const page = markdownRows(`docs/commands/${pageOf(c.name)}.md`, '## Exit codes').map(([code, meaning]) => [Number(code), meaning!.replace(/\\(.)/g, '$1')]);
      expect(page, `docs/commands/${pageOf(c.name)}.md`).toEqual(rows.map((r) => [r.code, r.meaning]));
      expect(manStatus(`man/${pageOf(c.name)}.1`), `man/${pageOf(c.name)}.1`).toEqual(rows.map((r) => [r.code, roffText(r.meaning)]));
    }
    expect(codesOf('logout')).toEqual([0, 1, 2, 130, 143, 129]);
    expect(codesOf('publish')).toContain(ExitCode.CONFLICT);
  });

  it('man/vidpub.1 lists every code with its meaning', () => {
    expect(manStatus('man/vidpub.1')).toEqual(ROWS.map((r) => [r.code, roffText(r.meaning)]));
  });

  it('docs/reliability.md explains each code with the table\'s meaning, in its order, and no other', () => {
    // Its third column (examples) is the guide's own; a `code span` in a meaning is formatting.
    const rows = markdownRows('docs/reliability.md', '## Exit codes').map(([code, meaning]) => [Number(code), meaning!.replace(/`/g, '')]);
    expect(rows).toEqual(ROWS.map((r) => [r.code, r.meaning]));
  });

  it('bin/vidpub.js exits on a second signal with the table\'s code for it', () => {
    // bin/vidpub.js writes its table out (see the comment there): read it as written.
    const literal = /const EXIT_CODES = \{([^}]*)\};/.exec(read('bin/vidpub.js'))?.[1];
    expect(literal, 'const EXIT_CODES = {...} in bin/vidpub.js').toBeDefined();
    const bin = Object.fromEntries(literal!.split(',').map((pair) => pair.split(':').map((s) => s.trim())).map(([signal, code]) => [signal, Number(code)]));
    expect(bin).toEqual(Object.fromEntries(ROWS.filter((r) => r.signal).map((r) => [r.signal, r.code])));
  });
});
