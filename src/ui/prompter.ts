import type * as InquirerModule from '@inquirer/prompts';
import type { IO } from '../core/io.js';
import { confirmKey, readLine, type KeyIO } from './key-prompts.js';
import { visibleLength } from './wrap.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
  /**
   * An entry that is no answer (a select with no default starts on it, so that Enter alone picks
   * nothing): when it is picked, the question's line is taken off the screen rather than shown
   * ticked with it as if it were an answer, and the caller asks again.
   */
  noAnswer?: boolean;
}

/**
 * Everything that asks a person something. The real one is @inquirer/prompts,
 * loaded lazily; tests inject a scripted one.
 */
export interface Prompter {
  password(opts: { message: string; mask?: string }): Promise<string>;
  select<T>(opts: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  confirm(opts: { message: string; default?: boolean }): Promise<boolean>;
  input(opts: { message: string; default?: string }): Promise<string>;
  /** Several of the choices (space toggles, enter accepts); at least one when `required`. */
  checkbox?<T>(opts: { message: string; choices: Choice<T>[]; required?: boolean }): Promise<T[]>;
  /** Text written in $VISUAL / $EDITOR (several lines), as gh does for a body. */
  editor?(opts: { message: string; default?: string }): Promise<string>;
  /** True where a select is a numbered list answered with a number (TERM=dumb): no arrow keys, and Enter alone picks nothing without a default. */
  numbered?: boolean;
}

/**
 * The real prompter: @inquirer/prompts, loaded only when a command asks
 * something. Prompts render on stderr so stdout stays data only, and each is
 * cancelled by the invocation's signal (Ctrl-C). A yes/no is one key. With TERM=dumb the menus
 * are numbered lists answered with a number (no arrow keys), and lines are typed with Backspace,
 * Ctrl-U and Ctrl-W (key-prompts.ts).
 */
export async function createInquirerPrompter(ctx: {
  io: Pick<IO, 'stdin' | 'stderr'>;
  signal: AbortSignal;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<Prompter> {
  const inquirer = await import('@inquirer/prompts');
  const context = { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal, clearPromptOnDone: false };
  const keys: KeyIO = { stdin: ctx.io.stdin, stderr: ctx.io.stderr, signal: ctx.signal };
  // A yes/no is one key (y, n, Enter for the default), everywhere: no Enter after y.
  const confirm: Prompter['confirm'] = (o) => confirmKey(keys, o);
  // The editor is started by ui/editor.ts, with an environment without vidpub's secrets.
  const editor: Prompter['editor'] = async (o) => {
    ctx.io.stderr.write(`${o.message}\n`);
    return (await import('./editor.js')).editText({ env: ctx.env ?? {}, initial: o.default, signal: ctx.signal });
  };
  // TERM=dumb: no arrow-key menus and no cursor control; lines are typed with a teletype's
  // editing (key-prompts.ts), the choices are numbered and a number is typed.
  if (ctx.env?.TERM === 'dumb') return { ...arrowPrompter(inquirer, context), ...linePrompts(keys), confirm, editor, numbered: true };
  return { ...arrowPrompter(inquirer, context), confirm, editor };
}

/**
 * Takes the ticked line of a question answered with an entry that is no answer off the screen:
 * inquirer has written "✔ MESSAGE ENTRY" and a newline, wrapped at the terminal's width.
 */
function eraseNoAnswer(out: IO['stderr'], message: string, entry: string): void {
  const columns = Math.max(1, (out as { columns?: number }).columns || 80);
  const rows = Math.max(1, Math.ceil(visibleLength(`✔ ${message} ${entry}`) / columns));
  out.write(`\x1b[${rows}A\r\x1b[0J`);
}

type Inquirer = typeof InquirerModule;
type InquirerContext = { input: IO['stdin']; output: IO['stderr']; signal: AbortSignal; clearPromptOnDone: boolean };

function arrowPrompter(inquirer: Inquirer, context: InquirerContext): Prompter {
  return {
    password: (o) => inquirer.password({ message: o.message, mask: o.mask ?? '*' }, context),
    select: async (o) => {
      const picked = await inquirer.select(
        {
          message: o.message,
          choices: o.choices.map((c) => ({ name: c.name, value: c.value, description: c.description })),
          default: o.default,
        },
        context,
      );
      const none = o.choices.find((c) => c.noAnswer && c.value === picked);
      if (none) eraseNoAnswer(context.output, o.message, none.name);
      return picked;
    },
    confirm: (o) => inquirer.confirm({ message: o.message, default: o.default }, context),
    input: (o) => inquirer.input({ message: o.message, default: o.default }, context),
    checkbox: (o) =>
      inquirer.checkbox(
        {
          message: o.message,
          choices: o.choices.map((c) => ({ name: c.name, value: c.value, description: c.description })),
          required: o.required,
        },
        context,
      ),
  };
}

/** The 1-based numbers typed ("2", "1, 3"), or undefined when one is not a choice or a single answer has several. */
export function readNumbers(text: string, count: number, many: boolean): number[] | undefined {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  const numbers = parts.map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n < 1 || n > count)) return undefined;
  if (!many && numbers.length !== 1) return undefined;
  return [...new Set(numbers)];
}

/** For TERM=dumb: input and password as typed lines, select and checkbox as a numbered list and a typed number (or numbers). */
function linePrompts(keys: KeyIO): Pick<Prompter, 'input' | 'password' | 'select' | 'checkbox'> {
  const ask = async <T>(o: { message: string; choices: Choice<T>[]; default?: T; required?: boolean }, many: boolean): Promise<T[]> => {
    const n = o.choices.length;
    const list = o.choices.map((c, i) => `  ${i + 1}) ${c.name}${c.description ? ` - ${c.description}` : ''}`);
    // The arrow-key menus' instructions say nothing here.
    keys.stderr.write(`${o.message.replace(/ \(space selects, enter accepts\)/, '')}\n${list.join('\n')}\n`);
    const at = o.choices.findIndex((c) => c.value === o.default);
    const wanted = many ? `numbers from 1 to ${n}, separated by commas` : `a number from 1 to ${n}`;
    const answer = await readLine(keys, {
      message: many ? `Choose (${wanted})` : `Choose (1-${n})`,
      default: at >= 0 ? String(at + 1) : undefined,
      validate: (t) => {
        const got = readNumbers(t, n, many);
        return got && (got.length > 0 || !o.required) ? true : `Type ${wanted}.`;
      },
    });
    return readNumbers(answer, n, many)!.map((i) => o.choices[i - 1]!.value);
  };
  return {
    input: (o) => readLine(keys, { message: o.message, default: o.default }),
    password: (o) => readLine(keys, { message: o.message, mask: o.mask ?? '*' }),
    select: async (o) => (await ask(o, false))[0]!,
    checkbox: (o) => ask(o, true),
  };
}
