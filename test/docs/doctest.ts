/**
 * Runs the shell examples of a Markdown manual and compares the output it
 * shows with what they print. Used by test/docs/manual.test.ts on README.md and every page of docs/.
 *
 * Marking convention (HTML comments, invisible on GitHub). The comment goes on
 * the line(s) right before a fenced block (blank lines between are allowed):
 *
 *   <!-- doctest: run -->         the block is a shell script: it runs in the
 *                                 session and must exit 0.
 *   <!-- doctest: output -->      the block is what the previous `run` block
 *                                 printed (stdout and stderr, in order);
 *                                 `output tail`: the end of what it printed.
 *   <!-- doctest: shows CMD -->   the block is what CMD prints (CMD runs in
 *                                 the session; e.g. a file's contents).
 *   <!-- doctest: transcript -->  the block holds `$ command` lines, each
 *                                 followed by what it prints; each command runs
 *                                 in turn and the whole block must match.
 *                                 `transcript tty`: the commands run on a
 *                                 pseudo-terminal (`script`) of 100 columns
 *                                 (its size set), NO_COLOR=1, for output
 *                                 shown as at a terminal;
 *                                 `transcript tty 60`: at the width it claims.
 *   <!-- doctest: file NAME -->   the block is saved as NAME in the session's
 *                                 directory (a fixture, a script), for what
 *                                 follows to use.
 *   <!-- doctest: skip REASON --> the block cannot run here (an MCP client's
 *                                 config, a CI `uses:` step, a global install,
 *                                 a synopsis); it is counted and named.
 *   <!-- doctest: setup
 *   shell lines -->               runs hidden setup in the session (no block
 *                                 follows necessarily; nothing is compared).
 *
 * Every fenced block must be marked: an unmarked one fails the run, so a new
 * example cannot be added without deciding how it is checked.
 *
 * The session: one bash state carried from block to block (variables,
 * functions and the working directory), a throwaway HOME and config dir,
 * `vidpub` and `npx vidpub` running this checkout's build, TZ=UTC: its bin, or
 * with `inProcess` its main in the test's process (test/support/in-process-vidpub.ts). Every
 * `http://127.0.0.1:4010` is replaced with the emulator the runner started,
 * and a line that starts an emulator in the background (`vidpub emulator &`)
 * or stops it (`kill %1`) is left out: the runner's emulator stands in.
 *
 * Output is compared line by line after normalising only what differs from one
 * run to the next: ids (`post_…`, `med_…`), timestamps and dates, the
 * emulator's port, the throwaway HOME (shown as /tmp/you), durations and
 * transfer rates, and the timing-dependent progress lines (`Processing: 25%`).
 * A line holding only `…` in a shown block stands for any number of lines.
 * Trailing whitespace is compared (a line that ends in a tab must show it).
 *
 * Ids carry over: once a shown block matched, each post or video id it shows
 * stands for the id that was really printed, so a later command written with
 * the shown id (`vidpub status post_747c3e33c95cb56d`) runs with the real one.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { InProcessVidpub } from '../support/in-process-vidpub.js';

export type BlockKind = 'run' | 'output' | 'transcript' | 'shows' | 'file' | 'skip' | 'setup' | 'unmarked';

export interface DocBlock {
  kind: BlockKind;
  /** 1-based line of the opening fence (of the comment for `setup`). */
  line: number;
  /** The nearest heading above the block. */
  section: string;
  lang: string;
  body: string;
  /** The reason given with `skip`, `tail` for `output tail`, the command of `shows`. */
  reason?: string;
}

const MARK = /^<!--\s*doctest:\s*(run|output|transcript|shows|file|skip|setup)\b([\s\S]*?)-->\s*$/;

/** The fenced blocks of `markdown`, each with its marker (or `unmarked`), plus the setup comments, in order. */
export function extractBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let section = '(top)';
  let pending: { kind: BlockKind; reason?: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      section = heading[1]!.replace(/`/g, '');
      continue;
    }
    if (line.startsWith('<!--') && /doctest:/.test(line)) {
      // A marker may span lines (setup).
      let text = line;
      let j = i;
      while (!text.includes('-->') && j + 1 < lines.length) text += '\n' + lines[++j];
      const m = MARK.exec(text.trim());
      if (!m) throw new Error(`line ${i + 1}: unknown doctest marker: ${text.trim()}`);
      const kind = m[1] as BlockKind;
      const rest = m[2]!.trim();
      if (kind === 'file' && !/^[\w.-]+$/.test(rest)) throw new Error(`line ${i + 1}: "doctest: file" needs a plain file name`);
      if (kind === 'shows' && !rest) throw new Error(`line ${i + 1}: "doctest: shows" needs a command`);
      if (kind === 'setup') blocks.push({ kind, line: i + 1, section, lang: 'sh', body: rest });
      else {
        if (kind === 'skip' && !rest) throw new Error(`line ${i + 1}: "doctest: skip" needs a reason`);
        pending = { kind, reason: rest || undefined };
      }
      i = j;
      continue;
    }
    const fence = /^(```+|~~~+)\s*([\w-]*)/.exec(line);
    if (fence) {
      const close = fence[1]!;
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !lines[j]!.startsWith(close)) body.push(lines[j++]!);
      blocks.push({ kind: pending?.kind ?? 'unmarked', reason: pending?.reason, line: i + 1, section, lang: fence[2] ?? '', body: body.join('\n') });
      pending = undefined;
      i = j;
      continue;
    }
    if (pending && line.trim() !== '') throw new Error(`line ${i + 1}: a doctest marker must be followed by a fenced block`);
  }
  return blocks;
}

export function blockName(b: DocBlock): string {
  return `line ${b.line} (${b.section})`;
}

// ------------------------------------------------------------------ normalising

export interface NormaliseOptions {
  /** The emulator's base origin, e.g. http://127.0.0.1:39123, shown as http://127.0.0.1:4010. */
  origin?: string;
  /** The throwaway HOME, shown as /tmp/you. */
  home?: string;
  /** The session's working directory, shown as /tmp/work. */
  cwd?: string;
}

const PROGRESS = /^(Uploading|Downloading|Processing)\b.*: \d+%( \(.*\))?$/;

/** Replaces what is specific to one run with fixed placeholders. */
export function normalise(text: string, opts: NormaliseOptions = {}): string[] {
  let t = text;
  if (opts.origin) t = t.split(opts.origin).join('http://127.0.0.1:4010');
  if (opts.home) t = t.split(opts.home).join('/tmp/you');
  if (opts.cwd) t = t.split(opts.cwd).join('/tmp/work');
  t = t
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:4010')
    .replace(/\b(post|med)_[0-9a-f]{16}\b/g, '$1_<id>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?/g, '<time>')
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, '<date>')
    .replace(/\b\d{1,2}:\d{2}:\d{2}( [AP]M)?/g, '<clock>')
    .replace(/\b[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M\b/g, '<clock>')
    // …and a date whose time a narrow terminal wrapped onto the next line.
    .replace(/\b[A-Z][a-z]{2} \d{1,2}, \d{4}\b/g, '<date>')
    .replace(/\b\d+(\.\d+)? ?(ms|s|MB\/s)\b/g, '<n> $2')
    .replace(/\bremaining=\d+\//g, 'remaining=<n>/')
    // How far a time is from now ("5 s ago", "in 10 m 3 s"): the emulator's clock runs ahead of the machine's in the tests.
    .replace(/(<clock> [A-Z]{2,5}), (?:in [^()\n]+|[^()\n]+ ago) \(/g, '$1, <relative> (');
  return t
    .split('\n')
    .filter((l) => !PROGRESS.test(l))
    .map((l) => l.replace(/\r$/, ''));
}

/** Compares shown lines (with `…` lines as wildcards) with actual lines; returns a diff text, or undefined when they match. */
export function compareLines(shown: string[], actual: string[]): string | undefined {
  const trimEnd = (a: string[]) => {
    const b = [...a];
    while (b.length && b[b.length - 1] === '') b.pop();
    return b;
  };
  const s = trimEnd(shown);
  const a = trimEnd(actual);
  const match = (si: number, ai: number): boolean => {
    if (si === s.length) return ai === a.length;
    if (s[si]!.trim() === '…') {
      for (let k = ai; k <= a.length; k++) if (match(si + 1, k)) return true;
      return false;
    }
    return ai < a.length && s[si] === a[ai] && match(si + 1, ai + 1);
  };
  if (match(0, 0)) return undefined;
  const show = (l: string) => JSON.stringify(l);
  return ['shown in the document:', ...s.map((l) => '  ' + show(l)), 'printed:', ...a.map((l) => '  ' + show(l))].join('\n');
}

// ------------------------------------------------------------------ transcripts

/** Splits a transcript block into its commands and the output shown after each (a `\` at the end continues a command). */
export function parseTranscript(body: string): Array<{ command: string; shown: string[] }> {
  const steps: Array<{ command: string; shown: string[] }> = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      while (command.endsWith('\\') && i + 1 < lines.length) command = command.slice(0, -1) + '\n' + lines[++i];
      steps.push({ command, shown: [] });
    } else if (steps.length === 0) {
      throw new Error(`a transcript must start with "$ command", got: ${line}`);
    } else {
      steps[steps.length - 1]!.shown.push(line);
    }
  }
  return steps;
}

// ------------------------------------------------------------------ the session

export interface SessionOptions {
  /** The directory bin/vidpub.js is in the parent of. */
  root: string;
  /** The emulator's base URL, e.g. http://127.0.0.1:39123/v1. */
  baseUrl: string;
  home: string;
  cwd: string;
  env?: Record<string, string>;
  /** Longest run of one block (ms). */
  timeoutMs?: number;
  /** `vidpub` runs the build's main in this process (test/support/in-process-vidpub.ts) instead of starting the built bin each time. */
  inProcess?: InProcessVidpub;
}

/** Rewrites a block's script for the session: the emulator's address, no background emulator of its own. */
export function adaptScript(script: string, baseUrl: string): string {
  const origin = new URL(baseUrl).origin;
  return script
    .split('\n')
    .filter((l) => !/^\s*(npx\s+)?vidpub\s+emulator\b.*&\s*(#.*)?$/.test(l) && !/^\s*kill\s+%1\b/.test(l))
    .join('\n')
    .split('http://127.0.0.1:4010')
    .join(origin);
}

const STATE = '.doctest-state.sh';

/** `s` as one single-quoted shell word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs shell scripts one after another in one logical session: each runs in a
 * fresh bash that first loads the variables, functions and directory the
 * previous one left (saved to a file in HOME on exit).
 */
export class Session {
  private readonly bin: string;

  constructor(private readonly opts: SessionOptions) {
    // `vidpub` and `npx vidpub` as programs on PATH (so `sh script.sh`, `script` and `&` see them too).
    this.bin = `${opts.home}/.doctest-bin`;
    mkdirSync(this.bin, { recursive: true });
    if (opts.inProcess) opts.inProcess.writeScript(this.bin);
    else writeFileSync(`${this.bin}/vidpub`, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(opts.root + '/bin/vidpub.js')} "$@"\n`, { mode: 0o755 });
    writeFileSync(
      `${this.bin}/npx`,
      `#!/bin/sh\nif [ "$1" = vidpub ]; then shift; exec vidpub "$@"; fi\nPATH="\${PATH#*:}" exec npx "$@"\n`,
      { mode: 0o755 },
    );
  }

  get origin(): string {
    return new URL(this.opts.baseUrl).origin;
  }

  /** Runs `script` (stdout and stderr merged in order); with keepState false, what it defines is forgotten. */
  run(script: string, opts: { keepState?: boolean } = {}): Promise<{ code: number; output: string }> {
    const { home, cwd } = this.opts;
    const state = shellQuote(`${home}/${STATE}`);
    const names = shellQuote(`${home}/${STATE}.names`);
    // Without a process more than the bash of the script (a fork costs ~10 ms of CPU here, and the
    // manual runs a few hundred scripts): builtins only, lists read and written through files.
    const prelude = [
      // The variables there are at start (the environment's, bash's own): not saved.
      `declare -A __doctest_known; compgen -v > ${names}; while IFS= read -r __doctest_v; do __doctest_known[$__doctest_v]=1; done < ${names}`,
      `cd ${shellQuote(cwd)}`,
      `[ -f ${state} ] && . ${state}`,
      // Save what the script defines: variables not there at start, functions, directory. The state
      // file is sourced at the top level of the next script, where a \`declare\` is global. Written in
      // place: the scripts run one after another, and one killed while saving has failed already.
      `__doctest_save() {
  local __doctest_rc=$? __doctest_v __doctest_vars=()
  compgen -v > ${names}
  while IFS= read -r __doctest_v; do
    case $__doctest_v in __doctest_*) continue ;; esac
    [ -n "\${__doctest_known[$__doctest_v]-}" ] || __doctest_vars+=("$__doctest_v")
  done < ${names}
  {
    echo "__doctest_rc=$__doctest_rc"
    [ \${#__doctest_vars[@]} -eq 0 ] || declare -p "\${__doctest_vars[@]}" 2>/dev/null
    compgen -A function > ${names}
    while IFS= read -r __doctest_v; do case $__doctest_v in vidpub|npx|__doctest_*) ;; *) declare -f "$__doctest_v" ;; esac; done < ${names}
    printf 'cd %q\n' "$PWD"
  } > ${state}
}`,
      opts.keepState === false ? '' : `trap __doctest_save EXIT`,
      // $? in the next script is the exit code of the previous one (for \`echo $?\`).
      `__doctest_exit() { return "\${__doctest_rc:-0}"; }; __doctest_exit`,
    ].join('\n');
    // One pipe for stdout and stderr, so that what is read is in the order it was written.
    const full = `exec 2>&1\n${prelude}\n${adaptScript(script, this.opts.baseUrl)}\n`;
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', full], {
        cwd,
        env: {
          PATH: `${this.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
          HOME: home,
          TZ: 'UTC',
          LANG: 'C.UTF-8',
          TERM: 'dumb',
          ...this.opts.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
        reject(new Error(`timed out after ${this.opts.timeoutMs ?? 60_000} ms:\n${script}\n--- output so far:\n${output}`));
      }, this.opts.timeoutMs ?? 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? 1, output });
      });
    });
  }
}

// ------------------------------------------------------------------ running a document

/**
 * `command` run on a pseudo-terminal `columns` wide: `script` gives it one,
 * whose size (0 x 0 when the test has no terminal) is set before it runs, so
 * that what wraps to the terminal's width wraps as the page claims.
 */
export function onTerminal(command: string, columns: number): string {
  return `NO_COLOR=1 COLUMNS=${columns} script -qec ${shellQuote(`stty cols ${columns} rows 50; ${command}`)} /dev/null`;
}

/** The width of a `transcript tty [COLUMNS]` block's pseudo-terminal (100 unless it claims another); undefined for a plain transcript. */
export function ttyColumns(reason: string | undefined): number | undefined {
  if (!reason) return undefined;
  const m = /^tty(?:\s+(\d+))?$/.exec(reason);
  if (!m) throw new Error(`"doctest: transcript ${reason}": only "transcript tty" or "transcript tty COLUMNS" is known`);
  return m[1] ? Number(m[1]) : 100;
}

export interface DocReport {
  runs: number;
  matches: number;
  skipped: Array<{ name: string; reason: string }>;
  failures: Array<{ name: string; message: string }>;
  /** Milliseconds each block took, by name. */
  timings: Array<{ name: string; ms: number }>;
}

export interface RunDocumentOptions {
  /** Called before each block that runs anything (the manual test moves the emulator to a fresh minute). */
  beforeBlock?: () => Promise<void>;
}

/** Runs every block of `markdown` in order in `session`; never throws for a mismatch, reports it. */
export async function runDocument(markdown: string, session: Session, norm: NormaliseOptions, opts: RunDocumentOptions = {}): Promise<DocReport> {
  const report: DocReport = { runs: 0, matches: 0, skipped: [], failures: [], timings: [] };
  const ids = new Map<string, string>();
  const ID = /\b(?:post|med)_[0-9a-f]{16}\b/g;
  const learn = (shown: string, actual: string) => {
    const a = actual.match(ID) ?? [];
    const sh = shown.match(ID) ?? [];
    // Pair them in order only when the shown block does not skip lines (no wildcard).
    if (/^\s*…\s*$/m.test(shown)) return;
    sh.forEach((id, i) => {
      if (a[i]) ids.set(id, a[i]!);
    });
  };
  const withIds = (command: string) => command.replace(ID, (id) => ids.get(id) ?? id);
  const blocks = extractBlocks(markdown);
  let last: { name: string; output: string } | undefined;
  const fail = (b: DocBlock, message: string) => report.failures.push({ name: blockName(b), message });
  for (const b of blocks) {
    const name = blockName(b);
    const started = Date.now();
    if (b.kind !== 'skip' && b.kind !== 'unmarked' && b.kind !== 'output') await opts.beforeBlock?.();
    switch (b.kind) {
      case 'unmarked':
        fail(b, 'the block has no doctest marker (run, output, transcript, shows, file or skip REASON)');
        break;
      case 'skip':
        report.skipped.push({ name, reason: b.reason! });
        break;
      case 'setup': {
        const r = await session.run(b.body);
        if (r.code !== 0) fail(b, `setup exited ${r.code}:\n${r.output}`);
        break;
      }
      case 'run': {
        report.runs++;
        const r = await session.run(`set -eo pipefail\n${withIds(b.body)}`);
        last = { name, output: r.output };
        if (r.code !== 0) fail(b, `exited ${r.code}:\n${r.output}`);
        break;
      }
      case 'output': {
        if (!last) {
          fail(b, 'an output block with no run block before it');
          break;
        }
        const shown = normalise(b.body, norm);
        const diff = compareLines(b.reason === 'tail' ? ['…', ...shown] : shown, normalise(last.output, norm));
        if (diff) fail(b, `does not match what ${last.name} printed:\n${diff}`);
        else report.matches++;
        last = undefined;
        break;
      }
      case 'file': {
        const r = await session.run(`cat > ${shellQuote(b.reason!)} <<'__DOCTEST_EOF__'\n${b.body}\n__DOCTEST_EOF__`);
        if (r.code !== 0) fail(b, `could not write ${b.reason}:\n${r.output}`);
        break;
      }
      case 'shows': {
        report.runs++;
        const r = await session.run(withIds(b.reason ?? ''));
        const diff = compareLines(normalise(b.body, norm), normalise(r.output, norm));
        if (diff) fail(b, `does not match what "${b.reason}" printed:\n${diff}`);
        else report.matches++;
        break;
      }
      case 'transcript': {
        const tty = ttyColumns(b.reason);
        if (tty !== undefined && (await session.run('command -v script > /dev/null', { keepState: false })).code !== 0) {
          // Under CI, which installs it (.ci/run), a block skipped for want of it is a failure.
          if (process.env.CI) fail(b, 'no `script` program here to give it a pseudo-terminal: CI must install it (.ci/run)');
          else report.skipped.push({ name, reason: 'no `script` program here to give it a pseudo-terminal' });
          break;
        }
        report.runs++;
        let diff: string | undefined;
        for (const step of parseTranscript(b.body)) {
          const command = withIds(step.command);
          const r = await session.run(tty !== undefined ? onTerminal(command, tty) : command);
          diff = compareLines(normalise(step.shown.join('\n'), norm), normalise(r.output, norm));
          if (diff) {
            diff = `$ ${step.command}\n${diff}`;
            break;
          }
          learn(step.shown.join('\n'), r.output);
        }
        if (diff) fail(b, diff);
        else report.matches++;
        break;
      }
    }
    report.timings.push({ name, ms: Date.now() - started });
  }
  return report;
}

export function summary(r: DocReport): string {
  return (
    `${r.runs} blocks run, ${r.matches} outputs match, ${r.skipped.length} skipped, ${r.failures.length} failed` +
    (r.skipped.length ? `\nskipped:\n${r.skipped.map((s) => `  ${s.name}: ${s.reason}`).join('\n')}` : '') +
    (r.failures.length ? `\nfailed:\n${r.failures.map((f) => `  ${f.name}: ${f.message}`).join('\n\n')}` : '')
  );
}
