/**
 * A reader that stops early (`| head -1`): vidpub's output has nowhere to go,
 * which is no failure. The built binary must neither crash with EPIPE nor
 * print a stack trace, and exits as the command did.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { useBuiltEmulatorSandbox } from '../support/built-emulator.js';
import { missing } from '../support/tools.js';

const box = useBuiltEmulatorSandbox('pipe');

/** Runs `vidpub ARGS | head -1` in bash; the exit code is vidpub's (PIPESTATUS), stderr vidpub's. */
function piped(args: string, reader = 'head -c 1'): { code: number; stderr: string } {
  const script = `node ${JSON.stringify(join(ROOT, 'bin/vidpub.js'))} ${args} 2>"$ERR" | ${reader} >/dev/null; echo "\${PIPESTATUS[0]}"`;
  const err = join(box.cwd, `stderr-${Math.random().toString(36).slice(2)}`);
  const r = spawnSync('bash', ['-c', `${script}; cat "$ERR"`], {
    env: { PATH: process.env.PATH, HOME: box.home, ERR: err, VIDPUB_BASE_URL: box.baseUrl, VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', VIDPUB_NO_COMPILE_CACHE: '1' },
    cwd: box.cwd,
    encoding: 'utf8',
  });
  const [code, ...rest] = r.stdout.split('\n');
  return { code: Number(code), stderr: rest.join('\n') };
}

describe('output into a pipe closed early', () => {
  it.each(['--help', 'options tiktok', 'destinations --all', 'me'])('vidpub %s | head -c 1: exit 0, nothing on stderr (5 runs)', (args) => {
    for (let i = 0; i < 5; i++) {
      const r = piped(args);
      expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
      expect(r.code).toBe(0);
    }
  });

  it.each(['--version', '--help'])('vidpub %s into a reader that is already gone (| true): exit 0, nothing on stderr', (args) => {
    // The fast path writes to the file descriptor itself (bin/vidpub.js, writeOut): EPIPE there is no failure either.
    for (let i = 0; i < 3; i++) {
      const r = piped(args, 'true');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
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

  it('a batch whose first item line is read and the pipe closed: the later lines are dropped, the batch ends well (exit 0)', () => {
    // A draft ends at once, the post to publish about a second later: its line is written after head has gone.
    writeFileSync(join(box.cwd, 'two.yaml'), 'items:\n  - media: med_demo_sample\n    to: linkedin\n    caption: first\n    draft: true\n  - media: med_demo_sample\n    to: linkedin\n    caption: second\n');
    const r = piped('batch two.yaml --yes --no-input', 'head -n 1');
    expect(r.stderr).not.toMatch(/EPIPE|Error| {4}at /);
    expect(r.code).toBe(0);
  });

  it('output larger than a pipe holds, into a reader that starts late: every byte arrives, exit 0 (no exit before stdout is written)', () => {
    // 3,000 items' plan is some 400 KB, several times what a pipe holds: with the reader not yet
    // reading, the rest waits in vidpub, which must not exit before it is written.
    const rows = Array.from({ length: 3000 }, (_, i) => `- media: med_demo_sample\n  to: linkedin\n  caption: Late reader ${i + 1}\n  draft: true\n`);
    writeFileSync(join(box.cwd, 'late.yaml'), rows.join(''));
    const whole = spawnSync('node', [join(ROOT, 'bin/vidpub.js'), 'batch', 'late.yaml', '--dry-run'], {
      env: { PATH: process.env.PATH, HOME: box.home, VIDPUB_BASE_URL: box.baseUrl, VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', VIDPUB_NO_COMPILE_CACHE: '1' },
      cwd: box.cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(whole.status).toBe(0);
    expect(whole.stdout.length).toBeGreaterThan(256 * 1024);
    expect(whole.stdout).toContain('Late reader 3000');
    const r = piped('batch late.yaml --dry-run', '(sleep 1; wc -c > late.count)');
    expect(r.code).toBe(0);
    expect(Number(readFileSync(join(box.cwd, 'late.count'), 'utf8').trim())).toBe(Buffer.byteLength(whole.stdout));
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
