/**
 * Text as it was meant: a file whose name is not valid UTF-8 gets a message that says so and what
 * to do (the real bin through a shell, where the name's bytes arrive as U+FFFD); a caption file's
 * byte order mark is not posted (a file, stdin); and `history`'s caption column is cut to the
 * terminal's width, whole in a pipe and in --json (all the journal keeps of it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const dir = mkdtempSync(join(tmpdir(), 'vidpub-exact-text-'));
const NOT_UTF8 = 'Its name is not valid UTF-8 (each \ufffd stands for bytes that are not), so it reached vidpub changed and cannot be opened by it: rename the file to a UTF-8 name';

describe('a file name that is not valid UTF-8', () => {
  beforeAll(() => {
    ensureBuilt();
    // café.mp4 in Latin-1: é is the single byte 0xE9.
    copyFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4'), Buffer.from(join(dir, 'caf\xe9.mp4'), 'latin1'));
  });

  it('the real bin, given the name by a shell: says it is not UTF-8 and what to do (exit 2), nothing sent', () => {
    const r = spawnSync('bash', ['-c', `cd ${JSON.stringify(dir)} && exec "$0" "$1" post $'caf\\xe9.mp4' --to linkedin --caption x --no-input`, process.execPath, BIN], {
      env: { ...process.env, ...emu.env(), HOME: dir, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state') },
      encoding: 'utf8',
    });
    expect(r.stderr).toContain(`Error: caf\ufffd.mp4: no such file. ${NOT_UTF8}`);
    expect(r.stderr).not.toContain('Check the path');
    expect(r.status).toBe(2);
    expect(execFileSync('ls', [dir], { encoding: 'latin1' })).toContain('caf\xe9.mp4'); // the file is there, under its own name
  });

  it('a caption file named so: the same message (exit 2)', async () => {
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', join(dir, 'caption\ufffd.txt'), '--no-input'], { env: emu.env() });
    expect(r.stderr).toContain(`caption\ufffd.txt: no such file. ${NOT_UTF8}`);
    expect(r.code).toBe(2);
  });
});

describe("a caption file's byte order mark", () => {
  it('is dropped, from a file and from stdin: the caption posted is the text alone', async () => {
    const file = join(dir, 'caption.txt');
    writeFileSync(file, '\ufeffHello from Notepad\r\n');
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--draft', '--json', '--no-input'];
    const fromFile = await runCli([...args, '--caption-file', file], { env: emu.env() });
    expect(fromFile.code).toBe(0);
    expect((JSON.parse(fromFile.stdout) as Post).caption).toBe('Hello from Notepad');
    const fromStdin = await runCli([...args, '--caption-file', '-'], { env: emu.env(), stdin: '\ufeffFrom a pipe\n' });
    expect(fromStdin.code).toBe(0);
    expect((JSON.parse(fromStdin.stdout) as Post).caption).toBe('From a pipe');
  });
});

describe("history's caption column", () => {
  it('at a terminal: cut to the width, a word that long too; in a pipe and in --json: whole', async () => {
    const env = { ...emu.env(), VIDPUB_STATE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-exact-history-')) };
    const caption = `${'x'.repeat(3000)} ${'word '.repeat(600)}`.trim();
    const made = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', caption, '--draft', '--json', '--no-input'], { env });
    expect(made.code).toBe(0);
    for (const columns of [200, 100]) {
      const r = await runCli(['history'], { env, tty: { stdout: true }, columns });
      const lines = r.stdout.replace(/\u001b\[[0-9;]*m/g, '').trimEnd().split('\n'); // eslint-disable-line no-control-regex
      expect(lines).toHaveLength(2);
      expect(Math.max(...lines.map((l) => l.length))).toBe(columns);
      expect(lines[1]).toMatch(/ x+…$/);
    }
    // The journal keeps a caption's first 200 characters (journal-records.ts): a pipe and --json show all it keeps.
    const piped = await runCli(['history'], { env });
    expect(piped.stdout.trimEnd().split('\t').pop()).toBe(caption.slice(0, 200));
    const json = await runCli(['history', '--json'], { env });
    expect((JSON.parse(json.stdout) as { caption: string }[])[0]!.caption).toBe(caption.slice(0, 200));
  });
});
