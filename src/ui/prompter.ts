import type { IO } from '../core/io.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
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
}

/**
 * The real prompter: @inquirer/prompts, loaded only when a command asks
 * something. Prompts render on stderr so stdout stays data only, and each is
 * cancelled by the invocation's signal (Ctrl-C).
 */
export async function createInquirerPrompter(ctx: { io: Pick<IO, 'stdin' | 'stderr'>; signal: AbortSignal }): Promise<Prompter> {
  const inquirer = await import('@inquirer/prompts');
  const context = { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal, clearPromptOnDone: false };
  return {
    password: (o) => inquirer.password({ message: o.message, mask: o.mask ?? '*' }, context),
    select: (o) =>
      inquirer.select(
        {
          message: o.message,
          choices: o.choices.map((c) => ({ name: c.name, value: c.value, description: c.description })),
          default: o.default,
        },
        context,
      ),
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
    editor: (o) => inquirer.editor({ message: o.message, default: o.default, waitForUserInput: false }, context),
  };
}
