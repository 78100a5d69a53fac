/**
 * Set-up of every test file (vitest.config.ts setupFiles): a file must find the
 * real timers and Date. Files share a worker process (isolate: false), so a
 * file that leaves a fake setTimeout behind would make the real-time waits of
 * the files after it never end, each failing at its test timeout far from the
 * cause. This fails the first file to find them fake, naming the cause; and so
 * it does for the other things a file could leave to the next: the environment,
 * the working directory, the umask, listeners on the process's signals, and the
 * flags of the command registry.
 */
import { beforeAll } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';

const KEY = Symbol.for('vidpub.test.realTimers');
type Real = Pick<typeof globalThis, 'setTimeout' | 'clearTimeout' | 'setInterval' | 'clearInterval' | 'setImmediate' | 'Date'>;
const names = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'Date'] as const;
const store = globalThis as unknown as Record<symbol, Real | undefined>;
// The first file in the process records them (before any test could fake them).
const real: Real = (store[KEY] ??= Object.fromEntries(names.map((n) => [n, globalThis[n]])) as unknown as Real);

/** What else a file must leave as it found it, as the first file in the process found it. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGPIPE', 'SIGCONT', 'SIGWINCH'] as const;
const processState = (): Record<string, string> => ({
  // Vitest's own (VITEST_WORKER_ID and the like) change from file to file.
  ...Object.fromEntries(Object.entries(process.env).flatMap(([k, v]) => (k.startsWith('VITEST_') ? [] : [[`env ${k}`, String(v)]]))),
  cwd: process.cwd(),
  umask: process.umask().toString(8),
  ...Object.fromEntries(SIGNALS.map((s) => [`${s} listeners`, String(process.listenerCount(s))])),
  // The command registry, which a test may extend for itself (test/tools/one-flag.test.ts).
  ...Object.fromEntries(COMMANDS.map((c) => [`the flags of ${c.name}`, (c.flags ?? []).map((f) => f.name).join(' ')])),
});
const STATE_KEY = Symbol.for('vidpub.test.processState');
const first = ((store as unknown as Record<symbol, Record<string, string> | undefined>)[STATE_KEY] ??= processState());

beforeAll(() => {
  const faked = names.filter((n) => globalThis[n] !== real[n]);
  if (faked.length > 0) {
    throw new Error(
      `${faked.join(', ')} ${faked.length === 1 ? 'is' : 'are'} not the real one at the start of this file: ` +
        'a test file run before it in this worker left fake timers behind (vi.useFakeTimers without vi.useRealTimers, ' +
        'or a vi.spyOn of a faked global, which Vitest restores to the fake after the test).',
    );
  }
  const now = processState();
  const changed = [...new Set([...Object.keys(first), ...Object.keys(now)])].filter((k) => first[k] !== now[k]);
  if (changed.length > 0) {
    throw new Error(
      `a test file run before this one in this worker left the process changed: ${changed.map((k) => `${k} (${first[k] ?? 'unset'} -> ${now[k] ?? 'unset'})`).join(', ')}; ` +
        'a file restores what it changes (env, cwd, umask, listeners on process, the registry).',
    );
  }
});
