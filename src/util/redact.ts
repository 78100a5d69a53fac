/**
 * Secrets out of everything vidpub prints. A service (or something in front of
 * it) may echo the key it was sent: whole, without its prefix, JSON-escaped
 * (`vp\u005flive\u005f…`), percent-encoded or as HTML character references,
 * or any mix of these. Text is matched as it would read once decoded, so
 * every one of those forms is found, in the raw text and in the decoded one.
 *
 * guardOutput puts this on a stream itself (stdout, stderr): whatever writes
 * to it, a message, a --json document, a --debug line, a crash report, goes
 * through it. A secret split across two writes is not seen; vidpub writes
 * whole lines.
 */

/** What a secret is replaced with, unless it says how it is shown. */
export const REDACTED = '[redacted key]';

/** A secret, and what stands in its place when text holds it (a key's prefix and last 4: `vp_live_…s3Td`). */
export interface Secret {
  text: string;
  shown?: string;
}

/** The shortest text taken for a secret: shorter ones would take ordinary words out. */
const MIN_SECRET = 8;

function hexClass(code: number): string {
  return code
    .toString(16)
    .padStart(2, '0')
    .split('')
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

/**
 * One character as itself or escaped: a JSON \u escape (any number of
 * backslashes: JSON inside JSON), percent-encoding (once or more), or an HTML
 * character reference.
 */
function charPattern(ch: string): string {
  const code = ch.charCodeAt(0);
  const literal = ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  if (code > 0xff) return literal;
  const hex = hexClass(code);
  return `(?:${literal}|\\\\+[uU]00${hex}|%(?:25)*${hex}|&#0*${code};|&#[xX]0*${hex};)`;
}

const patterns = new Map<string, RegExp>();

function patternOf(secret: string): RegExp {
  let re = patterns.get(secret);
  if (!re) {
    re = new RegExp([...secret].map(charPattern).join(''), 'g');
    patterns.set(secret, re);
  }
  return re;
}

/**
 * Every escaped form charPattern allows has one of these characters. Text without any can hold
 * a secret only as itself, which a plain search finds: the pattern of a whole key is a regular
 * expression of some 20 KB, and compiling it cost ~14 % of a `vidpub me`'s instructions.
 */
const ESCAPE_CHARS = /[\\%&]/;

/** `text` with every secret taken out, in any of its encoded forms; the longest secrets first. */
export function redactKnown(text: string, secrets: Iterable<Secret>): string {
  let out = text;
  const list = [...secrets].filter((s) => s.text.length >= MIN_SECRET).sort((a, b) => b.text.length - a.text.length);
  for (const secret of list) {
    if (!ESCAPE_CHARS.test(out)) {
      if (out.includes(secret.text)) out = out.split(secret.text).join(secret.shown ?? REDACTED);
      continue;
    }
    const re = patternOf(secret.text);
    re.lastIndex = 0;
    if (re.test(out)) out = out.replace(re, () => secret.shown ?? REDACTED);
    re.lastIndex = 0;
  }
  return out;
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
