/** Prompters for runCli: one that must not be asked, one that answers from a script. */
import type { Choice, Prompter } from '../../src/cli/run/context.js';

export const noPrompter: Prompter = {
  password: () => Promise.reject(new Error('test: unexpected password prompt')),
  select: () => Promise.reject(new Error('test: unexpected select prompt')),
  confirm: () => Promise.reject(new Error('test: unexpected confirm prompt')),
  input: () => Promise.reject(new Error('test: unexpected input prompt')),
};

export interface Asked {
  kind: 'select' | 'confirm' | 'input' | 'password';
  message: string;
  choices?: Choice<unknown>[];
  default?: unknown;
  /** The mask character of a password prompt. */
  mask?: string;
}

/** A Prompter that answers from a script and records what was asked (an Error in the script is thrown from that prompt). */
export function scriptedPrompter(answers: unknown[]): { prompter: Prompter; asked: Asked[] } {
  const asked: Asked[] = [];
  const answer = <T>(q: Asked): Promise<T> => {
    asked.push(q);
    if (answers.length === 0) return Promise.reject(new Error(`test: no answer left for "${q.message}"`));
    const a = answers.shift();
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as T);
  };
  const prompter: Prompter = {
    password: (o) => answer({ kind: 'password', message: o.message, mask: o.mask }),
    confirm: (o) => answer({ kind: 'confirm', message: o.message, default: o.default }),
    input: (o) => answer({ kind: 'input', message: o.message, default: o.default }),
    select: (o) => answer({ kind: 'select', message: o.message, choices: o.choices as Choice<unknown>[], default: o.default }),
  };
  return { prompter, asked };
}
