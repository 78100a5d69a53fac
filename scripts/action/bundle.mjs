// The prebuilt dist/ the GitHub Action runs, and whether it was built from the sources beside it.
//
// A release of the action is a commit that carries dist/ (git add -f dist, see
// docs/scripts-ci-cron.md): the runner downloads the action's repository at that ref and the
// step runs `node bin/vidpub.js` from it at once, no `npm ci`, no build. The post path of the
// action (--no-input --json, the key in VIDPUB_API_KEY) loads nothing from node_modules: no
// prompt, no progress bar, no YAML, no keychain. scripts/build.mjs writes dist/SOURCES, the
// digest of what it built from (SOURCES below); `node scripts/action/bundle.mjs check` compares
// it with the checkout, so a dist/ that a later commit left behind is never run: action.yml then
// builds anew (npm ci), as it does for a ref without dist/.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What the build reads: a change to any of them makes another dist/. */
export const SOURCES = ['src', 'scripts/build.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'test/fixtures/clip.mp4'];

/** The file dist/ holds its sources' digest in. */
export const STAMP = 'SOURCES';

function filesUnder(root, path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true })
    .flatMap((e) => filesUnder(root, join(path, e.name)))
    .sort();
}

/** sha256 over the sources' paths and contents, in order. */
export function sourceDigest(root) {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap((p) => filesUnder(root, p))) {
    hash.update(relative(root, join(root, file)).split(sep).join('/') + '\0');
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Why root's dist/ cannot be run as it is, or undefined when it was built from root's sources. */
export function staleBundle(root) {
  const stamp = join(root, 'dist', STAMP);
  if (!existsSync(join(root, 'dist', 'main.js')) || !existsSync(stamp)) return 'this ref of the action carries no prebuilt dist/';
  const built = readFileSync(stamp, 'utf8').trim();
  return built === sourceDigest(root) ? undefined : 'the prebuilt dist/ was built from other sources than this ref';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(import.meta.dirname, '..', '..');
  if (process.argv[2] !== 'check') {
    process.stderr.write('usage: node scripts/action/bundle.mjs check\n');
    process.exitCode = 2;
  } else {
    const why = staleBundle(root);
    if (why) process.stdout.write(`${why}: building vidpub (npm ci, about a minute)\n`);
    process.exitCode = why ? 1 : 0;
  }
}
