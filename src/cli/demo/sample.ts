/**
 * The demo's sample video: a real 2 s, 64x64 H.264 MP4 (test/fixtures/clip.mp4,
 * made with `ffmpeg -f lavfi -i testsrc=size=64x64:rate=10 -t 2 -pix_fmt yuv420p
 * -c:v libx264 -preset ultrafast clip.mp4`). The build copies it to
 * dist/assets/clip.mp4, next to the bundle's chunks, so the installed package
 * carries it; run from the sources (tests), it is read from test/fixtures/. The
 * single executable (scripts/build-sea.mjs) carries it as an asset instead.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VidpubError } from '../../errors.js';

/** Where the sample may be, in order: beside the bundle, then in a checkout. */
export function sampleVideoCandidates(): string[] {
  return [new URL('./assets/clip.mp4', import.meta.url), new URL('../../../test/fixtures/clip.mp4', import.meta.url)].map((u) => fileURLToPath(u));
}

/** Writes the sample video into `dir` as `name`; returns its path. */
export async function writeSampleVideo(dir: string, name = 'vidpub-demo.mp4'): Promise<string> {
  const target = join(dir, name);
  const sea = await import('node:sea');
  if (sea.isSea()) {
    await writeFile(target, new Uint8Array(sea.getAsset('clip.mp4')));
    return target;
  }
  for (const source of sampleVideoCandidates()) {
    try {
      await copyFile(source, target);
      return target;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new VidpubError('the demo\'s sample video is missing from this installation', {
    hint: 'Reinstall vidpub, or run "npm run build" in a checkout (it copies test/fixtures/clip.mp4 to dist/assets/).',
  });
}
