/**
 * Where vidpub keeps files between runs, per the XDG base directories. One
 * place for the rules: the journal (state) and the cache read them from here.
 * bin/compile-cache.js, which runs before this bundle is loaded, applies the
 * same cache rule in CommonJS (test/cache/paths.test.ts checks they agree).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** $VIDPUB_STATE_DIR, else $XDG_STATE_HOME/vidpub, else ~/.local/state/vidpub. */
export function stateDir(env: Env): string {
  if (env.VIDPUB_STATE_DIR) return env.VIDPUB_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'vidpub');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.local', 'state', 'vidpub');
}

/**
 * $VIDPUB_CACHE_DIR, else $XDG_CACHE_HOME/vidpub, else ~/.cache/vidpub; undefined
 * when the environment names no home (then nothing is cached).
 */
export function cacheDir(env: Env): string | undefined {
  if (env.VIDPUB_CACHE_DIR) return env.VIDPUB_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'vidpub');
  const home = env.HOME || env.USERPROFILE;
  return home ? join(home, '.cache', 'vidpub') : undefined;
}
