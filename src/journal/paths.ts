import { envFlag } from '../util/env.js';

/** $VIDPUB_STATE_DIR, else $XDG_STATE_HOME/vidpub, else ~/.local/state/vidpub (one rule with the cache's: src/util/xdg.ts). */
export { stateDir } from '../util/xdg.js';

/** --no-journal or VIDPUB_NO_JOURNAL=1: nothing is kept. */
export function journalDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  return envFlag(env, 'VIDPUB_NO_JOURNAL');
}
