/**
 * docs/commands/environment.md: the environment variables vidpub reads, from
 * the one list of src/cli/io/environment.ts (which `vidpub help environment` and
 * vidpub(1) show too).
 */
import { ENVIRONMENT, ENVIRONMENT_INTRO, type EnvVarDoc } from '../io/environment.js';
import { GENERATED } from './markdown.js';

/** A variable's text in a table cell: its code spans kept, | escaped, its guide linked (from docs/commands/). */
function cell(v: EnvVarDoc): string {
  const text = v.text.replace(/\|/g, '\\|');
  if (!v.see) return text;
  const href = /^https?:/.test(v.see.page) ? v.see.page : `../${v.see.page}`;
  return `${text}; see [${v.see.title}](${href})`;
}

export function environmentMarkdown(): string {
  const lines = [GENERATED, '', '# Environment variables', '', ENVIRONMENT_INTRO, 'The same list is `vidpub help environment` and the ENVIRONMENT section of `man vidpub`.', ''];
  for (const g of ENVIRONMENT) {
    lines.push(`## ${g.title}`, '', '| Variable | Meaning |', '|---|---|', ...g.vars.map((v) => `| \`${v.name}\` | ${cell(v)} |`), '');
  }
  lines.push('[All commands](README.md) · [configuration](../configuration.md#environment-variables)');
  return lines.join('\n') + '\n';
}
