/**
 * The one shape of a key shown to people (src/util/key-mask.ts): prefix, an
 * ellipsis, the last 4. The stored key's mask, the service's prefix and last4
 * as `vidpub me` shows them, and key-shaped service text all come out alike.
 */
import { describe, expect, it } from 'vitest';
import { maskStoredKey, maskedKey } from '../../src/util/key-mask.js';
import { redactSecrets, secretForms } from '../../src/api/send/http-errors.js';
import { maskKey } from '../../src/cli/commands/me.js';

const KEY = 'vp_live_Zq81kLm0s3Td';

describe('a key shown', () => {
  it('the same for a stored key, the service’s prefix and last4, a known secret and key-shaped text', () => {
    expect(maskedKey('vp_live_', 's3Td')).toBe('vp_live_…s3Td');
    expect(maskStoredKey(KEY)).toBe('vp_live_…s3Td');
    expect(maskKey({ prefix: 'vp_live_', last4: 's3Td' })).toBe('vp_live_…s3Td');
    expect(secretForms(KEY).map((s) => s.shown)).toEqual(['vp_live_…s3Td', '…s3Td']);
    expect(redactSecrets(`key ${KEY} refused`)).toBe('key vp_live_…s3Td refused');
  });

  it('a stored key of 8 characters or fewer is only the ellipsis; none is null', () => {
    expect(maskStoredKey('vp_12345')).toBe('…');
    expect(maskStoredKey(undefined)).toBeNull();
  });
});
