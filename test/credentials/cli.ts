/**
 * vidpub against the emulator, in a config dir of its own, with a D-Bus
 * session's environment: what the keychain tests run. The built CLI as a child
 * process, or (`in-process`) the same main(argv, ctx) in the test's process
 * with that environment as its Context's env: the keychain's helper is a child
 * process either way (src/config/keychain.ts), started with that env.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { BIN, runAsync, type Ran } from '../support/build.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import type { TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { TOOLS } from '../support/secret-service.js';

export interface Vidpub {
  dir: string;
  /** The path of config.json, which names the account the key is filed under: `<profile>@<path>`. */
  configPath: string;
  /** `clock`: the Context's (in-process only). */
  run(args: string[], opts?: { input?: string; env?: Record<string, string>; clock?: Clock }): Promise<Ran>;
  /** config.json's text ('' when there is none). */
  configText(): string;
  profile(name?: string): Record<string, string> | undefined;
  /** Writes config.json as a vidpub before the keychain wrote it: the key in the file. */
  writeConfig(profiles: Record<string, Record<string, string>>): void;
}

/**
 * A config dir and a runner of vidpub with `env` (the D-Bus session's, or none): the built CLI, or with
 * `in-process` main() in this process (its config dir is absolute: nothing depends on the process's cwd).
 */
export function vidpub(emu: TestEmulator, env: () => Record<string, string>, how: 'bin' | 'in-process' = 'bin'): Vidpub {
  const dir = tempConfigDir();
  const configPath = join(dir, 'config.json');
  const envOf = (more?: Record<string, string>) => ({ PATH: process.env.PATH ?? '', VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_BASE_URL: emu.baseUrl, NO_COLOR: '1', ...env(), ...more });
  const configText = () => {
    try {
      return readFileSync(configPath, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    dir,
    configPath,
    run:
      how === 'bin'
        ? (args, opts = {}) => runAsync(process.execPath, [BIN, ...args], { env: envOf(opts.env), input: opts.input ?? '' })
        : async (args, opts = {}) => {
            const r = await runCli(args, { env: envOf(opts.env), stdin: opts.input ?? '', ...(opts.clock ? { clock: opts.clock } : {}) });
            return { status: r.code, stdout: r.stdout, stderr: r.stderr };
          },
    configText,
    profile: (name = 'default') => (JSON.parse(configText() || '{}') as { profiles?: Record<string, Record<string, string>> }).profiles?.[name],
    writeConfig(profiles) {
      writeFileSync(configPath, JSON.stringify({ profiles }));
      chmodSync(configPath, 0o600);
    },
  };
}

/**
 * describe() when the Secret Service tools are installed, by test/support/tools.ts's rule: under
 * CI (CI set), where .ci/run installs them, a missing tool fails the test file; elsewhere the
 * tests are skipped.
 */
export function describeWithSecretService(name: string, body: () => void): void {
  const absent = TOOLS.filter((t) => missing(t, null));
  if (absent.length > 0) console.warn(`${name}: skipped, ${absent.join(', ')} not installed (Debian: gnome-keyring dbus-daemon libsecret-tools)`);
  describe.skipIf(absent.length > 0)(name, body);
}
