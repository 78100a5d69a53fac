/**
 * Text a person hands vidpub in a file or on stdin (a caption, a manifest) must be UTF-8, and a
 * caption must hold no control characters: a Latin-1 file (`Caf\xe9`) was posted as `Caf\ufffd`
 * without a word, and a NUL as is. Both are refused before anything is sent (exit 2), naming the
 * file and the byte offset, with the conversion to run.
 */
import { sanitize } from '../errors.js';

/** What is wrong, said before anything is sent (post-rules.ts's Refusal). */
interface Refusal {
  message: string;
  hint?: string;
}

/** The offset of the first byte of `bytes` that is not part of a well-formed UTF-8 character, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The length of the sequence and the range of its second byte (no overlong forms, no surrogates, nothing past U+10FFFF).
    const [len, lo, hi] =
      b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf]
      : b === 0xe0 ? [3, 0xa0, 0xbf]
      : b === 0xed ? [3, 0x80, 0x9f]
      : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf]
      : b === 0xf0 ? [4, 0x90, 0xbf]
      : b === 0xf4 ? [4, 0x80, 0x8f]
      : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf]
      : [0, 0, 0];
    if (len === 0 || i + len > bytes.length) return i;
    if (bytes[i + 1]! < lo || bytes[i + 1]! > hi) return i;
    for (let k = 2; k < len; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += len;
  }
  return -1;
}

/** `bytes` as text, or why not: `what` (the file as the command line named it) is not UTF-8 at an offset. */
export function decodeUtf8(bytes: Uint8Array, what: string): string | Refusal {
  const at = firstInvalidUtf8(bytes);
  // A byte order mark (as Windows editors save) is not part of the text: dropped, as the YAML and CSV parsers do.
  if (at < 0) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').replace(/^\ufeff/, '');
  const hex = bytes[at]!.toString(16).padStart(2, '0');
  const file = /^(--caption-file|caption_file) (?!-$)(.+)$/.exec(what)?.[2] ?? (what.startsWith('the ') ? undefined : what);
  return {
    message: `${what} is not UTF-8 text: the byte at offset ${at} (0x${hex}) is not part of a UTF-8 character`,
    hint: `Nothing was uploaded or posted. If it is Latin-1 (ISO-8859-1), convert it and use the copy: iconv -f latin1 -t utf-8 ${file ? sanitize(file) : 'FILE'} > ${file ? `${sanitize(file)}.utf8` : 'FILE.utf8'}`,
  };
}

const CONTROL_NAMES: Record<number, string> = { 0: 'NUL', 7: 'BEL', 8: 'BS', 0x1b: 'ESC', 0x7f: 'DEL' };

/** A caption with a control character (C0 but tab, line feed and carriage return; DEL; C1): where, and which. */
export function captionControlRefusal(caption: string): Refusal | undefined {
  let n = 0;
  for (const ch of caption) {
    n++;
    const c = ch.codePointAt(0)!;
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c <= 0x9f)) {
      const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}${CONTROL_NAMES[c] ? ` ${CONTROL_NAMES[c]}` : ''}`;
      return {
        message: `the caption has a control character (${code}) at character ${n}; nothing was uploaded or posted`,
        hint: 'Remove it: a caption is text (tabs and line breaks are kept). A binary or UTF-16 file is no caption file.',
      };
    }
  }
  return undefined;
}
