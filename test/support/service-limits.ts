/**
 * The one table of the service's limits (src/contract/service-rules.ts): for each
 * rule, values at the limit and one over, counted as the service counts them.
 * test/commands/service-limits-bin.test.ts runs it against the client's checks
 * (the real bin: a value over is exit 2 before any upload), and
 * test/emulator/service-limits.test.ts against the emulator over HTTP (400),
 * each asserting the same words. The numbers here are written out, not read
 * from service-rules.ts, so a change of a limit there fails both tests.
 */

/** A rule of the service, and how a case of it is sent. */
export type LimitRule = 'caption' | 'option value' | 'schedule' | 'file size';

export interface LimitCase {
  rule: LimitRule;
  /** What the value is, for the test's name. */
  name: string;
  /** caption / option value: the text; schedule: milliseconds after now; file size: bytes. */
  value: string | number;
  /** The value's length in UTF-16 units, where that differs from what the service counts (to show the difference is real). */
  utf16?: number;
  /** Taken (at the limit or under), or refused. */
  fits: boolean;
  /** For a refused value: the words both the client and the emulator say. */
  words?: string;
}

const DAY_MS = 86_400_000;
const CAPTION_OVER = 'has 10,001 characters; the service takes at most 10,000';
const OPTION_OVER = 'has 1,001 characters; the service takes at most 1,000';

/** An emoji of one code point outside the BMP (two UTF-16 units). */
const CLAPPER = '\u{1F3AC}';
/** A mathematical script capital X: astral, not an emoji. */
const SCRIPT_X = '\u{1D4B3}';
/** e + a combining acute accent: one letter on screen, two code points. */
const E_ACUTE = 'e\u0301';
/** A family emoji: three people joined by U+200D (five code points, eight UTF-16 units). */
const FAMILY = '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}';

export const LIMIT_CASES: LimitCase[] = [
  // The caption: at most 10,000 code points.
  { rule: 'caption', name: '10,000 ASCII letters', value: 'x'.repeat(10_000), fits: true },
  { rule: 'caption', name: '10,001 ASCII letters', value: 'x'.repeat(10_001), fits: false, words: CAPTION_OVER },
  { rule: 'caption', name: '10,000 emoji (20,000 UTF-16 units)', value: CLAPPER.repeat(10_000), utf16: 20_000, fits: true },
  { rule: 'caption', name: '10,001 emoji', value: CLAPPER.repeat(10_001), fits: false, words: CAPTION_OVER },
  { rule: 'caption', name: '5,000 e + combining accent (10,000 code points)', value: E_ACUTE.repeat(5_000), fits: true },
  { rule: 'caption', name: '5,000 e + combining accent and one letter more', value: `${E_ACUTE.repeat(5_000)}x`, fits: false, words: CAPTION_OVER },
  { rule: 'caption', name: '2,000 ZWJ family emoji (10,000 code points)', value: FAMILY.repeat(2_000), utf16: 16_000, fits: true },

  // A string option value (YouTube's title): at most 1,000 code points.
  { rule: 'option value', name: '1,000 ASCII letters', value: 't'.repeat(1_000), fits: true },
  { rule: 'option value', name: '1,001 ASCII letters', value: 't'.repeat(1_001), fits: false, words: OPTION_OVER },
  { rule: 'option value', name: '600 emoji (1,200 UTF-16 units: the value the emulator once refused)', value: CLAPPER.repeat(600), utf16: 1_200, fits: true },
  { rule: 'option value', name: '1,000 emoji', value: CLAPPER.repeat(1_000), utf16: 2_000, fits: true },
  { rule: 'option value', name: '1,001 emoji', value: CLAPPER.repeat(1_001), fits: false, words: OPTION_OVER },
  { rule: 'option value', name: '1,000 astral script letters', value: SCRIPT_X.repeat(1_000), utf16: 2_000, fits: true },
  { rule: 'option value', name: '500 e + combining accent and one letter more', value: `${E_ACUTE.repeat(500)}x`, fits: false, words: OPTION_OVER },

  // publish_at: at most 365 days (of 24 hours) after the service's now. The bin takes it as
  // --at +Nm, whole minutes after its own now; the emulator test sends the time exactly.
  { rule: 'schedule', name: 'exactly 365 days ahead', value: 365 * DAY_MS, fits: true },
  { rule: 'schedule', name: '365 days and a minute ahead', value: 365 * DAY_MS + 60_000, fits: false, words: 'the service schedules at most 365 days ahead' },

  // The file: at most 1 GB (1,000,000,000 bytes, the contract's §8 rule 6).
  { rule: 'file size', name: '1,000,000,000 bytes', value: 1_000_000_000, fits: true },
  { rule: 'file size', name: '1,000,000,001 bytes', value: 1_000_000_001, fits: false, words: '1,000,000,001 bytes; the service accepts at most 1 GB (1,000,000,000 bytes)' },
];

/** The cases' names as vitest's it.each shows them. */
export const limitCaseName = (c: LimitCase): string => `${c.rule}: ${c.name} (${c.fits ? 'taken' : 'refused'})`;
