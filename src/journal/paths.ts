import { homedir } from 'node:os';
import { join } from 'node:path';

/** $VIDPUB_STATE_DIR, else $XDG_STATE_HOME/vidpub, else ~/.local/state/vidpub. */
export function stateDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.VIDPUB_STATE_DIR) return env.VIDPUB_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'vidpub');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.local', 'state', 'vidpub');
}

/** --no-journal or VIDPUB_NO_JOURNAL=1: nothing is kept. */
export function journalDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env.VIDPUB_NO_JOURNAL;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}
