/**
 * The run's own homes (vitest.config.ts sets them up before the workers start; this globalSetup
 * removes them when the run ends). Without them a test that gives vidpub no directories of its
 * own wrote into the user's: posts of the suite in the real journal (`vidpub history` showed
 * them), their keys' records in the real cache, and the next run found them (a post refused as a
 * duplicate, seen in a full run). And every test's temporary directory, a test that failed before
 * its clean-up included, stays in this run's directory, not in the machine's /tmp (thousands of
 * entries a run, which only grew the directory every later mkdtemp searches).
 *
 * XDG_CONFIG_HOME, XDG_STATE_HOME and XDG_CACHE_HOME are the run's, and so are TMPDIR (os.tmpdir())
 * and TMUX_TMPDIR (the pty tests' tmux servers' sockets, hundreds a run in /tmp/tmux-UID before);
 * HOME stays the user's: npm's cache, the shells and the keyring a test starts read it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUN = 'VIDPUB_TEST_RUN_DIR';

/** Called by vitest.config.ts, in the run's main process, before any worker starts. */
export function useRunHomes(): void {
  const env = process.env;
  if (env[RUN]) return;
  const run = mkdtempSync(join(tmpdir(), 'vidpub-run-'));
  const homes = { XDG_CONFIG_HOME: 'config', XDG_STATE_HOME: 'state', XDG_CACHE_HOME: 'cache', TMPDIR: 'tmp', TMUX_TMPDIR: 'tmux' } as const;
  for (const [name, sub] of Object.entries(homes)) {
    const dir = join(run, sub);
    mkdirSync(dir, { mode: 0o700 });
    env[name] = dir;
  }
  env[RUN] = run;
}

/** globalSetup: removes the run's directory once every file has run. */
export default function setup(): () => void {
  return () => {
    const run = process.env[RUN];
    if (run) rmSync(run, { recursive: true, force: true, maxRetries: 3 });
  };
}
