/**
 * Where vidpub keeps files between runs, per the XDG base directories. One
 * place for the rules: the journal (state) and the cache read them from here.
 * bin/compile-cache.js, which runs before this bundle is loaded, applies the
 * same cache rule in CommonJS (test/cache/key-cache.test.ts checks they agree).
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * An XDG base directory variable's value when it can be used: the XDG spec
 * says a relative path there is invalid and ignored (it would follow the
 * current directory, so a cron job's state would land wherever it ran).
 * The VIDPUB_*_DIR variables are used as given.
 */
export function xdgBase(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v && isAbsolute(v) ? v : undefined;
}

/** $VIDPUB_STATE_DIR, else $XDG_STATE_HOME/vidpub (when absolute), else ~/.local/state/vidpub. */
export function stateDir(env: Env): string {
  if (env.VIDPUB_STATE_DIR) return env.VIDPUB_STATE_DIR;
  const xdg = xdgBase(env.XDG_STATE_HOME);
  if (xdg) return join(xdg, 'vidpub');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.local', 'state', 'vidpub');
}

/**
 * $VIDPUB_CACHE_DIR, else $XDG_CACHE_HOME/vidpub (when absolute), else ~/.cache/vidpub; undefined
 * when the environment names no home (then nothing is cached).
 */
export function cacheDir(env: Env): string | undefined {
  if (env.VIDPUB_CACHE_DIR) return env.VIDPUB_CACHE_DIR;
  const xdg = xdgBase(env.XDG_CACHE_HOME);
  if (xdg) return join(xdg, 'vidpub');
  const home = env.HOME || env.USERPROFILE;
  return home ? join(home, '.cache', 'vidpub') : undefined;
}
