/**
 * Helpers of the posting tests: a Prompter that answers from a script and
 * records what was asked (an Error in the script is thrown from that prompt).
 */
import { expect } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { Choice, Prompter } from '../../src/cli/context.js';

export interface Asked {
  kind: 'select' | 'confirm' | 'input' | 'password';
  message: string;
  choices?: Choice<unknown>[];
  default?: unknown;
}

export function scriptedPrompter(answers: unknown[]): { prompter: Prompter; asked: Asked[] } {
  const asked: Asked[] = [];
  const answer = <T>(q: Asked): Promise<T> => {
    asked.push(q);
    if (answers.length === 0) return Promise.reject(new Error(`test: no answer left for "${q.message}"`));
    const a = answers.shift();
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as T);
  };
  const prompter: Prompter = {
    password: (o) => answer({ kind: 'password', message: o.message }),
    confirm: (o) => answer({ kind: 'confirm', message: o.message, default: o.default }),
    input: (o) => answer({ kind: 'input', message: o.message, default: o.default }),
    select: (o) => answer({ kind: 'select', message: o.message, choices: o.choices as Choice<unknown>[], default: o.default }),
  };
  return { prompter, asked };
}

/** Runs `fn`, expects it to throw a UsageError (exit 2), and returns it. */
export function expectUsageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}
