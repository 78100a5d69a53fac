/**
 * A reader that stops early (`| head -1`): vidpub's output has nowhere to go,
 * which is no failure. The built binary must neither crash with EPIPE nor
 * print a stack trace, and exits as the command did.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';

// The emulator in this process (the bins are the subject here, not the service): the shells are
// run without blocking its event loop (runAsync).
const emu = useEmulator({ processingMs: 100, publishMs: 100 });
const box = { home: '', cwd: '' };
beforeAll(() => {
  ensureBuilt();
  box.home = mkdtempSync(join(tmpdir(), 'vidpub-pipe-home-'));
  box.cwd = mkdtempSync(join(tmpdir(), 'vidpub-pipe-work-'));
});
afterAll(() => {
  for (const d of [box.home, box.cwd]) if (d) rmSync(d, { recursive: true, force: true });
});

const VIDPUB = `node ${JSON.stringify(join(ROOT, 'bin/vidpub.js'))}`;

/** Runs `script` in bash, which prints vidpub's exit code on its first line, vidpub's stderr going to "$ERR": that code, and that stderr. */
async function inBash(script: string): Promise<{ code: number; stderr: string }> {
  const err = join(box.cwd, `stderr-${Math.random().toString(36).slice(2)}`);
  const r = await runAsync('bash', ['-c', `${script}; cat "$ERR"`], {
    env: { PATH: process.env.PATH, HOME: box.home, ERR: err, ...emu.env(), VIDPUB_NO_COMPILE_CACHE: '1' },
    cwd: box.cwd,
    timeoutMs: 60_000,
  });
  const [code, ...rest] = r.stdout.split('\n');
  return { code: Number(code), stderr: rest.join('\n') };
}

/** Runs `vidpub ARGS | head -1` in bash; the exit code is vidpub's (PIPESTATUS), stderr vidpub's. */
const piped = (args: string, reader = 'head -c 1') => inBash(`${VIDPUB} ${args} 2>"$ERR" | ${reader} >/dev/null; echo "\${PIPESTATUS[0]}"`);

/**
 * `vidpub ARGS` with stdout a pipe whose reader is gone before vidpub starts (a FIFO opened for reading and
 * writing, then its reading end closed): its first write meets EPIPE every time, where a reader that exits on its
 * own (`| head`, `| true`) races vidpub's writes. (Not a process substitution waited for: bash 5.2's `wait $!` on
 * one that has ended at once sometimes returns 255 without waiting; test/docs/doctest.test.ts met it.) The exit
 * code is vidpub's, stderr vidpub's.
 */
const intoGoneReader = (args: string) =>
  inBash(`gone="$ERR.fifo"; mkfifo "$gone"; exec 4<>"$gone" 3>"$gone" 4<&-; rm -f "$gone"; ${VIDPUB} ${args} 2>"$ERR" >&3; echo "$?"`);

describe('output into a pipe closed early', () => {
  // Once each as a user types it; the EPIPE itself is met for certain below (a reader gone before the first write),
  // where five runs of each into `head` met it when the race fell that way.
  it.each(['--help', 'options tiktok', 'destinations --all', 'me'])('vidpub %s | head -c 1: exit 0, nothing on stderr', async (args) => {
    const r = await piped(args);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(r.code).toBe(0);
  });

  it.each(['--version', '--help', 'options tiktok', 'destinations --all', 'me'])('vidpub %s into a pipe whose reader is already gone: exit 0, nothing on stderr', async (args) => {
    // The fast path (--version, --help) writes to the file descriptor itself (bin/vidpub.js, writeOut), the commands
    // through process.stdout: EPIPE at either is no failure.
    const r = await intoGoneReader(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it.skipIf(missing('python3', ['-c', 'pass']))(
    'vidpub --help into a full pipe set non-blocking by another process: the help arrives whole, after what was there (EAGAIN)',
    () => {
      // The write end is full (64 KiB) and O_NONBLOCK, as a pipe shared with another program may be:
      // the fast path's write gets EAGAIN and hands the rest to process.stdout, which waits for the reader.
      // The reader starts once vidpub waits (its main thread in epoll_wait, as /proc/PID/wchan shows), not after a
      // guess of how long Node takes to start.
      const script = [
        'import os, fcntl, subprocess, sys, time',
        'r, w = os.pipe()',
        "os.write(w, b'x' * 65536)",
        'fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)',
        "p = subprocess.Popen(['node', sys.argv[1], '--help'], stdout=w, stderr=subprocess.PIPE)",
        'os.close(w)',
        'while p.poll() is None:',
        "    with open(f'/proc/{p.pid}/wchan') as f:",
        "        if 'epoll' in f.read(): break",
        '    time.sleep(0.005)',
        'data = b""',
        'while True:',
        '    b = os.read(r, 65536)',
        '    if not b: break',
        '    data += b',
        'p.wait()',
        "sys.stdout.write(f'{p.returncode}\\n{len(data)}\\n{p.stderr.read().decode()}\\n')",
        "sys.stdout.write(data[65536:].decode())",
      ].join('\n');
      const help = spawnSync('node', [join(ROOT, 'bin/vidpub.js'), '--help'], { encoding: 'utf8' }).stdout;
      const r = spawnSync('python3', ['-c', script, join(ROOT, 'bin/vidpub.js')], { encoding: 'utf8' });
      const [code, length, stderr, ...rest] = r.stdout.split('\n');
      expect(code).toBe('0');
      expect(stderr).toBe('');
      expect(Number(length)).toBe(65536 + Buffer.byteLength(help));
      expect(rest.join('\n')).toBe(help);
    },
  );

  it('a batch whose first item line is read and the pipe closed: the later lines are dropped, the batch ends well (exit 0)', async () => {
    // A draft ends at once, the post to publish about a second later: its line is written after head has gone.
    writeFileSync(join(box.cwd, 'two.yaml'), 'items:\n  - media: med_demo_sample\n    to: linkedin\n    caption: first\n    draft: true\n  - media: med_demo_sample\n    to: linkedin\n    caption: second\n');
    const r = await piped('batch two.yaml --yes --no-input', 'head -n 1');
    expect(r.stderr).not.toMatch(/EPIPE|Error| {4}at /);
    expect(r.code).toBe(0);
  });

  it('output larger than a pipe holds, into a reader that starts late: every item arrives, the last one whole, exit 0 (no exit before stdout is written)', async () => {
    // 1,200 items' plan is some 180 KB, more than twice what a pipe holds (64 KiB): with the reader not yet
    // reading, the rest waits in vidpub, which must not exit before it is written. (3,000 items, and a run
    // without the pipe to count their bytes, spent 3 s of CPU on the same proof: every caption in order and the
    // last item's lines as whole as the first's say that nothing was dropped.)
    const items = 1200;
    const rows = Array.from({ length: items }, (_, i) => `- media: med_demo_sample\n  to: linkedin\n  caption: Late reader ${i + 1}\n  draft: true\n`);
    writeFileSync(join(box.cwd, 'late.yaml'), rows.join(''));
    const r = await piped('batch late.yaml --dry-run', '(sleep 1; cat > late.out)');
    expect(r.code).toBe(0);
    const out = readFileSync(join(box.cwd, 'late.out'), 'utf8');
    expect(Buffer.byteLength(out)).toBeGreaterThan(2 * 64 * 1024);
    expect([...out.matchAll(/Late reader (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(Array.from({ length: items }, (_, i) => i + 1));
    // The first item's lines from its caption on (up to the blank line before item 2), then the last item's: the same.
    const firstFrom = out.indexOf('Late reader 1\n');
    const first = out.slice(firstFrom, out.indexOf('\n\n', firstFrom) + 1);
    expect(first.split('\n').length).toBeGreaterThan(2);
    expect(out.slice(out.lastIndexOf(`Late reader ${items}\n`))).toBe(first.replace('Late reader 1\n', `Late reader ${items}\n`));
  });

  it('a short tail still queued behind a full pipe when the command ends: it arrives, and the exit code is the command\'s', () => {
    // bin/when-written.js, as bin/vidpub.js exits through it: 64 KiB fill the pipe, 100 bytes more wait in Node,
    // under the stream's high-water mark (so no 'drain' would come), and the command's code is 3. The reader
    // starts once the writer waits (a file it writes then), not after a guess of how long that takes.
    const marker = join(box.cwd, `waiting-${Math.random().toString(36).slice(2)}`);
    const writer = [
      `const { whenWritten } = require(${JSON.stringify(join(ROOT, 'bin/when-written.js'))});`,
      `process.stdout.write(Buffer.alloc(65536, 97));`,
      `process.stdout.write('x'.repeat(99) + '\\n');`,
      `whenWritten([process.stdout, process.stderr], () => process.exit(3));`,
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');`,
    ].join(' ');
    const script = `node -e ${JSON.stringify(writer)} | { while [ ! -e ${JSON.stringify(marker)} ]; do sleep 0.01; done; wc -c; }; echo "\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').map((l) => l.trim())).toEqual(['65636', '3', '']);
  });
});
