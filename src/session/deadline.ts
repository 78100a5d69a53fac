/**
 * One deadline per command: --timeout is a budget for the whole command, not
 * for one wait. A flow binds its Session to the deadline once; the bound
 * session's signal aborts with DeadlineReached when the time is up, and every
 * request (connect, headers, body), every PUT and every sleep of the flow
 * already takes that signal, so the command stops at once in whatever phase
 * it is. The flows turn the abort into TimeoutError (exit 7) or, for a write
 * that got no answer, OutcomeUnknownError (exit 9).
 */
import { clockTimeout } from '../core/clock.js';
import { DeadlineReached } from '../errors.js';
import type { Session } from './session.js';

/** A bound session's signal → the signal it was bound from (Ctrl-C and the caller's own, without the deadline). */
const withoutDeadline = new WeakMap<AbortSignal, AbortSignal>();

/** `signal` without any deadline bound into it. */
function unbound(signal: AbortSignal): AbortSignal {
  let s = signal;
  for (let next = withoutDeadline.get(s); next; next = withoutDeadline.get(s)) s = next;
  return s;
}

export interface BoundSession {
  session: Session;
  /** Stops the deadline's timer (call it when the flow ends). */
  dispose(): void;
}

/**
 * The session with a deadline at `deadlineMs` (absolute, as clock.now()).
 * A session already bound to the same or an earlier deadline is returned as is.
 */
export function bindDeadline(session: Session, deadlineMs: number | undefined, timeoutMs?: number): BoundSession {
  if (deadlineMs === undefined || (session.deadlineMs !== undefined && session.deadlineMs <= deadlineMs)) {
    return { session, dispose: () => undefined };
  }
  const expired = new AbortController();
  const reason = new DeadlineReached(timeoutMs);
  const left = deadlineMs - session.clock.now();
  if (left <= 0) expired.abort(reason);
  const timer = left > 0 ? clockTimeout(session.clock, left, () => expired.abort(reason)) : undefined;
  const signal = AbortSignal.any([session.signal, expired.signal]);
  withoutDeadline.set(signal, session.signal);
  return {
    // Making the client may wait on a key from a pipe (--api-key-file <(...)): the deadline ends that wait too.
    session: { ...session, signal, deadlineMs, client: () => untilAborted(session.client(), signal) },
    dispose: () => timer?.clear(),
  };
}

/**
 * `work`, or the signal's reason if it aborts while the work is pending (the work
 * itself is left to end on its own). Past the abort, `work` as is: a look-up
 * after the deadline still gets the client made before it.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A signal for a short step that must not be cut off half-way once started
 * (the complete of an upload whose bytes all arrived): it aborts `graceMs`
 * after `signal` does, with the same reason.
 */
export function withGrace(signal: AbortSignal, graceMs: number): { signal: AbortSignal; dispose(): void } {
  const c = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    timer = setTimeout(() => c.abort(signal.reason), graceMs);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: c.signal,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/** How long a look-up after an unknown outcome may take (past the deadline, within its second). */
export const LOOKUP_MS = 500;

/**
 * One short look-up after an unknown outcome (the media or post GET the
 * contract allows), without the session's deadline: that has passed, so it gets
 * LOOKUP_MS of its own; Ctrl-C still stops it. Undefined when it did not answer.
 */
export async function lookUp<T>(outer: Session, fn: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
  const base = unbound(outer.signal);
  if (base.aborted) return undefined;
  try {
    return await fn(AbortSignal.any([base, AbortSignal.timeout(LOOKUP_MS)]));
  } catch {
    return undefined;
  }
}
