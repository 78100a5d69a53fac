/**
 * `vidpub emulator clock|fault|requests`: the emulator's test controls
 * (/_emulator, docs/api-notes.md) without hand-written JSON, in the manner of
 * the Stripe CLI: the clock read or moved forward, faults added from
 * KEY=VALUE pairs, listed or cleared, and the request log printed (or
 * followed with --follow until Ctrl-C).
 */
import { DEFAULT_HOST, DEFAULT_PORT } from '../../emulator/defaults.js';
import { UsageError, VidpubError, sanitize } from '../../errors.js';
import { describeRelative } from '../../time/describe.js';
import { parseDuration } from '../../time/duration.js';
import { resolveTimeZone } from '../../time/zones.js';
import { renderTable } from '../../ui/table.js';
import { isLoopbackHost } from '../../contract/addresses.js';
import type { Invocation } from '../run/command.js';
import { printJson } from '../output/json-output.js';

export const CONTROLS = ['clock', 'fault', 'requests', 'export', 'reset'] as const;
export type Control = (typeof CONTROLS)[number];

export interface ControlOpts {
  control: Control;
  /** clock: +DURATION to move it forward; fault: KEY=VALUE,… or list or clear; export: the file. */
  value?: string;
  follow: boolean;
  /** reset: without asking. */
  yes?: boolean;
}

/** A logged request as GET /_emulator/requests gives it. */
interface Logged {
  method: string;
  path: string;
  status: number;
  idempotency_key: string | null;
  replayed: boolean;
  fault: string | null;
}

const FAULT_HELP =
  'Write a fault as KEY=VALUE pairs separated by commas, e.g. path=/v1/posts,method=POST,status=503,times=2 or ' +
  'destination_fail=dst_demo_linkedin (the keys of POST /_emulator/faults, in docs/emulator.md under "Test controls"); "list" shows them, "clear" removes them.';

export function parseControl(control: Control, value: string | undefined, follow: boolean, yes = false): ControlOpts {
  if (follow && control !== 'requests') throw new UsageError(`--follow goes with "vidpub emulator requests", not "${control}"`);
  if (yes && control !== 'reset') throw new UsageError(`--yes goes with "vidpub emulator reset", not "${control}"`);
  if (control === 'export' && (value === undefined || value.trim() === '')) throw new UsageError('vidpub emulator export needs the file to write, e.g. vidpub emulator export world.json');
  if (control === 'reset' && value !== undefined) throw new UsageError(`vidpub emulator reset takes no value, got "${sanitize(value)}"`);
  if (control === 'fault' && value === undefined) throw new UsageError('vidpub emulator fault needs a fault, "list" or "clear"', { hint: FAULT_HELP });
  if (control === 'requests' && value !== undefined) throw new UsageError(`vidpub emulator requests takes no value, got "${sanitize(value)}"`);
  if (control === 'clock' && value !== undefined && /^-/.test(value.trim())) {
    throw new UsageError(`the emulator's clock only moves forward (what it released cannot be taken back), got "${sanitize(value)}"`, {
      hint: 'Restart "vidpub emulator" to start again from this machine\'s time, or move it forward: vidpub emulator clock +1h',
    });
  }
  if (control === 'clock' && value !== undefined && !/^\+/.test(value.trim())) {
    throw new UsageError(`vidpub emulator clock moves the clock forward: write +DURATION (+90s, +2h, +1d), got "${sanitize(value)}"`);
  }
  if (control === 'fault' && value !== 'list' && value !== 'clear') faultSpec(value!);
  return { control, value, follow, yes };
}

/** "path=/v1/posts,status=503,times=2" as the JSON body of POST /_emulator/faults (numbers and booleans typed). */
export function faultSpec(text: string): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const pair of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid fault "${sanitize(text)}": "${sanitize(pair)}" is not KEY=VALUE`, { hint: FAULT_HELP });
    const [key, raw] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
    spec[key] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw === 'null' ? null : raw;
  }
  if (Object.keys(spec).length === 0) throw new UsageError(`invalid fault "${sanitize(text)}": no KEY=VALUE in it`, { hint: FAULT_HELP });
  // A request fault without an action: a status answer when a status is given, as people mean it.
  if (spec.path !== undefined && spec.action === undefined && spec.status !== undefined) spec.action = 'status';
  return spec;
}

/**
 * The test controls' address: the origin of the base URL vidpub would use (--base-url,
 * VIDPUB_BASE_URL, the active profile's when it is on this machine, else the emulator's default,
 * 127.0.0.1:4010), then /_emulator. A service named by flag or variable that is not on this machine
 * is refused: the controls are the emulator's.
 */
async function adminUrl(inv: Invocation): Promise<{ admin: string; from: string }> {
  const { resolveCredentials } = await import('../../api/credentials.js');
  const { ctx, globals } = inv;
  // The base URL only: the key is not needed, so a key given by flag stops the lookup of a stored one.
  const { baseUrl, baseUrlSource } = await resolveCredentials(
    { env: ctx.env, cwd: ctx.cwd, signal: ctx.signal, readProfile: async (name) => (await ctx.config()).getProfile(name) },
    { profile: globals.profile, baseUrl: globals.baseUrl, apiKey: '-' },
  );
  const profiled = baseUrlSource.startsWith('profile ');
  // Nothing named, or a profile of a service elsewhere: the emulator's own default address.
  if (baseUrlSource === 'the built-in default' || (profiled && !isLoopbackHost(new URL(baseUrl).hostname))) {
    return { admin: `http://${DEFAULT_HOST}:${DEFAULT_PORT}/_emulator`, from: "the emulator's default" };
  }
  const url = new URL(baseUrl);
  if (!isLoopbackHost(url.hostname)) {
    throw new UsageError(`the base URL ${sanitize(url.origin)} (from ${baseUrlSource}) is not an emulator on this machine: the test controls are the emulator's`, {
      hint: 'Point --base-url at the emulator, e.g. vidpub emulator clock --base-url http://127.0.0.1:4010/v1',
    });
  }
  return { admin: `${url.origin}/_emulator`, from: baseUrlSource };
}

async function call<T>(inv: Invocation, method: string, path: string, body?: unknown, at?: { admin: string; from: string }): Promise<T> {
  const { admin, from } = at ?? (await adminUrl(inv));
  const url = `${admin}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      signal: inv.ctx.signal,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (inv.ctx.signal.aborted) throw err;
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    const why = cause === 'ECONNREFUSED' ? 'nothing listens there' : cause ? `${sanitize(cause)}` : 'no answer';
    throw new VidpubError(`no emulator answers at ${new URL(admin).origin} (the base URL from ${from}): ${why}`, {
      hint: `Start one with "vidpub emulator", or name the one running: vidpub emulator ${path === '/clock' ? 'clock' : path === '/faults' ? 'fault list' : path === '/export' ? 'export FILE' : path === '/reset' ? 'reset' : 'requests'} --base-url http://127.0.0.1:PORT/v1`,
    });
  }
  const doc = (await res.json().catch(() => ({}))) as T & { error?: { message?: string } };
  if (res.status === 404 && doc.error === undefined) {
    throw new VidpubError(`${sanitize(new URL(admin).origin)} (the base URL from ${from}) answers, but has no emulator test controls`, {
      hint: 'Point --base-url at a running "vidpub emulator".',
    });
  }
  if (res.status === 400 || res.status === 409) throw new UsageError(`the emulator refused it: ${sanitize(doc.error?.message ?? res.statusText)}`, { hint: FAULT_HELP });
  if (!res.ok) throw new VidpubError(`the emulator answered ${res.status} to ${method} ${url}: ${sanitize(doc.error?.message ?? res.statusText)}`);
  return doc;
}

export async function runControl(o: ControlOpts, inv: Invocation): Promise<void> {
  if (o.control === 'clock') return clock(o, inv);
  if (o.control === 'fault') return fault(o, inv);
  if (o.control === 'export' || o.control === 'reset') return (await import('./emulator-world.js')).runWorldControl({ ...o, control: o.control }, inv, (i, m, p) => call(i, m, p));
  return requests(o, inv);
}

async function clock(o: ControlOpts, inv: Invocation): Promise<void> {
  const body = o.value === undefined ? undefined : { advance_sec: Math.round(parseDuration(o.value.trim().slice(1), 'clock advance') / 1000) };
  const doc = await call<{ now: string; offset_sec: number; released_posts?: number }>(inv, body ? 'POST' : 'GET', '/clock', body);
  if (inv.globals.json) return printJson(doc, inv);
  const zone = resolveTimeZone(undefined, inv.ctx.env);
  const when = describeRelative(Date.parse(doc.now), zone, inv.ctx.clock.now());
  inv.print(`Emulator clock: ${when}; ${doc.offset_sec} s ahead of this machine's`);
  if (doc.released_posts) inv.print(`Scheduled posts now due: ${doc.released_posts}, publishing.`);
}

/** What the emulator holds: request faults, and the media and destinations made to fail. */
interface FaultList {
  requests: unknown[];
  media_fail: string[];
  destination_fail: string[];
}

async function fault(o: ControlOpts, inv: Invocation): Promise<void> {
  const doc =
    o.value === 'list'
      ? { faults: await call<FaultList>(inv, 'GET', '/faults') }
      : o.value === 'clear'
        ? await call<{ faults: FaultList }>(inv, 'DELETE', '/faults')
        : await call<{ added: unknown[]; faults: FaultList }>(inv, 'POST', '/faults', faultSpec(o.value!));
  if (inv.globals.json) return printJson(doc, inv);
  const f = doc.faults;
  // One line a fault: a request fault as its JSON, a failure as KEY=ID (what "fault" takes).
  const lines = [...f.requests.map((r) => JSON.stringify(r)), ...f.media_fail.map((id) => `media_fail=${id}`), ...f.destination_fail.map((id) => `destination_fail=${id}`)];
  if ('added' in doc) inv.log.info(`Fault added; the emulator holds ${lines.length}.`);
  if (o.value === 'clear') inv.log.info('Faults cleared.');
  for (const line of lines) inv.print(line);
}

async function requests(o: ControlOpts, inv: Invocation): Promise<void> {
  let seen = 0;
  let first = true;
  const at = await adminUrl(inv);
  for (;;) {
    const log = await call<Logged[]>(inv, 'GET', '/requests', undefined, at);
    // A log cleared (or cut to its latest entries) meanwhile starts again.
    if (log.length < seen) seen = 0;
    const fresh = log.slice(seen);
    seen = log.length;
    if (inv.globals.json && !o.follow) return printJson(log, inv);
    printRequests(fresh, inv, first);
    first = false;
    if (!o.follow) return;
    try {
      await inv.ctx.clock.sleep(500, inv.ctx.signal);
    } catch {
      return; // Ctrl-C ends --follow: that is how it stops
    }
  }
}

function printRequests(rows: Logged[], inv: Invocation, header: boolean): void {
  if (inv.globals.json) {
    for (const r of rows) inv.print(JSON.stringify(r));
    return;
  }
  const { tty, colors, columns } = inv.out;
  const lines = renderTable(
    rows,
    [
      { header: 'Method', value: (r) => r.method },
      { header: 'Path', value: (r) => r.path, shrink: true },
      { header: 'Status', value: (r) => (r.status === 0 ? '-' : String(r.status)) },
      { header: 'Key', value: (r) => `${r.idempotency_key ?? ''}${r.replayed ? ' (replayed)' : ''}`, shrink: true },
      { header: 'Fault', value: (r) => r.fault ?? '' },
    ],
    { tty, bold: colors.bold, width: columns },
  );
  for (const line of tty && !header ? lines.slice(1) : lines) inv.print(line);
}

/**
 * `vidpub emulator --verbose`: each request the emulator answers, on stderr
 * ("POST /v1/posts 201"), read from its own request log until `signal`
 * aborts. A request still unanswered is told once a later one is, its status "-".
 */
export async function logRequests(inv: Invocation, admin: string, signal: AbortSignal): Promise<void> {
  let told = 0;
  while (!signal.aborted) {
    const log = await call<Logged[]>(inv, 'GET', '/requests', undefined, { admin, from: 'the emulator started' }).catch(() => [] as Logged[]);
    if (log.length < told) told = 0;
    let last = log.length;
    while (last > told && log[last - 1]!.status === 0) last--;
    for (const r of log.slice(told, last)) inv.ctx.io.stderr.write(`${r.method} ${r.path} ${r.status || '-'}${r.fault ? ` (fault: ${r.fault})` : ''}\n`);
    told = last;
    await inv.ctx.clock.sleep(250, signal).catch(() => undefined);
  }
}
