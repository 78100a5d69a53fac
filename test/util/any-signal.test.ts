import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkSignals } from '../../src/util/any-signal.js';

describe('linkSignals', () => {
  it('aborts with the reason of the first signal that aborts, and then follows none of them', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = linkSignals([a.signal, b.signal]);
    expect(signal.aborted).toBe(false);
    b.abort(new Error('b stopped'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('b stopped');
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    a.abort(new Error('a stopped'));
    expect((signal.reason as Error).message).toBe('b stopped');
  });

  it('is aborted at once when one of its signals already is', () => {
    const { signal } = linkSignals([new AbortController().signal, AbortSignal.abort('gone')]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
  });

  it('one signal: a signal of its own, that its own listeners hear', () => {
    const a = new AbortController();
    const { signal } = linkSignals([a.signal]);
    expect(signal).not.toBe(a.signal);
    let told = 0;
    signal.addEventListener('abort', () => told++);
    a.abort('stop');
    expect(told).toBe(1);
    expect(signal.reason).toBe('stop');
  });

  it('a long-lived signal keeps nothing of the links disposed of, and a link disposed of no longer follows it', () => {
    const long = new AbortController();
    for (let i = 0; i < 5000; i++) linkSignals([long.signal, new AbortController().signal]).dispose();
    expect(getEventListeners(long.signal, 'abort')).toHaveLength(0);
    const kept = linkSignals([long.signal]);
    const gone = linkSignals([long.signal]);
    gone.dispose();
    gone.dispose();
    expect(getEventListeners(long.signal, 'abort')).toHaveLength(1);
    long.abort('stop');
    expect(kept.signal.aborted).toBe(true);
    expect(gone.signal.aborted).toBe(false);
  });

  it('many links to one signal at once bring no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const long = new AbortController();
    const held = Array.from({ length: 50 }, () => linkSignals([long.signal]));
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(getEventListeners(long.signal, 'abort')).toHaveLength(held.length);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
