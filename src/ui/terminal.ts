/**
 * The terminal boundary: every write to a stream that is a terminal (stdout, stderr) goes
 * through neutraliseBidi (src/errors.ts, beside sanitize, the one home of how foreign text is
 * shown), whoever writes it: a table, a progress bar, a spinner, a prompt, an error. vidpub
 * writes no bidirectional control itself, so each one met here came from a file name, a caption,
 * a handle or the service. A pipe is not guarded: its data stays exact. (Escape sequences cannot
 * be told from vidpub's own colours here: sanitize takes them out of foreign text where it is
 * put into a line.)
 */
import { neutraliseBidi } from '../errors.js';

type WriteFn = (chunk: unknown, ...rest: unknown[]) => boolean;
type EndFn = (chunk?: unknown, ...rest: unknown[]) => unknown;

const GUARDED = Symbol.for('vidpub.terminal-guard');
/** The UTF-8 lead bytes of every bidirectional control (U+200E/F, U+202A-E: E2 80; U+2066-9: E2 81). */
const BIDI_BYTES = /\u00e2[\u0080\u0081]/;

function shown(chunk: unknown): unknown {
  if (typeof chunk === 'string') return neutraliseBidi(chunk);
  if (chunk instanceof Uint8Array) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!BIDI_BYTES.test(bytes.toString('latin1'))) return chunk;
    const text = bytes.toString('utf8');
    const out = neutraliseBidi(text);
    return out === text ? chunk : Buffer.from(out, 'utf8');
  }
  return chunk;
}

/** Makes `stream` (a terminal) show the bidirectional controls written to it (once per stream). Returns it. */
export function guardTerminal<S extends object>(stream: S): S {
  const s = stream as S & { write: WriteFn; end?: EndFn; [GUARDED]?: true };
  if (s[GUARDED]) return stream;
  s[GUARDED] = true;
  const write = s.write.bind(s);
  s.write = (chunk, ...rest) => write(shown(chunk), ...rest);
  const end = s.end?.bind(s);
  if (end) s.end = (chunk, ...rest) => (typeof chunk === 'function' || chunk == null ? end(chunk, ...rest) : end(shown(chunk), ...rest));
  return stream;
}
