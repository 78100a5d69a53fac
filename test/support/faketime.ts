/**
 * A clock the test moves for a separate process (the built bin in a terminal): libfaketime reads
 * the process's offset from real time out of a file at each look at the clock, so the test puts
 * it ahead (`advance`) instead of sitting out a countdown in real seconds. Its timers see the jump
 * too (the monotonic clock is faked as well) at their next wake-up. Under CI a missing faketime
 * fails the file (tools.ts), elsewhere it skips (`noFaketime`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missing } from './tools.js';

/** Why a moved clock cannot be given here (faketime is not installed), or false. */
export const noFaketime = missing('faketime', ['--version']);

export interface SteppedClock {
  /** The environment that puts a process on this clock. */
  env: Record<string, string>;
  /** Moves the clock `seconds` further ahead of real time, for every process on it. */
  advance(seconds: number): void;
}

let preload: string | undefined;
/** The library as the faketime program preloads it (its path holds the loader's $LIB): asked of faketime once. */
function preloadPath(): string {
  preload ??= spawnSync('faketime', ['-f', '+0', 'printenv', 'LD_PRELOAD'], { encoding: 'utf8' }).stdout.trim();
  if (!preload) throw new Error('faketime did not say which library it preloads');
  return preload;
}

/** A clock that runs with real time, from real time, until the test moves it on. */
export function steppedClock(): SteppedClock {
  const preload = preloadPath();
  const file = join(mkdtempSync(join(tmpdir(), 'vidpub-faketime-')), 'offset');
  let ahead = 0;
  writeFileSync(file, '+0\n');
  return {
    // FAKETIME_NO_CACHE: the file is read again at each look, not every 10 s.
    env: { LD_PRELOAD: preload, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1' },
    advance(seconds) {
      ahead += seconds;
      // whole or not at all: a look at the clock never reads a file half written
      writeFileSync(`${file}.new`, `+${ahead}\n`);
      renameSync(`${file}.new`, file);
    },
  };
}

/**
 * The environment that runs a process's clock twice as fast as real time from its start
 * (libfaketime): its looks at a video processing or a post publishing, a second apart on its clock,
 * come half a second apart. Its own timeouts shrink as much (a connection's 10 s to 5 s of real time,
 * a request's 30 s to 15 s), which is why it is no faster: beside six CPU-bound processes on 2 cores
 * none of them may run out.
 */
export function fasterClockEnv(): Record<string, string> {
  return { LD_PRELOAD: preloadPath(), FAKETIME: '+0 x2' };
}
