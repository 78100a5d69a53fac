/**
 * Set-up of every test file (vitest.config.ts setupFiles): a file must find the
 * real timers and Date. Files share a worker process (isolate: false), so a
 * file that leaves a fake setTimeout behind would make the real-time waits of
 * the files after it never end, each failing at its test timeout far from the
 * cause. This fails the first file to find them fake, naming the cause.
 */
import { beforeAll } from 'vitest';

const KEY = Symbol.for('vidpub.test.realTimers');
type Real = Pick<typeof globalThis, 'setTimeout' | 'clearTimeout' | 'setInterval' | 'clearInterval' | 'setImmediate' | 'Date'>;
const names = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'Date'] as const;
const store = globalThis as unknown as Record<symbol, Real | undefined>;
// The first file in the process records them (before any test could fake them).
const real: Real = (store[KEY] ??= Object.fromEntries(names.map((n) => [n, globalThis[n]])) as unknown as Real);

beforeAll(() => {
  const faked = names.filter((n) => globalThis[n] !== real[n]);
  if (faked.length > 0) {
    throw new Error(
      `${faked.join(', ')} ${faked.length === 1 ? 'is' : 'are'} not the real one at the start of this file: ` +
        'a test file run before it in this worker left fake timers behind (vi.useFakeTimers without vi.useRealTimers, ' +
        'or a vi.spyOn of a faked global, which Vitest restores to the fake after the test).',
    );
  }
});
