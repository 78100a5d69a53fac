/**
 * Giving a lock up (src/util/file-lock.ts unlock), the one rule both ways of holding it share:
 * the lock file goes when the work is done, whether the work returned or threw, and a lock file
 * already gone (broken as stale by another process) is nothing to give up, not an error.
 */
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tryFileLock, withFileLock, type LockOptions } from '../../src/util/file-lock.js';
import { manualClock } from '../support/clock.js';
import { waitFor } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-file-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTS: LockOptions = { purpose: { file: 'the test file', holders: 'another test', notDone: 'nothing was done', directory: 'the test directory' } };

/** The two ways of holding the lock on `path`, each running `fn` under it. */
const holders: [string, (path: string, fn: () => string) => Promise<string | undefined>][] = [
  ['withFileLock', (path, fn) => withFileLock(path, OPTS, fn)],
  ['tryFileLock', async (path, fn) => tryFileLock(path, fn)],
];

describe.each(holders)('%s', (_name, hold) => {
  it('holds the lock file while the work runs and removes it after', async () => {
    const path = join(dir, `${_name}-plain`);
    const seen = await hold(path, () => (existsSync(`${path}.lock`) ? 'held' : 'not held'));
    expect(seen).toBe('held');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('removes it when the work throws, and the error is the work\'s', async () => {
    const path = join(dir, `${_name}-throws`);
    await expect(hold(path, () => { throw new Error('the work failed'); })).rejects.toThrow('the work failed');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a lock file gone meanwhile (broken as stale by another process) is no error: the work\'s value comes back', async () => {
    const path = join(dir, `${_name}-broken`);
    const value = await hold(path, () => {
      unlinkSync(`${path}.lock`);
      return 'done';
    });
    expect(value).toBe('done');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe('withFileLock waiting for another holder', () => {
  it('waits on the clock it is given: the lock is given up when that clock has moved by the whole wait, not before', async () => {
    const path = join(dir, 'held-by-another');
    // another live process of this machine holds it: Vitest's own parent
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now() }));
    const clock = manualClock();
    let ran = false;
    let settled = false;
    const waiting = withFileLock(path, { ...OPTS, waitMs: 5_000, clock }, () => {
      ran = true;
    }).finally(() => {
      settled = true;
    });
    // asleep between tries on the clock; 4.9 s on, still waiting
    await waitFor(() => clock.pending().length, (n) => n > 0);
    clock.tick(4_900);
    await waitFor(() => clock.pending().length, (n) => n > 0);
    expect(settled).toBe(false);
    clock.tick(100);
    await expect(waiting).rejects.toThrow(`The test file ${path} is locked by process ${process.ppid} (another test); nothing was done.`);
    expect(ran).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(true);
  });
});
