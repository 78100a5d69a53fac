/**
 * What a key looks like, one rule (src/core/key-format.ts), and one table run against each
 * place that uses it: a variable handed to a program vidpub starts (util/child-env.ts), service
 * text vidpub shows (api/send/http-errors.ts redactSecrets), a key of an emulator fixture. The two
 * copies this replaces differed for 4 to 7 characters after the prefix: the redaction took them
 * for a key, the child's environment did not.
 */
import { describe, expect, it } from 'vitest';
import { KEY_PREFIX_MARKER, MIN_KEY_SECRET_CHARS, WHOLE_KEY, holdsKey, keyPrefix, keyTail, replaceKeys } from '../../src/core/key-format.js';
import { redactSecrets, secretForms } from '../../src/api/send/http-errors.js';
import { childEnv } from '../../src/util/child-env.js';
import { defaultFixture, validateFixture } from '../../src/emulator/index.js';

/** Text, whether it is a key, and the mask it is shown as when it is. */
const TABLE: [string, boolean, string?][] = [
  ['vp_live_abcdefgh', true, 'vp_live_…efgh'],
  ['vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', true, 'vp_live_…s3Td'],
  ['acme_prod_live_0123-4567', true, 'acme_prod_live_…4567'],
  ['vp_live_demo_live_abcdefgh', true, 'vp_live_…efgh'],
  ['vp_live_abcdefg', false],
  ['vp_live_abcd', false],
  ['a post_live_demo word', false],
  ['vp_test_abcdefghij', false],
  ['vp_live_', false],
];

describe('a key, by its shape', () => {
  it('is a prefix ending in _live_, then at least 8 letters, digits, "_" or "-"', () => {
    expect(KEY_PREFIX_MARKER).toBe('_live_');
    expect(MIN_KEY_SECRET_CHARS).toBe(8);
    for (const [text, isKey] of TABLE) {
      expect(holdsKey(`before ${text} after`), text).toBe(isKey);
      expect(WHOLE_KEY.test(text), text).toBe(isKey && !text.includes(' '));
    }
  });

  it('its prefix runs to the first _live_', () => {
    expect(keyPrefix('vp_live_demo_live_abcdefgh')).toBe('vp_live_');
    expect(keyPrefix('acme_prod_live_01234567')).toBe('acme_prod_live_');
    expect(keyPrefix('vp_test_01234567')).toBeUndefined();
    expect(replaceKeys('x vp_live_demo_live_abcdefgh y', (p, s) => `[${p}|${s}]`)).toBe('x [vp_live_|demo_live_abcdefgh] y');
    expect(secretForms('vp_live_demo_live_abcdefgh').map((f) => f.text)).toEqual(['vp_live_demo_live_abcdefgh', 'demo_live_abcdefgh', 'abcdefgh']);
  });

  it('its secret part alone is its shortest end after a "_" that still has 8 characters', () => {
    expect(keyTail('vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td')).toBe('k7Qm2Xc4Lp9Hs3Td');
    expect(keyTail('vp_live_demo_rw_abc_defgh')).toBe('abc_defgh');
    expect(keyTail('vp_live_abcdefgh')).toBeUndefined();
    expect(keyTail('vp_live_demo_abcdefg')).toBeUndefined();
    expect(keyTail('vp_test_demo_rw_abcdefgh')).toBeUndefined();
    expect(secretForms('vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td').map((f) => [f.text, f.shown])).toEqual([
      ['vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', 'vp_live_…s3Td'],
      ['demo_rw_k7Qm2Xc4Lp9Hs3Td', '…s3Td'],
      ['k7Qm2Xc4Lp9Hs3Td', '…s3Td'],
    ]);
  });

  it('in text, its "_" and "-" may be written as look-alikes (U+FF3F FULLWIDTH LOW LINE, dashes): still a key, masked as written; a key itself has the ASCII ones', () => {
    const fullwidth = 'vp＿live＿other＿rw＿abcd‐efgh1234';
    expect(holdsKey(`x ${fullwidth} y`)).toBe(true);
    expect(WHOLE_KEY.test(fullwidth)).toBe(false);
    expect(redactSecrets(`refused ${fullwidth} here`)).toBe('refused vp＿live＿…1234 here');
    expect(redactSecrets('refused vp﹍live‗abcdefgh1234 here')).toBe('refused vp﹍live‗…1234 here');
    expect(childEnv({ HOLDS: fullwidth, HOME: '/h' })).toEqual({ HOME: '/h' });
  });
});

describe('each place that finds a key takes the same texts for one', () => {
  for (const [text, isKey, mask] of TABLE) {
    it(`"${text}": ${isKey ? 'a key' : 'not a key'}`, () => {
      // A program vidpub starts: a variable holding a key is left out, any other is handed on.
      const env = childEnv({ HOLDS: `x ${text} y`, HOME: '/h' });
      expect(env).toEqual(isKey ? { HOME: '/h' } : { HOLDS: `x ${text} y`, HOME: '/h' });
      // Service text vidpub shows: a key is masked to its prefix and last 4, anything else kept.
      expect(redactSecrets(`refused ${text} here`)).toBe(isKey ? `refused ${mask} here` : `refused ${text} here`);
      // An emulator fixture takes exactly the keys (whole ones: a fixture key has no spaces).
      if (text.includes(' ')) return;
      const fixture = structuredClone(defaultFixture());
      fixture.workspaces[0]!.keys[0]!.key = text;
      if (isKey) expect(() => validateFixture(fixture)).not.toThrow();
      else expect(() => validateFixture(fixture)).toThrow(/keys\[0\]\.key must look like "vp_live_" followed by at least 8 letters/);
    });
  }
});
