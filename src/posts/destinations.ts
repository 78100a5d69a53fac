/**
 * Naming a destination on the command line, and rendering its options. Shared
 * by options, post and publish.
 */
import type { Destination, DestinationOption, DestinationOptions, OptionValue } from '../contract/wire-types.js';
import { UsageError, sanitize } from '../errors.js';

/** A handle as people write it: with exactly one leading @ ('' when there is none). */
export function atHandle(handle: string | undefined | null): string {
  const h = String(handle ?? '').trim().replace(/^@+/, '');
  return h === '' ? '' : `@${h}`;
}

/** `dst_1 (tiktok @demo.shorts, active)`. */
export function describeDestination(d: Destination): string {
  return `${sanitize(String(d.id))} (${sanitize(String(d.platform ?? '?'))} ${sanitize(atHandle(d.handle))}, ${sanitize(String(d.status ?? 'unknown'))})`;
}

function normHandle(h: string | undefined): string {
  return String(h ?? '')
    .trim()
    .replace(/^@/, '')
    .toLowerCase();
}

function candidatesHint(list: Destination[]): string {
  if (list.length === 0) return 'The workspace has no connected accounts; connect one in the web app.';
  return 'Candidates:\n' + list.map((d) => `  ${describeDestination(d)}`).join('\n');
}

/**
 * Finds the destination `name` refers to: its id, its handle (with or without
 * @, any case), or its platform when the workspace has exactly one active
 * account there (or exactly one account at all). The one resolver of every
 * command: whether an inactive one will do is the caller's to say. Unknown or
 * ambiguous -> UsageError (exit 2) listing candidates.
 */
export function resolveDestination(name: string, all: Destination[]): Destination {
  const raw = name.trim();
  if (raw === '') throw new UsageError('empty destination name', { hint: candidatesHint(all) });

  const byId = all.find((d) => d.id === raw);
  if (byId) return byId;

  const handle = normHandle(raw);
  const byHandle = all.filter((d) => normHandle(d.handle) === handle);
  if (byHandle.length === 1) return byHandle[0]!;
  if (byHandle.length > 1) {
    // The same handle on two platforms: an active one wins if it is the only active one.
    const active = byHandle.filter((d) => d.status === 'active');
    if (active.length === 1) return active[0]!;
    throw new UsageError(`"${sanitize(raw)}" matches ${byHandle.length} destinations; name one by its id`, { hint: candidatesHint(byHandle) });
  }

  if (!raw.startsWith('@')) {
    const platform = raw.toLowerCase();
    const onPlatform = all.filter((d) => String(d.platform).toLowerCase() === platform);
    if (onPlatform.length > 0) {
      const active = onPlatform.filter((d) => d.status === 'active');
      if (active.length === 1) return active[0]!;
      // The only account there, inactive: named as its id would name it (options reads it; post refuses it as inactive).
      if (active.length === 0 && onPlatform.length === 1) return onPlatform[0]!;
      if (active.length === 0) {
        throw new UsageError(`no active ${sanitize(platform)} account in this workspace`, { hint: candidatesHint(onPlatform) });
      }
      throw new UsageError(`"${sanitize(raw)}" is ambiguous: the workspace has ${active.length} active ${sanitize(platform)} accounts; name one by its handle or id`, {
        hint: candidatesHint(active),
      });
    }
  }
  throw new UsageError(`unknown destination "${sanitize(raw)}": give its id, its @handle, or its platform`, { hint: candidatesHint(all) });
}

/** An option value as shown to a person. */
export function formatOptionValue(v: OptionValue | null | undefined): string {
  if (v === null || v === undefined) return '—';
  return sanitize(String(v));
}

/** One option as a line: `privacy (required): PUBLIC | SELF_ONLY, default none`. */
export function describeOption(o: DestinationOption, bold: (s: string) => string = (s) => s): string {
  const values = Array.isArray(o.values) && o.values.length > 0 ? o.values.map(formatOptionValue).join(' | ') : o.type === 'boolean' ? 'true | false' : `any ${sanitize(String(o.type ?? 'value'))}`;
  const def = o.default === null || o.default === undefined ? 'no default' : `default ${formatOptionValue(o.default)}`;
  const label = o.label && o.label !== o.key ? ` — ${sanitize(o.label)}` : '';
  return `${bold(sanitize(o.key))}${o.required ? ' (required)' : ''}: ${values}; ${def}${label}`;
}

/**
 * A destination's options as lines for a person or a pipe: each option with
 * its values, default and whether it is required; for a creator-disclosure
 * destination, the creator, the maximum duration, and the privacy note.
 */
export function renderDestinationOptions(opts: DestinationOptions, style: { bold?: (s: string) => string } = {}): string[] {
  const bold = style.bold ?? ((s: string) => s);
  const lines: string[] = [];
  const options = Array.isArray(opts.options) ? opts.options : [];
  if (options.length === 0) lines.push('No options: this destination takes none.');
  for (const o of options) lines.push(`  ${describeOption(o, bold)}`);
  if (opts.creator) {
    const c = opts.creator;
    lines.push('');
    lines.push(`Posting as: ${sanitize(c.display_name ?? '')} (${sanitize(atHandle(c.handle))})`);
  }
  if (typeof opts.max_duration_sec === 'number') lines.push(`Maximum video duration: ${opts.max_duration_sec}s`);
  if (opts.creator) {
    lines.push('Privacy must be chosen by the person posting: it has no default.');
  }
  return lines;
}

/**
 * The DEST of `--option DEST:KEY=VALUE` (or of a manifest's per-destination
 * options) among the destinations chosen for a post: as written in --to, else
 * resolved like --to (id, @handle, platform) within those only.
 */
export function matchChosen<C extends { name: string; destination: Destination }>(name: string, chosen: C[]): C | undefined {
  const exact = chosen.find((c) => c.name === name);
  if (exact) return exact;
  try {
    const d = resolveDestination(name, chosen.map((c) => c.destination));
    return chosen.find((c) => c.destination.id === d.id);
  } catch {
    return undefined;
  }
}
