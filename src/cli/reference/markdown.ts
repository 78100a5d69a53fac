/**
 * The Markdown reference, docs/commands/: an index, one page per command, the
 * global flags and the exit codes, rendered from the reference data
 * (./model.ts). Every fenced block carries a doctest marker (test/docs/doctest.ts):
 * the examples are those of `vidpub help COMMAND`, which
 * test/docs/help-examples.test.ts runs.
 */
import { argTerm } from '../line/flags.js';
import { GROUP_TITLES } from '../line/root-help.js';
import type { ExitCodeDoc } from './exit-codes.js';
import type { CommandDoc, FlagDoc, Reference } from './model.js';

/** Where the exit codes are explained at length, with examples of each (from docs/commands/). */
export const EXIT_CODES_GUIDE = '../reliability.md#exit-codes';

export const GENERATED = '<!-- Generated from the command registry by scripts/gen-reference.mjs: do not edit; run `npm run docs:gen`. -->';

/** Prose for Markdown: what would be read as markup (a table's |, an HTML tag, emphasis, code) is escaped. */
export function mdText(text: string): string {
  return text.replace(/[\\`*|<>]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`));
}

/** Code in a table cell: `--to <dest>`. */
function code(text: string): string {
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

function flagTable(flags: readonly FlagDoc[]): string[] {
  return [
    '| Flag | Description | Default |',
    '|---|---|---|',
    ...flags.map((f) => `| ${code(f.term)} | ${mdText(f.text)}${f.repeatable ? ' (repeatable)' : ''} | ${f.default === undefined ? '' : code(f.default)} |`),
  ];
}

function exitTable(codes: readonly ExitCodeDoc[]): string[] {
  return ['| Code | Meaning |', '|---|---|', ...codes.map((e) => `| ${e.code} | ${mdText(e.meaning)} |`)];
}

function block(marker: string, lang: string, lines: readonly string[]): string[] {
  return [`<!-- doctest: ${marker} -->`, '```' + lang, ...lines, '```'];
}

function argumentsSection(c: CommandDoc): string[] {
  if (c.args.length === 0) return [];
  const rows = c.args.map((a) => {
    const term = argTerm(a);
    const choices = a.choices ? `; one of ${a.choices.map((x) => code(x)).join(', ')}` : '';
    return `| ${code(term)} | ${a.required ? 'required' : 'optional'}${choices} |`;
  });
  return ['## Arguments', '', '| Argument | |', '|---|---|', ...rows, ''];
}

export function commandMarkdown(c: CommandDoc): string {
  const lines = [
    GENERATED,
    '',
    `# vidpub ${c.name}`,
    '',
    mdText(c.summary) + '.',
    '',
    '## Synopsis',
    '',
    ...block('skip a synopsis', '', [c.usage]),
    '',
    '## Description',
    '',
    mdText(c.description),
    '',
  ];
  lines.push(...argumentsSection(c));
  lines.push('## Flags', '', ...flagTable(c.flags), '', 'And the [global flags](global-flags.md), which every command takes.', '');
  if (c.examples.length) {
    const why = `the examples of vidpub help ${c.name}, which test/docs/help-examples.test.ts runs`;
    lines.push('## Examples', '', ...block(`skip ${why}`, 'sh', c.examples), '');
  }
  lines.push('## Exit codes', '', ...exitTable(c.exitCodes), '', `What each means, with examples: [exit codes](exit-codes.md).`, '');
  lines.push('## See also', '', `[All commands](README.md) · the man page: \`man ${c.page}\` ([man/${c.page}.1](../../man/${c.page}.1))`);
  return lines.join('\n') + '\n';
}

export function indexMarkdown(ref: Reference): string {
  const lines = [GENERATED, '', '# Command reference', '', mdText(ref.description), ''];
  lines.push(
    'Every command takes the [global flags](global-flags.md) too; the [exit codes](exit-codes.md) mean the same for all,',
    'and so do the [environment variables](environment.md) vidpub reads.',
    'Each page is also a man page (`man ./man/vidpub-post.1` in a checkout; `man vidpub-post` once installed),',
    'and says what `vidpub help COMMAND` says.',
    '',
  );
  for (const [group, title] of Object.entries(GROUP_TITLES)) {
    const inGroup = ref.commands.filter((c) => c.group === group);
    if (inGroup.length === 0) continue;
    lines.push(`## ${title.replace(/:$/, '')}`, '', '| Command | What it does |', '|---|---|');
    for (const c of inGroup) lines.push(`| [${code(`vidpub ${c.name}`)}](${c.page}.md) | ${mdText(c.summary)} |`);
    lines.push('');
  }
  lines.push('## Examples', '', ...block('skip the examples of vidpub --help, which test/docs/help-examples.test.ts runs', 'sh', ref.examples));
  return lines.join('\n') + '\n';
}

export function globalFlagsMarkdown(ref: Reference): string {
  const lines = [GENERATED, '', '# Global flags', '', 'Every command takes these flags, before or after its name.', '', ...flagTable(ref.globalFlags)];
  lines.push('', '[All commands](README.md)');
  return lines.join('\n') + '\n';
}

/** The commands that end with a code, each a link to its page: "every command" for all of them. */
function commandsCell(names: readonly string[], ref: Reference): string {
  if (names.length === ref.commands.length) return 'every command';
  return names.map((name) => `[${name}](vidpub-${name.replaceAll(' ', '-')}.md)`).join(', ');
}

export function exitCodesMarkdown(ref: Reference): string {
  const lines = [GENERATED, '', '# Exit codes', '', '| Code | Meaning | Commands |', '|---|---|---|'];
  lines.push(...ref.exitCodes.map((e) => `| ${e.code} | ${mdText(e.meaning)} | ${commandsCell(e.commands, ref)} |`), '');
  lines.push(`Each command's page lists those it can end with. [Exit codes](${EXIT_CODES_GUIDE}) in the manual says more, with examples of each.`);
  lines.push('', '[All commands](README.md)');
  return lines.join('\n') + '\n';
}
