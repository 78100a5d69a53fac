/**
 * The man pages, in roff with the man(7) macros: vidpub(1) and one
 * vidpub-COMMAND(1) per command, rendered from the reference data (./model.ts).
 */
import { wrapCommand } from '../../ui/wrap.js';
import type { CommandDoc, FlagDoc, Reference } from './model.js';
import type { ExitCodeDoc } from './exit-codes.js';
import { ENVIRONMENT, ENVIRONMENT_INTRO, plainEnvText } from '../io/environment.js';

/** Width examples are broken to (with " \" continuations, as help does), inside the man page's indent. */
const EXAMPLE_WIDTH = 72;

/**
 * Text as roff shows it literally: a backslash is \e, every hyphen \- (a
 * minus, so that flags and commands copy as typed), quotes and the characters
 * groff would typeset as other glyphs are named, and a line starting with a
 * dot or an apostrophe (a request) is guarded with \&.
 */
export function roffText(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/'/g, "\\(aq")
    .replace(/`/g, '\\(ga')
    .replace(/\^/g, '\\(ha')
    .replace(/~/g, '\\(ti');
  return escaped.replace(/^([.'])/gm, '\\&$1');
}

/** "--to <dest>" as a tag: the flag in bold, its value in italics. */
function flagTag(term: string): string {
  const m = /^(.*?)(?: <([^>]+)>)?$/.exec(term)!;
  return `\\fB${roffText(m[1]!)}\\fR${m[2] ? ` \\fI<${roffText(m[2])}>\\fR` : ''}`;
}

function flagList(flags: readonly FlagDoc[]): string[] {
  return flags.flatMap((f) => ['.TP', flagTag(f.term), roffText(f.description)]);
}

function examples(list: readonly string[]): string[] {
  if (list.length === 0) return [];
  const lines = list.flatMap((e) => ['.PP', '.RS 4', '.nf', ...roffText(`$ ${wrapCommand(e, EXAMPLE_WIDTH, 6)}`).split('\n'), '.fi', '.RE']);
  return ['.SH EXAMPLES', ...lines];
}

function exitStatus(codes: readonly ExitCodeDoc[]): string[] {
  return ['.SH "EXIT STATUS"', ...codes.flatMap((e) => ['.TP', `\\fB${e.code}\\fR`, roffText(e.meaning)])];
}

/** ENVIRONMENT: the list of src/cli/io/environment.ts, as `vidpub help environment` shows it. */
function environment(): string[] {
  const lines = ['.SH ENVIRONMENT', roffText(ENVIRONMENT_INTRO)];
  for (const g of ENVIRONMENT) {
    lines.push(`.SS "${roffText(g.title)}"`);
    for (const v of g.vars) lines.push('.TP', `\\fB${roffText(v.name)}\\fR`, roffText(plainEnvText(v)));
  }
  return lines;
}

function header(page: string, ref: Reference): string[] {
  return [
    `.\\" Generated from the command registry by scripts/gen-reference.mjs: do not edit; run npm run docs:gen.`,
    `.TH ${page.toUpperCase()} 1 "" "vidpub ${ref.version}" "vidpub manual"`,
    // No hyphenation, ragged right: flags and environment variables stay whole.
    '.nh',
    '.ad l',
  ];
}

/** The usage line: its first `bold` words (the command) in bold, the rest in roman. */
function synopsis(usage: string, bold: number): string[] {
  const words = usage.split(' ');
  return ['.SH SYNOPSIS', `\\fB${roffText(words.slice(0, bold).join(' '))}\\fR ${roffText(words.slice(bold).join(' '))}`];
}

export function commandPage(c: CommandDoc, ref: Reference): string {
  const name = c.page;
  const lines = [
    ...header(name, ref),
    '.SH NAME',
    `${roffText(name)} \\- ${roffText(c.summary)}`,
    ...synopsis(c.usage, 1 + c.name.split(' ').length),
    '.SH DESCRIPTION',
    roffText(c.description),
  ];
  lines.push('.SH OPTIONS', ...flagList(c.flags));
  // As the command's --help: the global flags are listed once, in vidpub(1).
  lines.push(...examples(c.examples), ...exitStatus(c.exitCodes));
  lines.push('.SH "SEE ALSO"', '\\fBvidpub\\fR(1), for the global flags (--json, --quiet...), which every command takes');
  return lines.join('\n') + '\n';
}

export function rootPage(ref: Reference): string {
  const lines = [
    ...header('vidpub', ref),
    '.SH NAME',
    `vidpub \\- ${roffText(ref.description.replace(/\.$/, ''))}`,
    ...synopsis('vidpub [options] [command]', 1),
    '.SH DESCRIPTION',
    roffText(ref.description),
    '.SH COMMANDS',
    ...ref.commands.flatMap((c) => ['.TP', `\\fB${roffText(c.page)}\\fR(1)`, roffText(c.summary)]),
    '.SH OPTIONS',
    ...flagList(ref.globalFlags),
    ...examples(ref.examples),
    ...exitStatus(ref.exitCodes),
    ...environment(),
    '.SH "SEE ALSO"',
    ref.commands.map((c) => `\\fB${roffText(c.page)}\\fR(1)`).join(', '),
  ];
  return lines.join('\n') + '\n';
}
