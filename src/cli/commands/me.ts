import type { KeyInfo, Me, MinuteCounter } from '../../api/types.js';
import { sanitize } from '../../errors.js';
import { renderFields } from '../../ui/table.js';
import { defineCommand } from '../command.js';

/** `vp_live_…a1b2`: the prefix and the last 4, never more. */
export function maskKey(key: Partial<KeyInfo> | undefined): string {
  if (!key) return 'unknown';
  const prefix = typeof key.prefix === 'string' ? key.prefix : '';
  const last4 = typeof key.last4 === 'string' ? key.last4 : '';
  if (!prefix && !last4) return 'unknown';
  return `${sanitize(prefix)}…${sanitize(last4)}`;
}

/** An ISO time as local time (with the date when it is not today). */
export function localTime(iso: string | undefined, now: number): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return 'unknown';
  const d = new Date(t);
  const sameDay = new Date(now).toDateString() === d.toDateString();
  return sameDay ? d.toLocaleTimeString(undefined, { timeStyle: 'medium' }) : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function n(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : '?';
}

function counter(c: Partial<MinuteCounter> | undefined, now: number): string {
  if (!c) return 'unknown';
  return `${n(c.used)} used of ${n(c.limit)}, ${n(c.remaining)} left, resets ${localTime(c.reset_at, now)}`;
}

export default defineCommand<Record<string, never>, Me>({
  description:
    'Show the API key in use (masked), its workspace, plan, usage, and both limits: requests per minute ' +
    '(read and write) and API posts per day, each with used, remaining and reset time (local). ' +
    '--json prints the GET /me record.',
  examples: ['vidpub me', 'vidpub me --json', "vidpub me --json | jq '.limits.api_posts_per_day.remaining'"],
  parse() {
    return {};
  },
  async run(_opts, inv) {
    return (await inv.client()).getMe();
  },
  print(me, inv) {
    const now = inv.ctx.clock.now();
    const c = inv.colors.stdout;
    const rpm = me?.limits?.requests_per_minute;
    const daily = me?.limits?.api_posts_per_day;
    const usage = me?.usage;
    const key = me?.key;
    const scope = daily?.scope === 'account' ? ' (shared by every workspace of the account)' : daily?.scope === 'workspace' ? ' (this workspace)' : '';
    const fields: [string, string][] = [
      ['Key', `${maskKey(key)}${key?.access ? ` (${key.access})` : ''}${key?.name ? ` "${key.name}"` : ''}`],
      ['Workspace', `${me?.workspace?.name ?? 'unknown'}${me?.workspace?.id ? ` (${me.workspace.id})` : ''}`],
      ['Plan', String(me?.plan?.name ?? 'unknown')],
      ['Usage', usage ? `${n(usage.posts_today)} posts today, ${n(usage.media_count)} videos, ${n(usage.post_count)} posts` : 'unknown'],
      ['Reads/min', counter(rpm?.read, now)],
      ['Writes/min', counter(rpm?.write, now)],
      ['Posts/day', daily ? `${n(daily.used)} used of ${n(daily.limit)}, ${n(daily.remaining)} left, resets ${localTime(daily.reset_at, now)}${scope}` : 'unknown'],
    ];
    for (const line of renderFields(fields, { tty: inv.ctx.io.stdoutIsTTY, dim: c.dim })) inv.print(line);
  },
});
