import { responseMeta } from '../../api/client.js';
import { counted } from '../../util/plural.js';
import { maskedKey } from '../../util/key-mask.js';
import { EMULATOR_SERVER_HEADER, type KeyInfo, type Me, type MinuteCounter } from '../../contract/wire-types.js';
import { resolveCredentials } from '../../api/credentials.js';
import { isLoopbackHost } from '../../contract/addresses.js';
import { createTransport } from '../../api/net/transport.js';
import { sanitize } from '../../errors.js';
import { keyStorage, storageName } from '../../config/key-storage.js';
import type { ConfigStore } from '../../config/profile-types.js';
import { renderFields } from '../../ui/table.js';
import { wrapLine } from '../../ui/wrap.js';
import { describeLocalRelative } from '../../time/describe.js';
import { defineCommand } from '../run/command.js';

/** `vp_live_…a1b2`: the prefix and the last 4, never more. */
export function maskKey(key: Partial<KeyInfo> | undefined): string {
  if (!key) return 'unknown';
  const prefix = typeof key.prefix === 'string' ? key.prefix : '';
  const last4 = typeof key.last4 === 'string' ? key.last4 : '';
  if (!prefix && !last4) return 'unknown';
  return maskedKey(sanitize(prefix), sanitize(last4));
}

/** A reset time as a person reads it (the one form, named by its offset: see describeLocalRelative), or "unknown". */
export function localTime(iso: string | undefined, now: number, tz?: string): string {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 'unknown' : describeLocalRelative(t, now, tz);
}

function n(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : '?';
}

function counter(c: Partial<MinuteCounter> | undefined, now: number, tz: string | undefined): string {
  if (!c) return 'unknown';
  return `${n(c.used)} used of ${n(c.limit)}, ${n(c.remaining)} left, resets ${localTime(c.reset_at, now, tz)}`;
}

/** Where this run's key and base URL come from, and whether the service is the local emulator. */
export interface Origin {
  key_source: string;
  base_url: string;
  base_url_source: string;
  emulator: boolean;
}

/**
 * Whether the service is the emulator. Its answers name it in their Server header
 * (EMULATOR_SERVER_HEADER), so the GET /me in hand tells, wherever the emulator runs; an answer
 * that names another server is not the emulator. An answer with no Server header from a service
 * on this machine (an emulator of an earlier vidpub) is asked GET /_emulator, which an emulator
 * answers on its own origin: through node:http (the transport the API client uses), not fetch,
 * Node's undici built in but compiled at its first use, which cost `vidpub me` more than
 * everything else it does.
 */
async function isEmulator(server: string | undefined, baseUrl: string, signal: AbortSignal): Promise<boolean> {
  if (server !== undefined) return server === EMULATOR_SERVER_HEADER || server.startsWith(`${EMULATOR_SERVER_HEADER}/`);
  const url = new URL(baseUrl);
  if (!isLoopbackHost(url.hostname)) return false;
  const transport = createTransport({ connectMs: 2000, headersMs: 2000, bodyMs: 2000, totalMs: 2000 });
  try {
    const res = await transport.request(new URL('/_emulator', url.origin).href, { method: 'GET', headers: { accept: 'application/json' }, signal });
    if (res.statusCode !== 200) return false;
    const body = JSON.parse(res.text) as { controls?: unknown };
    return Array.isArray(body.controls);
  } catch {
    return false;
  } finally {
    await transport.close();
  }
}

export default defineCommand<'me', Record<string, never>, Me & { origin?: Origin }>({
  description:
    'Show the API key in use (masked) and where it came from (--api-key-file, VIDPUB_API_KEY or a profile, ' +
    'its key kept in the system keychain or the config file), ' +
    'the base URL (marked when it is the local emulator), the workspace, plan, usage, and both limits: requests per minute ' +
    '(read and write) and API posts per day, each with used, remaining and reset time (local). ' +
    '--json prints the GET /me record.',
  examples: ['vidpub me', 'vidpub me --json', "vidpub me --json | jq '.limits.api_posts_per_day.remaining'"],
  parse() {
    return {};
  },
  async run(_opts, inv) {
    const client = await inv.client();
    // --json prints the GET /me record alone: where the key and service come from is for people.
    if (inv.globals.json) return client.getMe();
    const { ctx, globals } = inv;
    const me = await client.getMe();
    const emulator = await isEmulator(responseMeta(me)?.server, client.baseUrl, ctx.signal);
    let config: ConfigStore | undefined;
    const creds = await resolveCredentials(
      { env: ctx.env, cwd: ctx.cwd, readProfile: async (name) => (config = await ctx.config()).getProfile(name) },
      // A key file is not read again (a pipe, as <(pass show vidpub), gives its key once): it is where the key came from.
      { profile: globals.profile, baseUrl: globals.baseUrl, ...(globals.apiKeyFile !== undefined ? { apiKey: 'from-the-file' } : {}) },
    ).catch(() => undefined);
    const keySource =
      globals.apiKeyFile !== undefined
        ? `--api-key-file ${globals.apiKeyFile}`
        : creds?.keySource === 'VIDPUB_API_KEY'
          ? 'the environment (VIDPUB_API_KEY)'
          : creds?.keySource === 'profile'
            ? `profile "${globals.profile}", kept in ${storageName(keyStorage(creds.profile) ?? 'file', config?.path ?? 'the config file')}`
            : 'unknown';
    const origin: Origin = {
      key_source: keySource,
      base_url: client.baseUrl,
      base_url_source: creds?.baseUrlSource ?? 'unknown',
      emulator,
    };
    Object.defineProperty(me, 'origin', { value: origin, enumerable: false });
    return me as Me & { origin?: Origin };
  },
  print(me, inv) {
    const now = inv.ctx.clock.now();
    const c = inv.colors.stdout;
    const rpm = me?.limits?.requests_per_minute;
    const daily = me?.limits?.api_posts_per_day;
    const usage = me?.usage;
    const key = me?.key;
    const scope = daily?.scope === 'account' ? ' (shared by every workspace of the account)' : daily?.scope === 'workspace' ? ' (this workspace)' : '';
    const origin = me.origin;
    const tz = inv.ctx.env.TZ;
    const tty = inv.ctx.io.stdoutIsTTY;
    // On a terminal, where the key and the service come from read as sentences; to a pipe, one value per field.
    const originFields: [string, string][] = !origin
      ? []
      : tty
        ? [['Service', `${origin.base_url}${origin.emulator ? ' (the local emulator, not the real service)' : ''}, from ${origin.base_url_source}`]]
        : [
            ['Key from', origin.key_source],
            ['Service', origin.base_url],
            ['Emulator', origin.emulator ? 'yes' : 'no'],
          ];
    const fields: [string, string][] = [
      ['Key', `${maskKey(key)}${key?.access ? ` (${key.access})` : ''}${key?.name ? ` "${key.name}"` : ''}${origin && tty ? `, from ${origin.key_source}` : ''}`],
      ...originFields,
      ['Workspace', `${me?.workspace?.name ?? 'unknown'}${me?.workspace?.id ? ` (${me.workspace.id})` : ''}`],
      ['Plan', String(me?.plan?.name ?? 'unknown')],
      ['Usage', usage ? `${counted(usage.posts_today, 'post')} today, ${counted(usage.media_count, 'video')}, ${counted(usage.post_count, 'post')}` : 'unknown'],
      ['Reads/min', counter(rpm?.read, now, tz)],
      ['Writes/min', counter(rpm?.write, now, tz)],
      ['Posts/day', daily ? `${n(daily.used)} used of ${n(daily.limit)}, ${n(daily.remaining)} left, resets ${localTime(daily.reset_at, now, tz)}${scope}` : 'unknown'],
    ];
    const indent = Math.max(...fields.map(([k]) => k.length)) + 2;
    // One write for all the lines: each write to stdout is a system call.
    inv.print(renderFields(fields, { tty, dim: c.dim }).map((line) => (tty ? wrapLine(line, inv.ctx.io.columns, indent, indent) : line)).join('\n'));
  },
});
