/**
 * A caption or a manifest read from a stdin whose writer never closes it
 * (`post --caption-file -`, `batch -`), in the built vidpub: the read ends at
 * --timeout with exit 7, and at once on SIGTERM (143) or SIGINT (130), with
 * nothing sent. stdin is a FIFO the test fills, so it knows vidpub is
 * reading (the FIFO takes more) before it waits or signals.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { withStall } from '../support/stall.js';

const emu = useEmulator();
beforeAll(() => ensureBuilt());

interface Held {
  /** When vidpub had read part of what was written (its stdin drained past a pipe's capacity). */
  reading: number;
  started: number;
  kill(signal: NodeJS.Signals): void;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; at: number }>;
}

/**
 * Starts vidpub with a FIFO for stdin that this test writes to and never closes; resolves once vidpub
 * is reading it: the FIFO filled (64 KiB) takes more only after a read.
 */
async function withOpenStdin(args: string[]): Promise<Held> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-stdin-'));
  const fifo = join(base, 'stdin');
  execFileSync('mkfifo', [fifo]);
  // Opened for reading and writing, a FIFO's open does not wait for the other end (Linux).
  const readEnd = openSync(fifo, constants.O_RDWR);
  const writeEnd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), NO_COLOR: '1' },
    stdio: [readEnd, 'pipe', 'pipe'],
  });
  closeSync(readEnd);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const ended = new Promise<Awaited<Held['ended']>>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      closeSync(writeEnd);
      resolve({ code, signal, stdout, stderr, at: Date.now() });
    }),
  );
  const block = Buffer.alloc(4096, '#');
  const put = (): boolean => {
    try {
      writeSync(writeEnd, block);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return false;
      throw err;
    }
  };
  let written = 0;
  while (put()) written += block.length;
  expect(written).toBeGreaterThanOrEqual(60_000);
  const deadline = Date.now() + 20_000;
  while (!put()) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`vidpub never read its stdin: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { reading: Date.now(), started, kill: (s) => child.kill(s), ended };
}


const POST = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption-file', '-'];
const BATCH = ['batch', '-', '--format', 'yaml', '--yes'];

const cases = [
  // What the test writes ('#' lines: a YAML comment to the manifest) stays under the caption's limit (100,000 bytes).
  { name: 'post --caption-file -', args: POST, what: 'the caption on stdin' },
  { name: 'batch -', args: BATCH, what: 'the manifest on stdin' },
];

describe.each(cases)('$name with a writer that never closes stdin', ({ args, what }) => {
  it('--timeout 2s: exit 7 within the deadline + 1 s, saying so; nothing sent', async () => {
    const held = await withOpenStdin([...args, '--timeout', '2s']);
    const { value: end, stallMs } = await withStall(() => held.ended);
    expect(end.stderr).toContain(`Stopped: the --timeout (2s) was reached while reading ${what}, which was never closed; nothing was sent.`);
    expect(end.stderr).toContain('Close the input when it is written (end the program that writes it, or press Ctrl-D at a terminal), or give a longer --timeout.');
    expect(end.code).toBe(7);
    expect(end.stdout).toBe('');
    // Not before the deadline; within a second of it (counted from when vidpub was reading, its start on a loaded machine
    // aside, plus the time this process could not run meanwhile: test/support/stall.ts).
    expect(end.at - held.started).toBeGreaterThanOrEqual(2000);
    expect(end.at - held.reading).toBeLessThan(3000 + stallMs);
    expect(await emu.requests()).toEqual([]);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s: exit %i within 1 s of the signal; nothing sent', async (signal, code) => {
    const held = await withOpenStdin(args);
    const signalled = Date.now();
    held.kill(signal);
    const { value: end, stallMs } = await withStall(() => held.ended);
    expect(end.stderr).toContain(`Interrupted while reading ${what}; nothing was sent.`);
    expect(end.code).toBe(code);
    expect(end.at - signalled).toBeLessThan(1000 + stallMs);
    expect(end.stdout).toBe('');
    expect(await emu.requests()).toEqual([]);
  });
});
