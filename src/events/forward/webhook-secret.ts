/**
 * The secret `vidpub watch --forward-to` signs its webhooks with (./signature.ts): one per profile,
 * made on first need (`--print-secret` or `--forward-to`) and kept where the profile's key is kept
 * (src/config/key-store.ts): in the OS store when the key is there (service "vidpub", the account
 * `webhook-secret:<profile>@<canonical path of config.json>`), else in the config directory's
 * webhook-secrets.json (0600, written whole, atomically). Both are made under the lock on that file,
 * so two runs that need it at once make one. It never goes in argv, a log, --debug output or a
 * child's environment; a command that holds it has its streams take it out (redaction knows it).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { canonicalConfigPath, configFile } from '../../config/config-store.js';
import { keyStorage, keychainName, profileCommand } from '../../config/key-storage.js';
import { KeychainUnavailable, keychain } from '../../config/keychain.js';
import type { Profile } from '../../config/profile-types.js';
import { VidpubError, sanitize } from '../../errors.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { withFileLock } from '../../util/file-lock.js';
import { nodeCrypto } from '../../util/lazy-builtins.js';
import type { Secret } from '../../util/redact.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What every secret starts with (as Stripe's whsec_): a person knows it for what it is. */
export const SECRET_PREFIX = 'vpwhsec_';

export const SECRETS_FILE = 'webhook-secrets.json';

interface SecretsFile {
  v: 1;
  secrets: Record<string, string>;
}

export interface WebhookSecret {
  secret: string;
  /** Where it is kept, for people: the OS store's name or the file's path. */
  where: string;
  /** Made by this call. */
  created: boolean;
}

const PURPOSE = {
  file: 'the file of the webhook secrets',
  holders: 'another vidpub watch',
  notDone: 'no webhook secret was made',
  directory: 'the config directory',
};

/** A new secret: the prefix and 32 random bytes, base64url. */
function newSecret(): string {
  return SECRET_PREFIX + nodeCrypto().randomBytes(32).toString('base64url');
}

/** How the secret stands in text vidpub prints (its prefix and last 4), when it is not meant to be shown. */
export function secretForm(secret: string): Secret {
  return { text: secret, shown: `${SECRET_PREFIX}…${secret.slice(-4)}` };
}

function readSecrets(path: string): SecretsFile {
  if (!existsSync(path)) return { v: 1, secrets: {} };
  let doc: Partial<SecretsFile>;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as Partial<SecretsFile>;
  } catch (err) {
    throw new VidpubError(`The file of the webhook secrets ${sanitize(path)} cannot be read (${sanitize((err as Error).message)}); it was left as it was.`, {
      hint: 'Move it away to make new secrets (the receivers then need the new ones: vidpub watch --print-secret).',
    });
  }
  return { v: 1, secrets: doc && typeof doc.secrets === 'object' && doc.secrets !== null ? doc.secrets : {} };
}

/**
 * Profile `name`'s webhook secret (`profile`: the profile as config.json holds it, to know where its key
 * lives), made and stored when it has none; for a command run in `cwd` (a relative config directory is read
 * against it: configFile).
 */
export async function webhookSecret(env: Env, cwd: string, name: string, profile: Profile | undefined, signal?: AbortSignal): Promise<WebhookSecret> {
  const config = configFile(env, cwd);
  const dir = dirname(config.path);
  const path = join(dir, SECRETS_FILE);
  // Where it is kept, as the config directory is spelled (as login says where the key is).
  const where = join(dirname(config.spelled), SECRETS_FILE);
  const inKeychain = keyStorage(profile) === 'keychain';
  if (!inKeychain) {
    const known = readSecrets(path).secrets[name];
    if (known) return { secret: known, where, created: false };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return withFileLock(path, { purpose: PURPOSE, signal }, async () => {
    if (inKeychain) return inOsStore(env, `webhook-secret:${name}@${canonicalConfigPath(config.path)}`, name, signal);
    const doc = readSecrets(path);
    const known = doc.secrets[name];
    if (known) return { secret: known, where, created: false };
    doc.secrets[name] = newSecret();
    writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, { mkdir: true });
    return { secret: doc.secrets[name], where, created: true };
  });
}

async function inOsStore(env: Env, account: string, name: string, signal?: AbortSignal): Promise<WebhookSecret> {
  try {
    const known = await keychain.get(env, account, { signal });
    if (known) return { secret: known, where: keychainName(), created: false };
    const secret = newSecret();
    await keychain.set(env, account, secret, { signal });
    return { secret, where: keychainName(), created: true };
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    throw new VidpubError(`The webhook secret of profile "${sanitize(name)}" is kept in ${keychainName()} with its key, which could not be reached: ${err.message}.`, {
      hint: `Unlock the keyring (or start a desktop session) and run the command again, or run "${profileCommand('login', name)} --insecure-storage" to keep the key and the secret in the config directory.`,
    });
  }
}
