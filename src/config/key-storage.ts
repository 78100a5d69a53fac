/**
 * Where a profile's key is kept, as config.json records it (key-store.ts
 * writes it), and how that is said: cheap to load, so that `vidpub profiles`
 * and `vidpub me` tell where a key lives without loading the OS store's code.
 */
import { platform } from 'node:os';
import type { Profile } from './profile-types.js';
import { shellWord } from '../util/shell.js';
import { maskStoredKey } from '../util/key-mask.js';
import { sanitize } from '../errors.js';

/** Where a key lives: `keychain` (the OS store) or `file` (config.json). */
export type KeyStorage = 'keychain' | 'file';

/** Where the profile's key lives, or null when it has none. */
export function keyStorage(p: Profile | undefined): KeyStorage | null {
  if (p?.key_storage === 'keychain') return 'keychain';
  return p?.api_key ? 'file' : null;
}

/** What the OS store is called, for messages. */
export function keychainName(): string {
  const os = platform();
  return os === 'darwin' ? 'the macOS Keychain' : os === 'win32' ? 'Windows Credential Manager' : 'the Secret Service keyring';
}

/** Where the key is, for people: the OS store's name or the config file's path. */
export function storageName(storage: KeyStorage, configPath: string): string {
  return storage === 'keychain' ? keychainName() : configPath;
}

/** The profile's key, masked, wherever it lives. */
export function maskedProfileKey(p: Profile | undefined): string | null {
  return keyStorage(p) === 'keychain' ? (p?.key_masked ?? '…') : maskStoredKey(p?.api_key);
}

/** A vidpub command for profile `profile`, as a hint names it: `vidpub logout --profile kc` (nothing added for "default"). */
export function profileCommand(command: string, profile: string): string {
  return profile === 'default' ? `vidpub ${command}` : `vidpub ${command} --profile ${sanitize(shellWord(profile))}`;
}
