/**
 * A command's data on stdout, and its JSON document: --json FIELDS keeps the named fields,
 * --jq filters it, and both are checked before the command sends anything.
 * Shared by main()'s printer and a command that prints its document before
 * it is done (the emulator's start line).
 */
import { neutraliseBidi, sanitize, UsageError, VidpubError } from '../../errors.js';
import type { CommandPrinters, Invocation } from '../run/command.js';

function unknownField(field: string, available: readonly string[]): UsageError {
  return new UsageError(`unknown JSON field "${sanitize(field)}"`, { hint: `Available fields: ${available.join(', ')}.` });
}

/** Checks --json FIELDS against the fields a command's document can have, before the command runs. */
export function checkFields(fields: string[], known: readonly string[]): void {
  for (const f of fields) if (!known.includes(f.split('.')[0]!)) throw unknownField(f, known);
}

/**
 * Keeps the named fields of a record (of each record of a list); an unknown name is a usage error
 * listing the known ones. A name in `known` (the fields the record type has) that this record
 * lacks is null.
 */
export function pickFields(doc: unknown, fields: string[], known: readonly string[] = []): unknown {
  if (Array.isArray(doc)) return doc.map((d) => pickFields(d, fields, known));
  if (!doc || typeof doc !== 'object') return doc;
  const record = doc as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const path = f.split('.');
    let v: unknown = record;
    for (const k of path) v = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
    if (v === undefined && !(path[0]! in record) && !known.includes(path[0]!)) throw unknownField(f, Object.keys(record));
    let target = out;
    for (const k of path.slice(0, -1)) target = (target[k] ??= {}) as Record<string, unknown>;
    target[path[path.length - 1]!] = v ?? null;
  }
  return out;
}

/** Runs a jq filter over a document with jq compiled to WebAssembly (nothing to install); strings print raw, as gh's --jq does. */
async function applyJq(doc: unknown, expr: string): Promise<string> {
  const jq = await import('jq-wasm');
  try {
    return (await jq.raw(doc as object, expr, ['-r'])).replace(/\n$/, '');
  } catch (err) {
    const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    throw new UsageError(`--jq ${sanitize(expr)}: ${sanitize(text)}`, { hint: 'See https://jqlang.org/manual/ for the filter language.' });
  }
}

/**
 * Compiles a --jq filter without running it (it sits in a branch never taken), so that a filter
 * with a syntax error or an undefined name is refused before the command sends anything. On a
 * compile error, the filter alone gives jq's message with its own line numbers (and, not
 * compiling, is not run either).
 */
export async function checkJq(expr: string): Promise<void> {
  const jq = await import('jq-wasm');
  try {
    await jq.raw('null', `if false then (\n${expr}\n) else empty end`, ['-n']);
  } catch (err) {
    if (!/compile error/.test(err instanceof Error ? err.message : String(err))) return;
    await applyJq('null', expr);
  }
}

/**
 * Prints `doc` as --json, --json FIELDS (`known`: the fields the record type has) and --jq ask.
 * Indented; `compact` keeps it on one line (a line a script reads as the command starts).
 */
export async function printJson(doc: unknown, inv: Invocation, opts: { known?: readonly string[]; compact?: boolean } = {}): Promise<void> {
  if (inv.globals.jsonFields) {
    const rehearsal = (doc as { rehearsal?: unknown } | null)?.rehearsal === true;
    doc = pickFields(doc, inv.globals.jsonFields, opts.known);
    // A rehearsal's document says so whatever fields were asked: its ids exist nowhere.
    if (rehearsal && doc && typeof doc === 'object') doc = { ...doc, rehearsal: true };
  }
  if (inv.globals.jq !== undefined) {
    let text: string;
    try {
      text = await applyJq(doc, inv.globals.jq);
    } catch (err) {
      // The filter compiled (checked before the command ran) but failed on this document: the
      // command's work is done, so this is not a usage error that says nothing happened.
      throw new VidpubError(`${(err as Error).message}. The command itself completed; its result was not printed.`, {
        hint: 'Do not run the command again for its output: fix the filter (it met a value it did not expect), or use --json.',
      });
    }
    if (text !== '') inv.print(text);
    return;
  }
  inv.print(jsonText(doc, opts.compact));
}

/**
 * A JSON document as text, its C1 and bidirectional controls as \u escapes: the same data once
 * parsed, nothing a terminal would act on or reorder (the terminal boundary then finds none to
 * show), so the same bytes at a terminal and in a pipe. Every JSON vidpub prints, errors too.
 */
export function jsonText(doc: unknown, compact = false): string {
  const json = (compact ? JSON.stringify(doc) : JSON.stringify(doc, null, 2)) as string | undefined;
  return json === undefined ? (json as unknown as string) : neutraliseBidi(json, 'json');
}

/** A command's data on stdout: its JSON document with --json, else its printer's lines (JSON without one). */
export async function printData<D>(spec: CommandPrinters<D>, data: D, inv: Invocation): Promise<void> {
  if (inv.session.events) {
    // --events (./events-output.ts): the last line holds what --json would print.
    const { resultLine } = await import('./events-output.js');
    inv.print(resultLine(spec.json ? spec.json(data) : data));
    return;
  }
  if (inv.globals.json) {
    const doc = spec.json ? spec.json(data) : data;
    if (doc !== undefined) await printJson(doc, inv, { known: spec.fields });
    return;
  }
  if (spec.print) spec.print(data, inv);
  else if (data !== undefined) inv.print(jsonText(data));
}
