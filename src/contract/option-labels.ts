/**
 * How an option's value reads to a person: the words the CLI's questions and summaries and the
 * emulator's web app both show beside the code the service takes ("Only me (SELF_ONLY)"), so
 * that the two say the same thing.
 */
import type { OptionValue } from './wire-types.js';

/** Readable names of well-known option values; others are spelled out from the value (PUBLIC_TO_EVERYONE: "Public to everyone"). */
const VALUE_LABELS: Record<string, string> = {
  PUBLIC_TO_EVERYONE: 'Everyone',
  MUTUAL_FOLLOW_FRIENDS: 'Friends (followers you follow back)',
  FOLLOWER_OF_CREATOR: 'Followers',
  SELF_ONLY: 'Only me',
  public: 'Public',
  unlisted: 'Unlisted: anyone with the link',
  private: 'Private: only you',
};

export function valueLabel(v: OptionValue): string {
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  const text = typeof v === 'string' ? v : String(v);
  const known = VALUE_LABELS[text];
  if (known) return known;
  const words = text.replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
