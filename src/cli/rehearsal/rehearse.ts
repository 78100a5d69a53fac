/**
 * `--rehearse` (post, publish, batch): the command's own flow, end to end,
 * against a throwaway emulator started in this process on a free loopback
 * port and seeded from the workspace of the active profile (GET /me,
 * /destinations and each destination's options, through the real client: see
 * src/emulator/seed.ts). The real service gets nothing but those reads.
 *
 * The flow runs with a session of its own: a client of the emulator's key,
 * no journal (the real history and run notes stay as they were) and no key
 * cache (neither the real key's nor one for the emulator). Its output is the
 * command's, with the rehearsal said on stderr and as `"rehearsal": true` in
 * the JSON document.
 */
import type { ApiClient } from '../../api/client.js';
import { redactUrl } from '../../api/send/debug.js';
import type { EmulatorHandle, SeedRecords } from '../../emulator/index.js';
import type { Session } from '../../session/session.js';
import { InterruptedError, TimeoutError, VidpubError } from '../../errors.js';
import type { Invocation } from '../run/command.js';

/**
 * How long the copy takes to process a video and to publish to each
 * destination: short, since how long the real service takes is not in its
 * contract and a rehearsal cannot tell it (docs/emulator.md, "Rehearse").
 */
export const REHEARSAL_STEP_MS = 200;

/** What a rehearsal's data was: its source, for the closing line. */
const REHEARSED = new WeakMap<object, { source: string }>();

/**
 * Runs `flow` against a throwaway emulator seeded from the active profile's
 * workspace, with the records the command acts on (`records`: publish's post,
 * post --media's video) read into it too.
 */
export async function rehearse<D>(inv: Invocation, flow: (session: Session) => Promise<D>, records: SeedRecords = {}): Promise<D> {
  const { seedFixture, seedRecords, startEmulator } = await import('../../emulator/index.js');
  const real = await inv.ctx.createClient({ ...inv.clientSettings, cache: false });
  let emulator: EmulatorHandle | undefined;
  let client: Promise<ApiClient> | undefined;
  const source = redactUrl(real.baseUrl);
  try {
    inv.log.info(`Rehearsal: reading your workspace from ${source} (GET only; nothing is written there).`);
    const seed = await seedFixture(real, { signal: inv.ctx.signal });
    await seedRecords(real, seed, records, inv.ctx.signal);
    for (const note of seed.notes) inv.log.warn(`Rehearsal: ${note}.`);
    const now = () => inv.ctx.clock.now();
    emulator = await startEmulator({ host: '127.0.0.1', port: 0, fixture: seed.fixture, processingMs: REHEARSAL_STEP_MS, publishMs: REHEARSAL_STEP_MS, now });
    const settings = { ...inv.clientSettings, baseUrl: emulator.baseUrl, apiKey: seed.key, apiKeyFile: undefined, cache: false };
    const session: Session = { ...inv.session, client: () => (client ??= inv.ctx.createClient(settings)), journal: undefined };
    inv.log.info(`Rehearsal: running against a copy of workspace "${seed.workspace}" in a throwaway emulator (${emulator.baseUrl}).`);
    const origin = new URL(emulator.baseUrl).origin;
    let data: D;
    try {
      data = await flow(session);
    } catch (err) {
      throw rehearsedError(err, origin, source, inv);
    }
    const shown = withoutLinks(data, origin);
    if (shown && typeof shown === 'object') REHEARSED.set(shown, { source });
    if (inv.globals.json) closingLine(inv, source, shown);
    return shown;
  } finally {
    await (await client?.catch(() => undefined))?.close().catch(() => undefined);
    await real.close().catch(() => undefined);
    await emulator?.close().catch(() => undefined);
  }
}

/**
 * `data` with the links to the throwaway emulator (review pages, published posts) taken out: it
 * is stopped when they are printed, and they would read as links that live. A link is null, as
 * for a destination not yet published.
 */
function withoutLinks<T>(data: T, origin: string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith(`${origin}/`) ? null : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(data) as T;
}

/**
 * An error met in a rehearsal, told as one: no command to run on the ids it made (the real
 * service answers 404 to them), no hint naming the throwaway emulator, and its data (the post
 * as it stood) marked as a rehearsal's, without links.
 */
function rehearsedError(err: unknown, origin: string, source: string, inv: Invocation): unknown {
  if (!(err instanceof VidpubError)) return err;
  const stopped = err instanceof TimeoutError || err instanceof InterruptedError;
  if (!stopped) inv.log.warn(`Rehearsal: this is what the real run would meet too (as far as the emulator can tell); nothing was written to ${source}.`);
  const gone = (t: string) => t.split(origin).join('(the throwaway emulator)');
  // The message of the real run, the same words (a rehearsal stops where it would); a stop names the rehearsal.
  const message = stopped ? `Rehearsal: ${gone(err.message).replace(/[;,] it goes on at the service\./i, '; it ended with the rehearsal.')}` : gone(err.message);
  // A hint that acts on what the rehearsal made, or names its emulator, would mislead.
  const misleads = (h: string) => /vidpub (status|retry|publish|open)\b|--media med_|post_[0-9a-f]{6,}|med_[0-9a-f]{6,}/.test(h);
  // The rest holds for the real run: named with the service's address (`vidpub login --base-url` it), not the emulator's.
  const real = (h: string) => h.split(`${origin}/v1`).join(source).split(origin).join(new URL(source).origin);
  const kept = err.hint?.split('\n').filter((line) => !misleads(line)).map(real) ?? [];
  const next = stopped
    ? `That was a rehearsal, stopped; nothing was written to ${source}. Run it again with --rehearse (a longer --timeout), or without it to post for real.`
    : `That was a rehearsal; nothing was written to ${source}.`;
  const data = withoutLinks(err.data, origin);
  if (data && typeof data === 'object') REHEARSED.set(data, { source });
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as VidpubError, err, { hint: [...kept, next].join('\n'), data });
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  Object.defineProperty(copy, 'stack', { value: err.stack, writable: true, configurable: true });
  return copy;
}

/** What a rehearsal's data says in a few words: "the post would be completed (@x published)". */
function outcomeWords(data: unknown): string {
  const d = data as { post?: { status?: string; destinations?: { destination_id: string; status: string }[] }; names?: Record<string, string>; items?: { status: string }[]; dryRun?: boolean };
  if (d?.post?.status) {
    const each = (d.post.destinations ?? []).map((x) => `${d.names?.[x.destination_id] ?? x.destination_id} ${x.status}`).join(', ');
    return `the post was ${d.post.status}${each ? ` (${each})` : ''}`;
  }
  if (Array.isArray(d?.items) && !d.dryRun) {
    const counts = new Map<string, number>();
    for (const it of d.items) counts.set(it.status, (counts.get(it.status) ?? 0) + 1);
    return `${d.items.length} item${d.items.length === 1 ? '' : 's'} (${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')})`;
  }
  return 'the command ran';
}

function closingLine(inv: Invocation, source: string, data: unknown): void {
  inv.log.warn(`Rehearsed: ${outcomeWords(data)} in a throwaway emulator, now stopped with its links; nothing was posted to ${source}.`);
}

/** Whether `data` came from a rehearsal. */
export function isRehearsal(data: unknown): boolean {
  return !!data && typeof data === 'object' && REHEARSED.has(data);
}

/** Before a command's printed output: on a pipe a first line `rehearsal<TAB>true`, at a terminal a heading (nothing for a real run). */
export function rehearsalHead(data: unknown, inv: Invocation): void {
  if (!isRehearsal(data)) return;
  inv.print(inv.out.tty ? inv.out.colors.bold('Rehearsal (nothing was posted): what the throwaway emulator did') : 'rehearsal\ttrue');
}

/** After a command's printed output: the closing line of a rehearsal (nothing for a real run). */
export function rehearsalNote(data: unknown, inv: Invocation): void {
  const r = data && typeof data === 'object' ? REHEARSED.get(data) : undefined;
  if (r) closingLine(inv, r.source, data);
}

/** A command's JSON document, with `"rehearsal": true` when its data came from a rehearsal. */
export function rehearsalDoc(data: unknown, doc: unknown): unknown {
  if (!data || typeof data !== 'object' || !REHEARSED.has(data)) return doc;
  return doc && typeof doc === 'object' && !Array.isArray(doc) ? { ...doc, rehearsal: true } : { result: doc, rehearsal: true };
}
