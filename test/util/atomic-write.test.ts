/**
 * The one atomic write (src/util/atomic-write.ts), both forms: the file is
 * whole with its mode whatever the umask, a link keeps pointing to the file it
 * replaced, a missing directory is made only when asked, and a write that
 * fails throws the file system's code and leaves no temporary file behind.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicAsync } from '../../src/util/atomic-write.js';

const FORMS = [
  ['writeFileAtomic', async (p: string, t: string, o?: { mode?: number; mkdir?: boolean }) => writeFileAtomic(p, t, o)],
  ['writeFileAtomicAsync', writeFileAtomicAsync],
] as const;

describe.each(FORMS)('%s', (_name, write) => {
  const fresh = () => mkdtempSync(join(tmpdir(), 'vidpub-atomic-'));

  it('replaces the file whole, 0600 by default and the mode asked for whatever the umask', async () => {
    const dir = fresh();
    const file = join(dir, 'f.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    const umask = process.umask(0o077);
    try {
      await write(file, 'new');
      expect(readFileSync(file, 'utf8')).toBe('new');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await write(file, 'newer', { mode: 0o644 });
      expect(statSync(file).mode & 0o777).toBe(0o644);
    } finally {
      process.umask(umask);
    }
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('a link keeps pointing to the file, which is the one replaced', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'real.json'), 'old');
    symlinkSync('real.json', join(dir, 'link.json'));
    await write(join(dir, 'link.json'), 'new');
    expect(lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link.json'))).toBe('real.json');
    expect(readFileSync(join(dir, 'real.json'), 'utf8')).toBe('new');
  });

  it('makes a missing directory (0700) only when asked', async () => {
    const dir = fresh();
    await expect(write(join(dir, 'sub', 'f'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    await write(join(dir, 'sub', 'f'), 'x', { mkdir: true });
    expect(readFileSync(join(dir, 'sub', 'f'), 'utf8')).toBe('x');
    expect(statSync(join(dir, 'sub')).mode & 0o777).toBe(0o700);
  });

  it('a rename that fails (a directory in the way) throws its code and leaves no temporary file', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'f'));
    await expect(write(join(dir, 'f'), 'x')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(readdirSync(dir)).toEqual(['f']);
  });
});
