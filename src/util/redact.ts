/**
 * Secrets out of everything vidpub prints. A service (or something in front of
 * it: a proxy, a gateway's error page) may echo the key it was sent, in many
 * forms, and each is taken out:
 * - whole, without its prefix, or its secret part alone (secretForms in api/send/http-errors.ts
 *   gives the three);
 * - escaped character by character: JSON \u escapes (any number of
 *   backslashes: JSON inside JSON), percent-encoding (once or more: %255F),
 *   HTML numeric references (&#95; &#x5F;), or any mix of these;
 * - split by white space, a line break (raw or as JSON's \n) or an invisible
 *   character (U+200B, U+00AD, U+FEFF, U+2060...);
 * - its separators written otherwise (vp-live-..., vp.live...), or as characters that look like
 *   them (U+FF3F FULLWIDTH LOW LINE, the dashes: core/key-format.ts), raw, escaped or as bytes;
 * - encoded as bytes: hex (lower or upper case, the bytes run together or
 *   separated), base64 and base64url (padded or not), the key at each of the
 *   3 alignments inside a longer base64 text (`Basic dXNlcjp2cF9s...`, base64
 *   of "Bearer <key>"): only the characters that the key's bytes alone decide
 *   are looked for.
 *
 * How, cheaply: the text is read once into its decoded view (escapes decoded,
 * white space and invisible characters dropped, each character remembering
 * where it came from) and every form above, computed once per secret as plain
 * text, is searched there with indexOf; what is found is replaced in the
 * text as it was. No regular expression is built from the key (the pattern of
 * every form was a regular expression large enough that compiling it was a
 * good part of a `vidpub me`; docs/performance.md), and text with nothing to decode is searched as it is.
 *
 * guardOutput puts this on a stream itself (stdout, stderr): whatever writes
 * to it, a message, a --json document, a --debug line, a crash report, goes
 * through it. A secret split across two writes is not seen; vidpub writes
 * whole lines.
 */

import { DASH_LOOKALIKES, UNDERSCORE_LOOKALIKES } from '../core/key-format.js';

/** What a secret is replaced with, unless it says how it is shown. */
export const REDACTED = '[redacted key]';

/** A secret, and what stands in its place when text holds it (a key's prefix and last 4: `vp_live_…s3Td`). */
export interface Secret {
  text: string;
  shown?: string;
}

/** The shortest text taken for a secret: shorter ones would take ordinary words out. */
const MIN_SECRET = 8;

/** Characters dropped from the decoded view: white space and the invisible ones a key may be split by. */
function ignorable(code: number): boolean {
  return (
    code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0xad || code === 0x180e ||
    (code >= 0x200b && code <= 0x200f) || code === 0x2028 || code === 0x2029 || code === 0x2060 || code === 0xfeff
  );
}

/** The UTF-8 bytes of those invisible characters, as latin1 text: a chunk of bytes is read so (guardOutput). */
const UTF8_INVISIBLE = ['\xc2\xa0', '\xc2\xad', '\xe2\x80\x8b', '\xe2\x80\x8c', '\xe2\x80\x8d', '\xe2\x80\x8e', '\xe2\x80\x8f', '\xe2\x80\xa8', '\xe2\x80\xa9', '\xe2\x81\xa0', '\xef\xbb\xbf'];

/** Named references of invisible characters. */
const NAMED_INVISIBLE = ['&nbsp;', '&shy;', '&zerowidthspace;', '&nobreak;', '&zwj;', '&zwnj;', '&#8203;'];

/** The look-alikes of `_` and `-` (core/key-format.ts), each read as the character it looks like. */
const LOOKALIKE = new Map<string, string>([...[...UNDERSCORE_LOOKALIKES].map((c) => [c, '_'] as const), ...[...DASH_LOOKALIKES].map((c) => [c, '-'] as const)]);

/** The same by their UTF-8 bytes, as latin1 text. */
const UTF8_LOOKALIKE = new Map([...LOOKALIKE].map(([c, to]) => [String.fromCharCode(...utf8(c)), to] as const));

/** Anything the decoded view would change: an escape's first character, white space, an invisible character, a look-alike, or a UTF-8 lead byte of one. */
const SPECIAL = new RegExp(`[\\\\%&\\s\\u00ad\\u180e\\u200b-\\u200f\\u2060\\ufeff\\u00c2\\u00cb\\u00e2\\u00ef${UNDERSCORE_LOOKALIKES}${DASH_LOOKALIKES}]`);

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/** The decoded view of a text: its characters, and for each the range of the text it came from. */
interface View {
  text: string;
  /** Where the text's range of view character `k` starts. */
  from(k: number): number;
  /** Where the text's range of view character `k` ends. */
  to(k: number): number;
}

/**
 * Where the view's characters came from, as runs: a run of plain characters copied as they
 * were (each from one character of the text, in order), or one character decoded from a range
 * (an escape). A text of megabytes with a few escapes is a few runs, not an entry a character.
 */
class ViewMap {
  readonly parts: string[] = [];
  /** Per run: its first view index, its first text index, the end of its text range (a decoded character's). */
  private readonly at: number[] = [];
  private readonly src: number[] = [];
  private readonly end: number[] = [];
  private readonly plain: boolean[] = [];
  length = 0;

  copy(t: string, from: number, to: number): void {
    this.push(t.slice(from, to), from, to, true);
  }

  decoded(ch: string, from: number, to: number): void {
    this.push(ch, from, to, false);
  }

  private push(text: string, from: number, to: number, plain: boolean): void {
    this.parts.push(text);
    this.at.push(this.length);
    this.src.push(from);
    this.end.push(to);
    this.plain.push(plain);
    this.length += text.length;
  }

  /** The run holding view character `k` (the last whose first index is at most k). */
  private run(k: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.at[mid]! <= k) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  view(): View {
    return {
      text: this.parts.join(''),
      from: (k) => {
        const r = this.run(k);
        return this.plain[r] ? this.src[r]! + (k - this.at[r]!) : this.src[r]!;
      },
      to: (k) => {
        const r = this.run(k);
        return this.plain[r] ? this.src[r]! + (k - this.at[r]!) + 1 : this.end[r]!;
      },
    };
  }
}

/** The escape at `i` (JSON, percent, HTML): the character it stands for (-1: an ignorable one) and where it ends; null when there is none. */
function escapeAt(t: string, i: number): { code: number; end: number } | null {
  const c = t[i];
  if (c === '\\') {
    let j = i;
    while (t[j] === '\\') j++;
    const e = t[j];
    if ((e === 'u' || e === 'U') && [1, 2, 3, 4].every((k) => isHex(t.charCodeAt(j + k)))) {
      return { code: parseInt(t.slice(j + 1, j + 5), 16), end: j + 5 };
    }
    if (e === 'n' || e === 'r' || e === 't' || e === 'f' || e === 'b') return { code: -1, end: j + 1 };
    if (e === '/') return { code: 0x2f, end: j + 1 };
    // A backslash escaped once or more (JSON inside JSON) is one backslash: `\\x76` reads as `\x76`.
    return j - i > 1 ? { code: 0x5c, end: j } : null;
  }
  if (c === '%') {
    let j = i + 1;
    while (t[j] === '2' && t[j + 1] === '5' && t[j + 2] !== undefined && isHex(t.charCodeAt(j + 2)) && isHex(t.charCodeAt(j + 3))) j += 2;
    if (!isHex(t.charCodeAt(j)) || !isHex(t.charCodeAt(j + 1))) return null;
    return { code: parseInt(t.slice(j, j + 2), 16), end: j + 2 };
  }
  if (c === '&') {
    const m = /^&#(?:[xX]0*([0-9a-fA-F]{1,6})|0*(\d{1,7}));?/.exec(t.slice(i, i + 16));
    if (m) return { code: m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2]), end: i + m[0].length };
    const lower = t.slice(i, i + 18).toLowerCase();
    const named = NAMED_INVISIBLE.find((n) => lower.startsWith(n));
    return named ? { code: -1, end: i + named.length } : null;
  }
  return null;
}

/** The decoded view of `t` (see the file comment), or null when it would be `t` itself. */
function decodedView(t: string): View | null {
  if (!SPECIAL.test(t)) return null;
  const map = new ViewMap();
  const special = new RegExp(SPECIAL.source, 'g');
  let i = 0;
  while (i < t.length) {
    // What needs no decoding up to the next special character, copied as one run.
    special.lastIndex = i;
    const next = special.exec(t)?.index ?? t.length;
    if (next > i) map.copy(t, i, next);
    i = next;
    if (i >= t.length) break;
    const code = t.charCodeAt(i);
    if (code === 0xc2 || code === 0xcb || code === 0xe2 || code === 0xef) {
      const seq = UTF8_INVISIBLE.find((s) => t.startsWith(s, i));
      if (seq) {
        i += seq.length;
        continue;
      }
      const like = [...UTF8_LOOKALIKE.keys()].find((s) => t.startsWith(s, i));
      if (like) {
        map.decoded(UTF8_LOOKALIKE.get(like)!, i, i + like.length);
        i += like.length;
        continue;
      }
    }
    if (code === 0x5c || code === 0x25 || code === 0x26) {
      const esc = escapeAt(t, i);
      if (esc) {
        // Percent-encoded UTF-8 of an invisible character (%E2%80%8B): dropped whole; of a look-alike (%EF%BC%BF): read as it.
        if (code === 0x25 && esc.code >= 0xc2) {
          let bytes = String.fromCharCode(esc.code);
          let end = esc.end;
          for (let k = 0; k < 2 && t[end] === '%'; k++) {
            const next = escapeAt(t, end);
            if (!next) break;
            bytes += String.fromCharCode(next.code);
            end = next.end;
            if (UTF8_INVISIBLE.includes(bytes) || UTF8_LOOKALIKE.has(bytes)) break;
          }
          if (UTF8_INVISIBLE.includes(bytes)) {
            i = end;
            continue;
          }
          const like = UTF8_LOOKALIKE.get(bytes);
          if (like) {
            map.decoded(like, i, end);
            i = end;
            continue;
          }
        }
        if (esc.code >= 0 && !ignorable(esc.code)) {
          const c = String.fromCharCode(esc.code);
          map.decoded(LOOKALIKE.get(c) ?? c, i, esc.end);
        }
        i = esc.end;
        continue;
      }
    }
    if (!ignorable(code)) {
      // A look-alike of "_" or "-" reads as it (one character for one); anything else is itself.
      const like = LOOKALIKE.get(t[i]!);
      if (like) map.decoded(like, i, i + 1);
      else map.copy(t, i, i + 1);
    }
    i++;
  }
  return map.view();
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The UTF-8 bytes of a text. */
function utf8(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out.push(c);
      continue;
    }
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
    if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

/** The base64 characters that `bytes` alone decide when they start at byte `align` of the encoded data. */
function base64Core(bytes: number[], align: number): string {
  // The bytes as one bit string would be long; three bytes at a time (24 bits: 4 characters) instead.
  const padded = [...new Array<number>(align).fill(0), ...bytes];
  let enc = '';
  for (let i = 0; i < padded.length; i += 3) {
    const n = (padded[i]! << 16) | ((padded[i + 1] ?? 0) << 8) | (padded[i + 2] ?? 0);
    enc += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  // Character k holds bits 6k..6k+5: taken when all are the key's (bits 8*align .. 8*(align+n)-1).
  return enc.slice(Math.ceil((8 * align) / 6), Math.floor((8 * (align + bytes.length)) / 6));
}

const HEX = '0123456789abcdef';
const formsCache = new Map<string, string[]>();

/** Every plain form of a secret looked for in the decoded view (the file comment's list), longest first. */
export function secretTexts(secret: string): string[] {
  let forms = formsCache.get(secret);
  if (forms) return forms;
  forms = [secret];
  const add = (form: string): void => {
    if (form.length >= MIN_SECRET && !forms!.includes(form)) forms!.push(form);
  };
  // Its separators written otherwise (white space is dropped from the view already).
  if (secret.includes('_') || secret.includes('-')) {
    for (const sep of ['_', '-', '.', ':', '/', '+', '~', '']) add(secret.split('_').join(sep).split('-').join(sep));
  }
  const bytes = utf8(secret);
  const hex = bytes.map((b) => HEX[b >> 4]! + HEX[b & 15]!);
  for (const sep of ['', ':', '-', '.', ',', '\\x']) {
    const joined = sep === '\\x' ? `\\x${hex.join('\\x')}` : hex.join(sep);
    add(joined);
    add(joined.toUpperCase().replace(/\\X/g, '\\x'));
  }
  for (const align of [0, 1, 2]) {
    const core = base64Core(bytes, align);
    add(core);
    add(core.split('+').join('-').split('/').join('_'));
  }
  forms.sort((x, y) => y.length - x.length);
  formsCache.set(secret, forms);
  return forms;
}

/** `text` with every secret taken out, in any of its forms; the longest secrets first. */
export function redactKnown(text: string, secrets: Iterable<Secret>): string {
  const list = [...secrets].filter((s) => s.text.length >= MIN_SECRET).sort((a, b) => b.text.length - a.text.length);
  if (list.length === 0) return text;
  const view = decodedView(text);
  const seen = view ? view.text : text;
  const found: { start: number; end: number; shown: string }[] = [];
  const taken = (start: number, end: number): boolean => found.some((f) => start < f.end && f.start < end);
  for (const secret of list) {
    for (const form of secretTexts(secret.text)) {
      for (let at = seen.indexOf(form); at >= 0; at = seen.indexOf(form, at + form.length)) {
        const start = view ? view.from(at) : at;
        const end = view ? view.to(at + form.length - 1) : at + form.length;
        if (!taken(start, end)) found.push({ start, end, shown: secret.shown ?? REDACTED });
      }
    }
  }
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start);
  let out = '';
  let pos = 0;
  for (const f of found) {
    out += text.slice(pos, f.start) + f.shown;
    pos = f.end;
  }
  return out + text.slice(pos);
}

type Chunk = string | Uint8Array;
type WriteFn = (chunk: Chunk, ...rest: unknown[]) => boolean;
type EndFn = (chunk?: unknown, ...rest: unknown[]) => unknown;
interface Guardable {
  write: WriteFn;
  end?: EndFn;
}

const GUARDED = Symbol.for('vidpub.redacted-secrets');

/**
 * A chunk with the secrets out. Bytes are read as latin1 (one char per byte),
 * so a chunk that holds none comes back as it was, and what stands in a
 * secret's place is put in as its UTF-8 bytes.
 */
function clean(chunk: unknown, secrets: Map<string, Secret>): unknown {
  if (typeof chunk === 'string') return redactKnown(chunk, secrets.values());
  if (chunk instanceof Uint8Array) {
    const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    const asBytes = [...secrets.values()].map((x) => ({ text: x.text, shown: Buffer.from(x.shown ?? REDACTED, 'utf8').toString('latin1') }));
    const out = redactKnown(text, asBytes);
    return out === text ? chunk : Buffer.from(out, 'latin1');
  }
  return chunk;
}

/**
 * Makes `stream` take `secrets` out of everything written to it from now on
 * (its own write and end; once per stream, more secrets added to the same guard).
 */
export function guardOutput(stream: object, secrets: readonly Secret[]): void {
  const s = stream as Guardable & { [GUARDED]?: Map<string, Secret> };
  if (s[GUARDED]) {
    for (const secret of secrets) s[GUARDED].set(secret.text, secret);
    return;
  }
  const kept = new Map(secrets.map((x) => [x.text, x]));
  s[GUARDED] = kept;
  const write = s.write.bind(s);
  s.write = (chunk, ...rest) => write(clean(chunk, kept) as Chunk, ...rest);
  const end = s.end?.bind(s);
  if (end) s.end = (chunk, ...rest) => (typeof chunk === 'function' || chunk == null ? end(chunk, ...rest) : end(clean(chunk, kept), ...rest));
}
