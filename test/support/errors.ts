/** Expecting an error of a given class. */
import { expect } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ErrorClass<E> = abstract new (...args: any[]) => E;

/**
 * Runs fn and expects it to throw (or, when it returns a promise, to reject
 * with) an instance of `Class`; returns that error for more checks.
 */
export function expectError<E>(Class: ErrorClass<E>, fn: () => Promise<unknown>): Promise<E>;
export function expectError<E>(Class: ErrorClass<E>, fn: () => unknown): E;
export function expectError<E>(Class: ErrorClass<E>, fn: () => unknown): E | Promise<E> {
  const check = (err: unknown): E => {
    expect(err).toBeInstanceOf(Class);
    return err as E;
  };
  const none = () => {
    throw new Error(`expected ${Class.name} to be thrown, but nothing was`);
  };
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    return check(err);
  }
  if (result instanceof Promise) return result.then(none, check);
  return none();
}
