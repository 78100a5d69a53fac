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
import type { ApiClient } from '../api/client.js';
import { redactUrl } from '../api/debug.js';
import type { EmulatorHandle, SeedRecords } from '../emulator/index.js';
import type { Session } from '../session/session.js';
import type { Invocation } from './command.js';

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
  const { seedFixture, seedRecords, startEmulator } = await import('../emulator/index.js');
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
    const data = await flow(session);
    if (data && typeof data === 'object') REHEARSED.set(data, { source });
    if (inv.globals.json) closingLine(inv, source);
    return data;
  } catch (err) {
    inv.log.warn(`Rehearsal: this is what the real run would meet too (as far as the emulator can tell); nothing was written to ${source}.`);
    throw err;
  } finally {
    await (await client?.catch(() => undefined))?.close().catch(() => undefined);
    await real.close().catch(() => undefined);
    await emulator?.close().catch(() => undefined);
  }
}

function closingLine(inv: Invocation, source: string): void {
  inv.log.warn(`That was a rehearsal: its uploads and posts were made in a throwaway emulator, now stopped; nothing was written to ${source}.`);
}

/** After a command's printed output: the closing line of a rehearsal (nothing for a real run). */
export function rehearsalNote(data: unknown, inv: Invocation): void {
  const r = data && typeof data === 'object' ? REHEARSED.get(data) : undefined;
  if (r) closingLine(inv, r.source);
}

/** A command's JSON document, with `"rehearsal": true` when its data came from a rehearsal. */
export function rehearsalDoc(data: unknown, doc: unknown): unknown {
  if (!data || typeof data !== 'object' || !REHEARSED.has(data)) return doc;
  return doc && typeof doc === 'object' && !Array.isArray(doc) ? { ...doc, rehearsal: true } : { result: doc, rehearsal: true };
}
