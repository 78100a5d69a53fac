// Bundles src/ into dist/ with esbuild: ESM, code splitting so each command and
// each heavy dependency is its own chunk, loaded only when used.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: false,
  legalComments: 'none',
  define: { __VIDPUB_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
