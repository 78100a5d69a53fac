import { mkdtempSync, truncateSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileChunks, FileChangedError } from '../../src/api/upload/file-chunks.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 251));

async function collect(chunks: FileChunks): Promise<{ data: Buffer; sizes: number[] }> {
  const parts: Buffer[] = [];
  const sizes: number[] = [];
  // Copy each chunk before asking for the next: the reader reuses its buffers, as undici's writer allows.
  for await (const c of chunks.read()) {
    parts.push(Buffer.from(c));
    sizes.push(c.length);
  }
  return { data: Buffer.concat(parts), sizes };
}

describe('FileChunks', () => {
  it('reads the whole file in chunks of the given size through reused buffers, bytes intact', async () => {
    const bytes = pattern(10_000);
    const { data, sizes } = await collect(new FileChunks(file('a.bin', bytes), 'a.bin', bytes.length, 4096));
    expect(sizes).toEqual([4096, 4096, 1808]);
    expect(data.equals(bytes)).toBe(true);
  });

  it('throws FileChangedError when the file is larger than announced', async () => {
    const p = file('grown.bin', pattern(5000));
    const err = await collect(new FileChunks(p, 'grown.bin', 4000, 1024)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileChangedError);
    expect((err as Error).message).toMatch(/grown\.bin changed size during the upload \(it was 4,000 bytes, now larger\)/);
  });

  it('throws FileChangedError when the file is shorter than announced', async () => {
    const p = file('shrunk.bin', pattern(5000));
    truncateSync(p, 3000);
    const err = await collect(new FileChunks(p, 'shrunk.bin', 5000, 1024)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileChangedError);
    expect((err as Error).message).toMatch(/shrunk\.bin changed size during the upload \(it was 5,000 bytes, only 3,000 could be read\)/);
  });
});
