import { InterruptedError, UsageError, sanitize } from '../../errors.js';
import { removeKey } from '../../config/key-store.js';
import { keychainName, profileCommand, storageName, type KeyStorage } from '../../config/key-storage.js';
import { defineCommand } from '../run/command.js';

export interface LogoutResult {
  profile: string;
  /** True when a stored key was removed. */
  removed: boolean;
  /** Where the removed key was: the OS store (`keychain`) or the config file (`file`); null when there was none. */
  storage: KeyStorage | null;
  config_path: string;
  /** An earlier copy of the key was removed from the keychain too (the key itself was in the file). */
  also_keychain: boolean;
  /** Keychain entries left as they were, each with why (an earlier vidpub's entry holding another key; a keyring that could not be reached). */
  left: string[];
}

export default defineCommand<'logout', Record<string, never>, LogoutResult>({
  description:
    "Forget a profile's stored API key (the profile's base URL is kept for the next login). " +
    'The key itself stays valid at the service: revoke it in the web app if it was exposed.',
  examples: ['vidpub logout', 'vidpub logout --profile ci'],
  parse() {
    return {};
  },
  async run(_opts, inv) {
    const { ctx, globals } = inv;
    const { openConfigStore } = await import('../../config/config-store.js');
    const store = await openConfigStore(ctx.env, ctx.cwd, { writable: true, clock: ctx.clock });
    // A profile never stored (a typo): nothing to log out of, said as an error (exit 2), with the ones there are.
    if (!store.getProfile(globals.profile)) throw notStored(globals.profile, store.listProfiles());
    let removed;
    try {
      // Ctrl-C ends a wait for another vidpub's lock on the file.
      removed = await removeKey(store, ctx.env, globals.profile, ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) throw new InterruptedError('Interrupted: nothing was changed.');
      throw err;
    }
    if (ctx.env.VIDPUB_API_KEY?.trim()) {
      inv.log.warn('VIDPUB_API_KEY is still set in this environment: commands keep using that key.');
    }
    for (const why of removed.left) inv.log.warn(`Left in place: ${why}.`);
    if (removed.left.length > 0) inv.log.warn(`Unlock the keyring if it is locked and run "${profileCommand('logout', globals.profile)}" again, or remove the entry with your keyring's tool.`);
    return { profile: globals.profile, removed: removed.removed, storage: removed.storage, config_path: store.path, also_keychain: removed.keychainCopy, left: removed.left };
  },
  // A message, not data: stderr (as gh's logout); --json prints the result on stdout.
  print(r, inv) {
    if (r.removed) {
      const also = r.also_keychain ? ` and an earlier copy from ${keychainName()}` : '';
      inv.log.info(`Logged out: the key of profile "${sanitize(r.profile)}" was removed from ${storageName(r.storage ?? 'file', r.config_path)}${also}.`);
      inv.log.info('The key is still valid at the service; revoke it in the web app (API settings) if it was exposed.');
    } else {
      inv.log.info(`Not logged in: profile "${r.profile}" has no stored key (already logged out).`);
    }
  },
});

function notStored(name: string, stored: string[]): UsageError {
  return new UsageError(`no profile "${sanitize(name)}" is stored: nothing to log out of`, {
    hint: stored.length > 0 ? `Stored profiles: ${stored.map(sanitize).join(', ')} ("vidpub profiles" lists them).` : 'No profile is stored ("vidpub login" stores one).',
  });
}
