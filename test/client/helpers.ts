import type { VidpubError } from '../../src/errors.js';

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<VidpubError> {
  try {
    await p;
  } catch (err) {
    return err as VidpubError;
  }
  throw new Error('expected a rejection');
}
