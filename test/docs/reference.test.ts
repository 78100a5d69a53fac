/**
 * The command reference (docs/commands/*.md, man/*.1) generated from the
 * registry by scripts/gen-reference.mjs: the committed files are what it
 * writes now, each man page says what `vidpub help COMMAND` says (flags,
 * descriptions with their defaults, usage, examples), and man and groff read
 * the pages without complaint.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { REFERENCE_DIRS } from '../../src/cli/reference/index.js';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { missing } from '../support/tools.js';
import { runCli } from '../support/cli.js';

const GENERATOR = join(ROOT, 'scripts', 'gen-reference.mjs');
const REGENERATE = 'run "npm run docs:gen" and commit what it changes';

function filesUnder(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of REFERENCE_DIRS) {
    let names: string[] = [];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      // no such directory: no files
    }
    for (const name of names) files.set(`${dir}/${name}`, readFileSync(join(root, dir, name), 'utf8'));
  }
  return files;
}

/** The paths that differ between what the generator wrote and what is committed, saying how. */
function staleFiles(generated: Map<string, string>, committed: Map<string, string>): string[] {
  const stale: string[] = [];
  for (const [path, text] of generated) {
    if (!committed.has(path)) stale.push(`${path} (missing)`);
    else if (committed.get(path) !== text) stale.push(`${path} (out of date)`);
  }
  for (const path of committed.keys()) if (!generated.has(path)) stale.push(`${path} (no longer generated)`);
  return stale;
}

function staleMessage(stale: readonly string[]): string {
  return `the command reference is stale: ${stale.join(', ')}; ${REGENERATE}`;
}

interface Flag {
  term: string;
  description: string;
}

interface Page {
  usage: string;
  flags: Flag[];
  globalFlags: Flag[];
  examples: string[];
}

const TERM = /^((?:-\w, )?--[\w-]+(?: <[^>]+>)?)(?: {1,}(\S.*))?$/;
const squeeze = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The items of a list of flags: a term at `termIndent`, its description after it and on the lines below. */
function flagItems(lines: readonly string[], termIndent: number): Flag[] {
  const items: Flag[] = [];
  for (const line of lines) {
    const m = line.slice(0, termIndent).trim() === '' && line[termIndent] === '-' ? TERM.exec(line.slice(termIndent)) : null;
    if (m) items.push({ term: m[1]!, description: m[2] ?? '' });
    else if (line.trim() !== '' && items.length) items[items.length - 1]!.description += ' ' + line.trim();
  }
  return items.map((f) => ({ term: f.term, description: squeeze(f.description) }));
}

/** Example commands, their `\` continuation lines joined. */
function exampleItems(lines: readonly string[]): string[] {
  const out: string[] = [];
  let open = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    if (open) out[out.length - 1] += ' ' + line;
    else if (line.startsWith('$ ')) out.push(line.slice(2));
    else continue;
    open = line.endsWith(' \\');
    if (open) out[out.length - 1] = out[out.length - 1]!.slice(0, -2);
  }
  return out;
}

/** Sections of a text whose headings start at column 0: heading → its lines. */
function sections(text: string, heading: RegExp): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (heading.test(line)) out.set(line.replace(/:$/, '').trim(), (current = []));
    else current.push(line);
  }
  return out;
}

/** `vidpub help NAME` as a page. */
function helpPage(text: string): Page {
  const usage = /^Usage: (.*)$/m.exec(text)?.[1];
  const s = sections(text, /^(Options|Global Options|Examples):$/);
  return {
    usage: usage ?? '',
    flags: flagItems(s.get('Options') ?? [], 2),
    globalFlags: flagItems(s.get('Global Options') ?? [], 2),
    examples: exampleItems(s.get('Examples') ?? []),
  };
}

/** A man page as `man` renders it, as a page. */
function manPage(text: string): Page {
  const s = sections(text, /^[A-Z][A-Z ]+$/);
  return {
    usage: squeeze((s.get('SYNOPSIS') ?? []).join(' ')),
    flags: flagItems(s.get('OPTIONS') ?? [], 7),
    globalFlags: flagItems(s.get('GLOBAL OPTIONS') ?? [], 7),
    examples: exampleItems(s.get('EXAMPLES') ?? []),
  };
}

/**
 * What `man -l FILE` shows (plain text: no bold by overstrike or escape codes), `width` columns wide.
 * MAN_DISABLE_SECCOMP: man-db loads a seccomp sandbox into each of the eight programs of a page's
 * pipeline (preconv, tbl, nroff, troff, grotty, col...), some 0.1 s of CPU a page; the text it
 * writes is the same byte for byte without it.
 */
function renderMan(file: string | string[], width = 200): { status: number | null; text: string; stderr: string } {
  const r = spawnSync('man', ['-l', ...[file].flat()], {
    encoding: 'utf8',
    env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: String(width), LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', MAN_KEEP_FORMATTING: '', MAN_DISABLE_SECCOMP: '1' },
  });
  // eslint-disable-next-line no-control-regex
  const plain = r.stdout.replace(/.\x08/g, '').replace(/\x1b\[[0-9;]*m/g, '').replace(/[\u2010\u2212]/g, '-');
  return { status: r.status, text: plain, stderr: r.stderr };
}

const noMan = missing('man');
const noGroff = missing('groff');

describe('the command reference (docs/commands, man/)', () => {
  let out = '';
  let generated = new Map<string, string>();
  let said = '';

  // The generator runs once for the file, into a directory that holds a stale page and a page no
  // command has any more (which it must rewrite and delete): what it writes there is checked below.
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'vidpub-reference-'));
    mkdirSync(join(out, 'man'));
    writeFileSync(join(out, 'man', 'vidpub-post.1'), 'old');
    writeFileSync(join(out, 'man', 'vidpub-gone.1'), 'a command since removed');
    const r = await runAsync(process.execPath, [GENERATOR, '--out', out], { timeoutMs: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    said = r.stdout;
    generated = filesUnder(out);
  }, 60_000);

  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('is what "npm run docs:gen" writes from the registry now', () => {
    const stale = staleFiles(generated, filesUnder(ROOT));
    expect(stale, staleMessage(stale)).toEqual([]);
  });

  it('has a Markdown page and a man page for every command, and an index', () => {
    const expected = ['docs/commands/README.md', 'docs/commands/global-flags.md', 'docs/commands/exit-codes.md', 'docs/commands/environment.md', 'man/vidpub.1', 'docs/commands/events.schema.json'];
    // A subcommand's pages are named by its path: vidpub-batch-report.
    const page = (name: string) => `vidpub-${name.replaceAll(' ', '-')}`;
    for (const c of COMMANDS) expected.push(`docs/commands/${page(c.name)}.md`, `man/${page(c.name)}.1`);
    expect([...generated.keys()].sort()).toEqual(expected.sort());
    for (const c of COMMANDS) expect(generated.get('docs/commands/README.md')).toContain(`](${page(c.name)}.md)`);
    expect(generated.get('docs/commands/README.md')).toContain('](environment.md)');
  });

  it('names each stale file and the command to run when the committed files differ', () => {
    const committed = new Map(generated);
    committed.set('man/vidpub-post.1', 'old');
    committed.delete('docs/commands/vidpub-me.md');
    committed.set('man/vidpub-gone.1', 'a command since removed');
    expect(staleMessage(staleFiles(generated, committed))).toBe(
      'the command reference is stale: docs/commands/vidpub-me.md (missing), man/vidpub-post.1 (out of date), ' +
        'man/vidpub-gone.1 (no longer generated); run "npm run docs:gen" and commit what it changes',
    );
  });

  it('rewrites a changed page and deletes a page no command has any more', () => {
    expect(said).toContain('man/vidpub-gone.1 (deleted)');
    expect(generated.has('man/vidpub-gone.1')).toBe(false);
    expect(generated.get('man/vidpub-post.1')).not.toBe('old');
    expect(generated.get('man/vidpub-post.1')).toBe(readFileSync(join(ROOT, 'man', 'vidpub-post.1'), 'utf8'));
  });

  it('refuses arguments it does not know, with its usage and exit 2', async () => {
    for (const args of [['--check'], ['--out'], ['--out', '']]) {
      const r = await runAsync(process.execPath, [GENERATOR, ...args]);
      expect(r.stderr).toBe(`unexpected arguments: ${args.join(' ')}\nusage: node scripts/gen-reference.mjs [--out DIR]\n`);
      expect(r.status).toBe(2);
    }
  });

  it('ships: package.json "files" has man/ and "man" lists every man page, for npm to install', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; man: string[] };
    expect(pkg.files).toContain('man/');
    const pages = [...generated.keys()].filter((p) => p.startsWith('man/')).map((p) => `./${p}`);
    expect(pkg.man, `package.json "man" is not the list of man pages; ${REGENERATE}`).toEqual(pages.sort());
  });
});

/** `vidpub help NAME` in-process: main() as the bin runs it, not at a terminal (100 columns). */
async function helpOf(name: string): Promise<{ status: number; stdout: string }> {
  const r = await runCli(['help', name], { env: { NO_COLOR: '1' }, columns: 100 });
  return { status: r.code, stdout: r.stdout };
}

/** Each page of a `man -l` of several files, by its title (VIDPUB-POST): from its header line to its footer. */
function splitPages(text: string): Map<string, string> {
  const pages = new Map<string, string>();
  let title = '';
  for (const line of text.split('\n')) {
    const header = /^(VIDPUB[-A-Z]*)\(1\) .* \1\(1\)$/.exec(line);
    if (header) pages.set((title = header[1]!), '');
    if (title) pages.set(title, pages.get(title)! + line + '\n');
  }
  return pages;
}

describe.skipIf(noMan)('man pages and `vidpub help COMMAND` say the same', () => {
  const pageOf = (name: string) => `vidpub-${name.replaceAll(' ', '-')}`;
  // Every page, vidpub(1) and each command's, in one run of man (one man process, not one per page).
  let rendered: { status: number | null; pages: Map<string, string> } = { status: null, pages: new Map() };
  beforeAll(() => {
    ensureBuilt();
    const r = renderMan([join(ROOT, 'man', 'vidpub.1'), ...COMMANDS.map((c) => join(ROOT, 'man', `${pageOf(c.name)}.1`))]);
    rendered = { status: r.status, pages: splitPages(r.text) };
  });

  it('`vidpub help post` of the built bin is the help read here in-process', async () => {
    const built = await runAsync(process.execPath, [BIN, 'help', 'post'], { env: { ...process.env, NO_COLOR: '1' } });
    expect(built.status).toBe(0);
    expect(built.stdout).toBe((await helpOf('post')).stdout);
  });

  it.each(COMMANDS.map((c) => c.name))('vidpub %s: usage, flags, descriptions with defaults, global flags, examples', async (name) => {
    const help = await helpOf(name);
    expect(help.status).toBe(0);
    const fromHelp = helpPage(help.stdout);
    expect(rendered.status).toBe(0);
    const text = rendered.pages.get(pageOf(name).toUpperCase());
    expect(text, `${pageOf(name)}.1 among the pages man rendered`).toBeDefined();
    const fromMan = manPage(text!);
    // The parse found something in each (the whole help, not an empty match on both sides).
    expect(fromHelp.flags.map((f) => f.term)).toContain('-h, --help');
    // The global flags are listed once, in vidpub --help and vidpub(1), not under each command.
    expect(fromHelp.globalFlags).toEqual([]);
    expect(help.stdout).toMatch(/^Global flags \(--json, --quiet…\): see vidpub --help$/m);
    expect(fromHelp.examples.length).toBeGreaterThan(0);
    expect(fromHelp.usage).toMatch(new RegExp(`^vidpub ${name}(\\|[\\w|]+)? \\[options\\]`));
    expect(fromMan).toEqual(fromHelp);
  });

  it('a default reaches the man page as help shows it', () => {
    expect(rendered.status).toBe(0);
    const post = manPage(rendered.pages.get('VIDPUB-POST')!);
    expect(post.flags).toContainEqual({ term: '--timeout <dur>', description: 'longest wait for the video and the post (90s, 5m, 1h) (default: 30m)' });
    expect(post.examples.length).toBeGreaterThan(3);
  });

  it('`man ./man/vidpub-post.1` renders: its NAME, SYNOPSIS, a flag, at 80 columns', () => {
    const r = renderMan(join(ROOT, 'man', 'vidpub-post.1'), 80);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.text).toMatch(/^VIDPUB-POST\(1\) .* VIDPUB-POST\(1\)$/m);
    expect(r.text).toMatch(/^NAME\n {7}vidpub-post - Upload or import a video and post it to destinations$/m);
    expect(r.text).toMatch(/^SYNOPSIS\n {7}vidpub post \[options\] \[file-or-url\]$/m);
    expect(r.text).toMatch(/^ {7}--caption-file <path>\n {14}read the caption from a file \("-" for stdin\)$/m);
    expect(r.text).toMatch(/this\s+machine's zone/);
    for (const line of r.text.split('\n').filter((l) => !l.includes('$ vidpub'))) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('vidpub(1) lists every command', () => {
    expect(rendered.status).toBe(0);
    const s = sections(rendered.pages.get('VIDPUB') ?? '', /^[A-Z][A-Z ]+$/);
    for (const c of COMMANDS) expect(squeeze((s.get('COMMANDS') ?? []).join(' '))).toContain(`vidpub-${c.name.replaceAll(' ', '-')}(1) ${c.summary}`);
  });
});

describe.skipIf(noGroff)('groff', () => {
  it('reads every man page without a warning (-ww)', () => {
    const pages = readdirSync(join(ROOT, 'man')).map((name) => join(ROOT, 'man', name));
    expect(pages.length).toBe(COMMANDS.length + 1);
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', ...pages], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('would say so of a page it cannot read cleanly (the check above can fail)', () => {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], { encoding: 'utf8', input: '.TH X 1\n.SH NAME\n.XQ not a macro\n' });
    expect(r.stderr).toMatch(/warning: macro 'XQ' not defined/);
  });
});
