/**
 * Per-destination posting options: `--option KEY=VALUE` (every chosen
 * destination that has KEY) and `--option DEST:KEY=VALUE` (one destination),
 * checked against what each destination accepts (GET
 * /destinations/{id}/options), defaults applied, and what is still missing
 * either asked for (on a terminal) or listed as the exact flags to pass.
 */
import { CancelledError, UsageError, sanitize } from '../errors.js';
import type { Destination, DestinationOption, DestinationOptions, OptionValue } from '../contract/wire-types.js';
import type { Prompter } from '../ui/prompter.js';
import { shellWord } from '../util/shell.js';
import { valueLabel } from '../contract/option-labels.js';

/** One `--option` flag, split but not yet checked against any destination. */
export interface OptionAssignment {
  /** The destination named before the last ":" of the key part, when given. */
  dest?: string;
  key: string;
  value: string;
  /** The flag as written, for messages. */
  text: string;
}

/** A destination chosen with --to, with what it accepts. */
export interface ChosenDestination {
  /** The name as written in --to (used in messages and suggested flags). */
  name: string;
  destination: Destination;
  options: DestinationOptions;
}

export type OptionSource = 'flag' | 'default' | 'prompt';

export interface ChosenValue {
  key: string;
  label: string;
  value: OptionValue;
  source: OptionSource;
}

/** What will be sent for one destination, and what is still missing. */
export interface DestinationPlan extends ChosenDestination {
  values: ChosenValue[];
  /** Required options with no value yet, in the destination's order. */
  missing: DestinationOption[];
}

const KEY_RE = /^[A-Za-z0-9_.-]+$/;

/** Splits one `--option` value; throws UsageError for bad syntax. Needs no request. */
export function parseOptionFlag(text: string): OptionAssignment {
  const eq = text.indexOf('=');
  const bad = (why: string) =>
    new UsageError(`invalid --option "${sanitize(text)}": ${why}`, {
      hint: 'Write --option KEY=VALUE (every destination that has KEY) or --option DEST:KEY=VALUE (one destination); "vidpub options DEST" lists the keys.',
    });
  if (eq < 0) throw bad('it has no "="');
  const left = text.slice(0, eq).trim();
  const value = text.slice(eq + 1);
  const colon = left.lastIndexOf(':');
  const dest = colon >= 0 ? left.slice(0, colon).trim() : undefined;
  const key = colon >= 0 ? left.slice(colon + 1).trim() : left;
  if (dest !== undefined && dest === '') throw bad('the destination before ":" is empty');
  if (key === '') throw bad('the key is empty');
  if (!KEY_RE.test(key)) throw bad(`"${sanitize(key)}" is not an option key (letters, digits, "_", "-" and ".")`);
  return { dest, key, value, text };
}

/** A creator-disclosure destination's privacy: a person must choose it, it is never defaulted. */
export function isPersonalChoice(opts: DestinationOptions, option: DestinationOption): boolean {
  return opts.creator != null && /privacy/i.test(option.key);
}

function showValue(v: OptionValue): string {
  return typeof v === 'string' ? v : String(v);
}

export function allowedValues(option: DestinationOption): string | undefined {
  if (Array.isArray(option.values) && option.values.length > 0) return option.values.map(showValue).join(', ');
  if (option.type === 'boolean') return 'true, false';
  return undefined;
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'off', '0']);

/**
 * Turns the text of a flag into the value the destination expects: booleans
 * from true/false/yes/no, an allowed value matched exactly or, failing that,
 * ignoring case. Returns undefined when the value is not allowed.
 */
export function coerceValue(option: DestinationOption, raw: string): OptionValue | undefined {
  const text = raw.trim();
  const values = Array.isArray(option.values) ? option.values : null;
  if (option.type === 'boolean' || (values && values.length > 0 && values.every((v) => typeof v === 'boolean'))) {
    const lower = text.toLowerCase();
    const b = TRUE_WORDS.has(lower) ? true : FALSE_WORDS.has(lower) ? false : undefined;
    if (b === undefined) return undefined;
    if (values && values.length > 0 && !values.includes(b)) return undefined;
    return b;
  }
  if (values && values.length > 0) {
    const exact = values.find((v) => showValue(v) === text);
    if (exact !== undefined) return exact;
    const folded = values.filter((v) => showValue(v).toLowerCase() === text.toLowerCase());
    return folded.length === 1 ? folded[0] : undefined;
  }
  return raw;
}

/**
 * Applies the flags to the chosen destinations. `findChosen` maps the DEST of
 * `DEST:KEY=VALUE` to one of them (undefined when none matches). Throws
 * UsageError for a key no chosen destination has, a DEST that is not among
 * --to, or a value the destination does not allow.
 */
export function planOptions(
  chosen: ChosenDestination[],
  assignments: OptionAssignment[],
  findChosen: (name: string, chosen: ChosenDestination[]) => ChosenDestination | undefined,
): DestinationPlan[] {
  // Per destination (by index), per key: the raw text and the flag it came from. DEST:KEY beats KEY.
  const given = chosen.map(() => new Map<string, { raw: string; text: string; specific: boolean }>());
  for (const a of assignments) {
    if (a.dest !== undefined) {
      const target = findChosen(a.dest, chosen);
      if (!target) {
        throw new UsageError(`--option ${sanitize(a.text)} names "${sanitize(a.dest)}", which is not one of the --to destinations`, {
          hint: `Chosen: ${chosen.map((c) => c.name).join(', ')}.`,
        });
      }
      const i = chosen.indexOf(target);
      if (!target.options.options.some((o) => o.key === a.key)) {
        throw new UsageError(`${target.name} has no option "${sanitize(a.key)}"`, {
          hint: `Its options: ${keysOf(target) || 'none'} (see "vidpub options ${target.name}").`,
        });
      }
      given[i]!.set(a.key, { raw: a.value, text: a.text, specific: true });
    } else {
      const having = chosen.filter((c) => c.options.options.some((o) => o.key === a.key));
      if (having.length === 0) {
        throw new UsageError(`no chosen destination has an option "${sanitize(a.key)}"`, {
          hint: chosen.map((c) => `${c.name}: ${keysOf(c) || 'no options'}`).join('\n'),
        });
      }
      for (const c of having) {
        const m = given[chosen.indexOf(c)]!;
        if (!m.get(a.key)?.specific) m.set(a.key, { raw: a.value, text: a.text, specific: false });
      }
    }
  }

  return chosen.map((c, i) => {
    const values: ChosenValue[] = [];
    const missing: DestinationOption[] = [];
    for (const option of c.options.options) {
      const g = given[i]!.get(option.key);
      if (g) {
        const v = coerceValue(option, g.raw);
        if (v === undefined) {
          const allowed = allowedValues(option);
          throw new UsageError(`"${sanitize(g.raw)}" is not an allowed value of ${option.key} for ${c.name}`, {
            hint: allowed ? `Allowed values: ${allowed}.` : undefined,
          });
        }
        values.push({ key: option.key, label: option.label, value: v, source: 'flag' });
        continue;
      }
      const personal = isPersonalChoice(c.options, option);
      if (!option.required && !personal) continue;
      if (!personal && option.default !== null && option.default !== undefined) {
        values.push({ key: option.key, label: option.label, value: option.default, source: 'default' });
      } else {
        missing.push(option);
      }
    }
    // Written out, not spread: V8 gives each object made by a spread a hidden class of its own (a batch plans thousands).
    return { name: c.name, destination: c.destination, options: c.options, values, missing };
  });
}

function keysOf(c: ChosenDestination): string {
  return c.options.options.map((o) => o.key).join(', ');
}

/** The `--option` flag that fills `option` for the destination named `name`. */
export function flagFor(name: string, option: DestinationOption): string {
  return `--option ${shellWord(`${name}:${option.key}=`)}VALUE`;
}

/**
 * exit 2 for a run that cannot ask: every missing option as the flag to pass, with its allowed
 * values. `atTerminal`: stderr is one, so the reason is --no-input or stdin, not "no terminal".
 */
export function missingOptionsError(plans: DestinationPlan[], atTerminal = false, others: string[] = []): UsageError {
  // What else is missing (--to, --caption) is named in the same error: a script learns it all in one run.
  const lines: string[] = [...others];
  for (const p of plans) {
    for (const o of p.missing) {
      const allowed = allowedValues(o);
      lines.push(`  ${flagFor(p.name, o)}   ${o.label ? `${sanitize(o.label)}; ` : ''}${allowed ? `VALUE one of: ${allowed}` : 'any text'}`);
    }
  }
  const n = lines.length;
  const what = others.length > 0 ? 'input' : 'option';
  return new UsageError(`${n} required ${what}${n === 1 ? ' is' : 's are'} missing, and ${atTerminal ? NO_ASKING : 'there is no terminal to ask on'}`, {
    hint: `Pass:\n${lines.join('\n')}`,
  });
}

/** Creator details a creator-disclosure destination requires us to show before asking. */
export function creatorLines(p: ChosenDestination): string[] {
  const c = p.options.creator;
  if (!c) return [];
  const lines = [`Posting to ${sanitize(p.destination.platform)} as ${sanitize(c.display_name)} (${sanitize(c.handle)})`];
  if (c.avatar_url) lines.push(`  avatar: ${sanitize(c.avatar_url)}`);
  return lines;
}

/** The lines of missingOptionsError for a missing --to and a missing caption. */
export const MISSING_TO = '  --to DEST[,DEST...]   where to post it ("vidpub destinations" lists them)';
export const MISSING_CAPTION = '  --caption TEXT   the caption (or --caption-file PATH, "-" for stdin; --caption "" for none)';

/** Why nothing is asked when a person may be at the terminal. */
export const NO_ASKING = 'nothing may be asked (--no-input, VIDPUB_NO_INPUT, or stdin is not a terminal)';

function isPromptCancel(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'AbortError' || name === 'CancelPromptError';
}

/**
 * Runs a prompt; Ctrl-C inside it becomes exit 130 with nothing sent, said
 * with `cancelled` (what is true at that point) and `hint` (the command to
 * run instead, built from what was typed).
 */
export async function ask<T>(fn: () => Promise<T>, cancelled = 'Cancelled: nothing was uploaded or posted.', hint?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isPromptCancel(err)) throw new CancelledError(cancelled, { hint });
    throw err;
  }
}


/** `privacy for @vidpub.demo (tiktok): Who can view this video`: the option and the account, whatever was typed in --to. */
export function promptMessage(option: DestinationOption, accountLabel: string): string {
  const label = option.label && option.label !== option.key ? `: ${sanitize(option.label)}` : '';
  return `${sanitize(option.key)} for ${sanitize(accountLabel)}${label}`;
}

/** The first entry of a select with no default: Enter on it chooses nothing, and the question is asked again. */
const NO_CHOICE = Symbol('no choice');
const NO_CHOICE_NAME = '(choose one: there is no default)';

/**
 * A select among the allowed values. With a default, it is pre-selected; without one, the
 * cursor starts on an entry that is no value, so Enter alone never picks one (privacy
 * included: the person posting chooses it, as gh makes one choose where nothing is assumed).
 */
async function askChoice(
  prompter: Prompter,
  q: { message: string; values: OptionValue[]; def: OptionValue | undefined; say: (line: string) => void },
  stop?: { message: string; hint?: string },
): Promise<OptionValue> {
  const choices: { name: string; value: OptionValue | typeof NO_CHOICE; noAnswer?: boolean }[] = q.values.map((v) => ({
    name: `${sanitize(valueLabel(v))} (${sanitize(showValue(v))})`,
    value: v,
  }));
  // A numbered list (TERM=dumb) needs no such entry: Enter alone is refused there, and asked again.
  if (q.def === undefined && !prompter.numbered) choices.unshift({ name: NO_CHOICE_NAME, value: NO_CHOICE, noAnswer: true });
  for (;;) {
    const picked = await ask(() => prompter.select({ message: q.message, choices, default: q.def }), stop?.message, stop?.hint);
    if (picked !== NO_CHOICE) return picked;
    q.say('  Nothing chosen: move to a value with the arrow keys, then press Enter.');
  }
}

/**
 * Asks a person for every missing option (a select among the allowed values,
 * the destination's default pre-selected when it has one, else no value at all; the creator details
 * first for a creator-disclosure destination). Fills `plans` in place.
 */
export async function promptMissing(
  plans: DestinationPlan[],
  prompter: Prompter,
  say: (line: string) => void,
  more: { accountLabel?: (p: ChosenDestination) => string; cancelled?: () => { message: string; hint?: string } } = {},
): Promise<void> {
  for (const p of plans) {
    if (p.missing.length === 0) continue;
    for (const line of creatorLines(p)) say(line);
    for (const option of p.missing) {
      const message = promptMessage(option, more.accountLabel?.(p) ?? p.name);
      const stop = more.cancelled?.();
      // A default is only ever pre-selected: the person still confirms it (privacy included).
      const def = option.default ?? undefined;
      let value: OptionValue;
      const values = Array.isArray(option.values) && option.values.length > 0 ? option.values : option.type === 'boolean' ? [true, false] : null;
      if (values) {
        value = await askChoice(prompter, { message, values, def, say }, stop);
      } else {
        let text = '';
        while (text.trim() === '') {
          text = await ask(() => prompter.input({ message, default: def === undefined ? undefined : showValue(def) }), stop?.message, stop?.hint);
        }
        value = text;
      }
      say(`  Next time, skip this question with: --option ${shellWord(`${p.name}:${option.key}=${showValue(value)}`)}`);
      const at = p.options.options.findIndex((o) => o.key === option.key);
      const entry: ChosenValue = { key: option.key, label: option.label, value, source: 'prompt' };
      // keep the destination's order of options
      const before = p.values.findIndex((v) => p.options.options.findIndex((o) => o.key === v.key) > at);
      if (before < 0) p.values.push(entry);
      else p.values.splice(before, 0, entry);
    }
    p.missing = [];
  }
}

/** The `options` object of one POST /posts destination entry. */
export function optionsBody(p: DestinationPlan): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  for (const v of p.values) out[v.key] = v.value;
  return out;
}
