/**
 * The manual and the tool say the same thing (issue 39, item 20: eleven places
 * where they did not). The generated reference (docs/commands/) cannot drift;
 * these tests hold the hand-written guides to the registry:
 * - every flag of a command is in that command's guide section, and in its flag
 *   table when the section has one (emulator.md's table lacked eight);
 * - every global flag is in getting-started.md's list and configuration.md's section;
 * - a page of the manual a message sends the user to exists, and the fault
 *   help's page documents every fault key;
 * - the README and getting-started.md give the one command CI runs.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { GLOBAL_FLAGS, GLOBAL_VALUE_FLAGS, type FlagSpec } from '../../src/cli/line/flags.js';
import { ROOT } from '../support/build.js';

const page = (name: string) => readFileSync(join(ROOT, name), 'utf8');

/** Each command's guide section: its page and heading (a level-1 heading: the whole page). */
const GUIDE: Record<string, [string, string]> = {
  login: ['docs/getting-started.md', '### `vidpub login`'],
  logout: ['docs/getting-started.md', '### `vidpub logout`'],
  profiles: ['docs/getting-started.md', '### `vidpub profiles`'],
  config: ['docs/configuration.md', '## `vidpub config`: caption defaults per platform'],
  me: ['docs/getting-started.md', '### `vidpub me`'],
  destinations: ['docs/getting-started.md', '### `vidpub destinations`'],
  options: ['docs/getting-started.md', '### `vidpub options`'],
  completion: ['docs/getting-started.md', '### `vidpub completion`'],
  version: ['docs/getting-started.md', '### `vidpub version`'],
  upload: ['docs/publishing.md', '## `vidpub upload`'],
  import: ['docs/publishing.md', '## `vidpub import`'],
  post: ['docs/publishing.md', '## `vidpub post`'],
  publish: ['docs/publishing.md', '## `vidpub publish`'],
  status: ['docs/publishing.md', '## `vidpub status`'],
  open: ['docs/publishing.md', '## `vidpub open` and `--web`'],
  history: ['docs/publishing.md', '## `vidpub history`'],
  retry: ['docs/publishing.md', '## `vidpub retry`'],
  batch: ['docs/batch.md', '# Batch'],
  'batch report': ['docs/batch.md', '### Merging shard reports: `vidpub batch report`'],
  'batch matrix': ['docs/scripts-ci-cron.md', '### A batch over many runners: shards'],
  schedule: ['docs/batch.md', '### Publishing a backlog'],
  emulator: ['docs/emulator.md', '# The emulator'],
  demo: ['docs/emulator.md', '## `vidpub demo`'],
  mcp: ['docs/mcp.md', '## `vidpub mcp`'],
  watch: ['docs/scripts-ci-cron.md', '### Following what was scheduled: `vidpub watch --once`'],
};

/** The lines from `heading` to the next heading of its level or above (fenced blocks are not headings). */
export function sectionOf(text: string, heading: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return undefined;
  const level = /^#+/.exec(heading)![0].length;
  let fence = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    if (/^(```|~~~)/.test(lines[end]!)) fence = !fence;
    if (!fence && new RegExp(`^#{1,${level}} `).test(lines[end]!)) break;
  }
  return lines.slice(start, end).join('\n');
}

const named = (f: FlagSpec) => new RegExp(`--${f.name}(?![a-z-])`);
const visible = (flags: readonly FlagSpec[] | undefined) => (flags ?? []).filter((f) => !f.hidden);

describe('the guides name every flag of the registry', () => {
  it('every command has a guide section', () => {
    expect(COMMANDS.map((c) => c.name).filter((n) => !GUIDE[n])).toEqual([]);
    for (const [name, [file, heading]] of Object.entries(GUIDE)) expect(sectionOf(page(file), heading), `${name}: ${file} ${heading}`).toBeDefined();
  });

  for (const c of COMMANDS) {
    it(`vidpub ${c.name}: each flag in its section of the guide, and in its flag table if it has one`, () => {
      const [file, heading] = GUIDE[c.name]!;
      const section = sectionOf(page(file), heading) ?? '';
      expect(visible(c.flags).filter((f) => !named(f).test(section)).map((f) => `--${f.name}`), `missing from ${file} ${heading}`).toEqual([]);
      const rows = section.split('\n').filter((l) => /^\| `-/.test(l));
      if (rows.length > 0) {
        const missing = visible(c.flags).filter((f) => !rows.some((r) => named(f).test(r.split(' | ')[0]!)));
        expect(missing.map((f) => `--${f.name}`), `missing from the flag table of ${file} ${heading}`).toEqual([]);
      }
    });
  }

  it("every global flag is in getting-started.md's list and in configuration.md's Global flags", () => {
    const list = /Every command also takes the \[global flags\]\([^)]*\)\s*\(([^)]*)\)/.exec(page('docs/getting-started.md'))?.[1] ?? '';
    const config = sectionOf(page('docs/configuration.md'), '## Global flags') ?? '';
    expect(list).toContain('--json');
    expect(visible(GLOBAL_FLAGS).filter((f) => !named(f).test(list)).map((f) => `--${f.name}`), "getting-started.md's list").toEqual([]);
    expect(visible(GLOBAL_FLAGS).filter((f) => !named(f).test(config)).map((f) => `--${f.name}`), "configuration.md's Global flags").toEqual([]);
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('messages that send the user to the manual', () => {
  it('every docs/ page named in a message of src/ exists', () => {
    const named = new Set<string>();
    for (const f of sources(join(ROOT, 'src'))) {
      // Strings only (quotes or back quotes), not comments.
      for (const m of readFileSync(f, 'utf8').matchAll(/['`"][^'`"\n]*?\b(docs\/[\w./-]+\.md)/g)) named.add(m[1]!);
    }
    expect([...named].length).toBeGreaterThan(0);
    expect([...named].filter((p) => !statSync(join(ROOT, p), { throwIfNoEntry: false })?.isFile())).toEqual([]);
  });

  it("the fault help's page documents every fault key the emulator takes", async () => {
    const { parseControl } = await import('../../src/cli/rehearsal/emulator-controls.js');
    let hint = '';
    try {
      parseControl('fault', undefined, false);
    } catch (err) {
      hint = (err as { hint?: string }).hint ?? '';
    }
    const doc = /(docs\/[\w-]+\.md)/.exec(hint)?.[1];
    expect(doc).toBe('docs/emulator.md');
    const text = page(doc!);
    const keys = ['method', 'path', 'action', 'status', 'ms', 'body', 'content_type', 'retry_after', 'times', 'media_fail', 'destination_fail'];
    expect(keys.filter((k) => !text.includes(k))).toEqual([]);
    for (const action of ['reset_after_handling', 'reset_before_handling', 'status', 'delay', 'hang', 'trickle']) expect(text).toContain(action);
  });
});

describe('what CI runs', () => {
  it('the README and getting-started.md give the same command, and .ci/run runs the checks they name', () => {
    const block = (text: string) => /The tests, exactly as CI runs them[\s\S]*?```sh\n([\s\S]*?)```/.exec(text)?.[1];
    const readme = block(page('README.md'));
    expect(readme).toBe('.ci/run\n');
    expect(block(page('docs/getting-started.md'))).toBe(readme);
    const run = page('.ci/run');
    for (const step of ['npm ci', 'npm run typecheck', 'npm run lint', 'npm test']) expect(run).toContain(step);
  });
});

/** Shell words of a line (quotes kept together, not undone). */
function words(line: string): string[] {
  return line.match(/(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"])+/g) ?? [];
}

/**
 * The vidpub command lines of a block: `vidpub …` (or `$ vidpub …`, `npx vidpub …`), up to a
 * pipe, a `;`, `&&` or a comment, continuation lines joined.
 */
export function vidpubLines(body: string): string[][] {
  const joined = body.replace(/\\\n\s*/g, ' ');
  const out: string[][] = [];
  for (const raw of joined.split('\n')) {
    for (const part of raw.replace(/^\s*\$\s+/, '').split(/\s(?:\||&&|;|\|\||#)\s/)) {
      const w = words(part.trim());
      const at = w.findIndex((x, i) => x === 'vidpub' && (i === 0 || /^(npx|sudo|exec|time|\S+=\S*)$/.test(w[i - 1]!) || w[i - 1]!.endsWith('(')));
      if (at >= 0) out.push(w.slice(at + 1));
    }
  }
  return out;
}

describe('the examples of the guides, those that cannot run here too', () => {
  it('finds vidpub command lines in a block', () => {
    expect(vidpubLines('$ vidpub post clip.mp4 --to a \\\n  --caption "x y" | jq .\nnpx vidpub me --json # c')).toEqual([
      ['post', 'clip.mp4', '--to', 'a', '--caption', '"x y"'],
      ['me', '--json'],
    ]);
  });

  it('name only commands and flags that exist (a renamed flag fails here, even in a skipped block)', async () => {
    const { extractBlocks } = await import('./doctest.js');
    const { manualPages } = await import('./pages.js');
    const { findCommand } = await import('../../src/cli/commands/index.js');
    const { VERSION_FLAG, HELP_FLAG, anyFlags, flagNames } = await import('../../src/cli/line/flags.js');
    const globals = new Set(anyFlags([VERSION_FLAG, HELP_FLAG, ...GLOBAL_FLAGS]).flatMap(flagNames));
    const wrong: string[] = [];
    let checked = 0;
    for (const file of manualPages().filter((p) => !p.startsWith('docs/commands/') && p !== 'CHANGELOG.md')) {
      for (const block of extractBlocks(page(file))) {
        if (block.kind === 'output' || block.kind === 'setup' || block.kind === 'file') continue;
        for (const argv of vidpubLines(block.body)) {
          // The command word: global flags before it skipped, with their values.
          let name: string | undefined;
          for (let i = 0; i < argv.length && name === undefined; i++) {
            if (!argv[i]!.startsWith('-')) name = argv[i];
            else if (GLOBAL_VALUE_FLAGS.has(argv[i]!)) i++;
          }
          // Not a command line: a placeholder, output ("vidpub mcp: …"), help.
          if (name === undefined || /^[<[{$]|^[A-Z]|:$/.test(name) || name === 'help') continue;
          const entry = findCommand(name.replace(/\|.*$/, ''));
          if (!entry) {
            wrong.push(`${file}:${block.line}: no command "${name}"`);
            continue;
          }
          const known = new Set([...globals, ...anyFlags(entry.flags ?? []).flatMap(flagNames)]);
          for (const a of argv) {
            const flag = /^(--?[A-Za-z][\w-]*)/.exec(a)?.[1];
            if (!flag || !a.startsWith('-') || /^-\d/.test(a)) continue;
            checked++;
            if (!known.has(flag)) wrong.push(`${file}:${block.line}: vidpub ${entry.name} has no ${flag}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });
});
