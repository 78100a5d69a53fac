/**
 * Per-destination text defaults kept in a profile (`vidpub config set
 * caption.suffix.instagram "Link in bio"`): a prefix and a suffix of the
 * caption for each platform, stored as flat settings of the profile. Only
 * text: privacy and the other options get no stored default (the person
 * posting chooses them). The platforms are those the contract knows the
 * caption limit of (PLATFORM_CAPTION_CHARS).
 */
import { PLATFORM_CAPTION_CHARS } from '../contract/service-rules.js';
import { UsageError, sanitize } from '../errors.js';
import type { Profile } from './profile-types.js';

export type CaptionPart = 'prefix' | 'suffix';
export type SettingKey = `caption.${CaptionPart}.${string}`;

const KEY = /^caption\.(prefix|suffix)\.([a-z0-9_-]+)$/;

/** The platforms a default may be set for. */
export function defaultPlatforms(): string[] {
  return Object.keys(PLATFORM_CAPTION_CHARS);
}

/** Whether a profile field is one of these settings (config-store.ts keeps them). */
export function isSettingKey(field: string): field is SettingKey {
  const m = KEY.exec(field);
  return m !== null && defaultPlatforms().includes(m[2]!);
}

/** A key as typed, checked: exit 2 naming an unknown key or platform. */
export function checkSettingKey(typed: string): SettingKey {
  const key = typed.trim().toLowerCase();
  const m = /^caption\.(prefix|suffix)\.(.*)$/.exec(key);
  if (!m) {
    throw new UsageError(`unknown setting "${sanitize(typed)}": the settings are caption.prefix.PLATFORM and caption.suffix.PLATFORM`, {
      hint: `For example: vidpub config set caption.suffix.instagram "Link in bio" (platforms: ${defaultPlatforms().join(', ')}).`,
    });
  }
  if (!isSettingKey(key)) {
    throw new UsageError(`unknown platform "${sanitize(m[2]!)}" in "${sanitize(typed)}": give one of ${defaultPlatforms().join(', ')}`);
  }
  return key;
}

/** The settings a profile holds, sorted by key. */
export function settingsOf(profile: Profile | undefined): [SettingKey, string][] {
  const rec = (profile ?? {}) as Record<string, unknown>;
  return Object.keys(rec)
    .filter(isSettingKey)
    .sort()
    .map((k) => [k, String(rec[k])]);
}

/** A caption with its platform's prefix and suffix, each set apart by a blank line. */
export function withDefaults(caption: string, platform: string, settings: readonly [SettingKey, string][]): string {
  const get = (part: CaptionPart) => settings.find(([k]) => k === `caption.${part}.${platform}`)?.[1];
  const prefix = get('prefix');
  const suffix = get('suffix');
  return [prefix, caption, suffix].filter((s): s is string => s !== undefined && s !== '').join('\n\n');
}
