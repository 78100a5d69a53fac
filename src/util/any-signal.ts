/**
 * A signal that aborts as soon as one of `signals` does (with its reason), as
 * AbortSignal.any does, that stops following them once `dispose` is called.
 *
 * Node 20's AbortSignal.any keeps a WeakRef to each signal it makes in every
 * signal it follows, and never takes it out, even once the signal it made is
 * gone: a long-lived signal (a client's, a session's, a batch run's) that
 * every request and every item of a batch combines with its own grows for as
 * long as the process lives (docs/performance.md, batch). Work that combines
 * a long-lived signal with its own, once per request or per item, links them
 * here and disposes of the link when it ends, in a `finally`.
 */
import { setMaxListeners } from 'node:events';

export interface LinkedSignal {
  signal: AbortSignal;
  /** Stops following the signals (idempotent); the signal keeps what it has become. */
  dispose(): void;
}

const NOTHING_TO_DISPOSE = (): void => undefined;

export function linkSignals(signals: readonly AbortSignal[]): LinkedSignal {
  for (const s of signals) if (s.aborted) return { signal: AbortSignal.abort(s.reason), dispose: NOTHING_TO_DISPOSE };
  const controller = new AbortController();
  const follows: { source: AbortSignal; listener: () => void }[] = [];
  const dispose = () => {
    for (const f of follows) f.source.removeEventListener('abort', f.listener);
    follows.length = 0;
  };
  for (const source of signals) {
    const listener = () => {
      dispose();
      controller.abort(source.reason);
    };
    // As many listeners at once as there is work under way, each taken out as its work ends: no leak to warn of.
    setMaxListeners(0, source);
    source.addEventListener('abort', listener, { once: true });
    follows.push({ source, listener });
  }
  return { signal: controller.signal, dispose };
}

/** `signals` followed as one: a single signal is handed over as it is (nothing to dispose), several are linked. */
export function followAll(signals: readonly AbortSignal[]): LinkedSignal {
  return signals.length === 1 ? { signal: signals[0]!, dispose: NOTHING_TO_DISPOSE } : linkSignals(signals);
}

/**
 * Runs `work` with a signal that follows each of `signals` given, linked only for as long as the
 * work runs; one signal given is handed over as it is.
 */
export async function withLinkedSignal<T>(signals: readonly (AbortSignal | undefined)[], work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const linked = followAll(signals.filter((s): s is AbortSignal => s !== undefined));
  try {
    return await work(linked.signal);
  } finally {
    linked.dispose();
  }
}
