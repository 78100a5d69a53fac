/**
 * The one place undici is loaded (lazily: it is ~70 ms to import, and only
 * commands that talk to the network pay for it). The upload code uses the
 * same loader for the signed PUT.
 */
import type * as UndiciModule from 'undici';

export type Undici = typeof UndiciModule;

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  return (loading ??= import('undici'));
}
