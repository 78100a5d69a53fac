/**
 * `vidpub emulator --seed-from PROFILE [--save-fixture FILE]`: the workspace
 * of a stored profile, read from the service it points at with GET requests
 * only (src/emulator/seed.ts), as the fixture the emulator starts from; and,
 * with --save-fixture, written as a fixture file to commit (it holds no key
 * of the service).
 */
import { writeFileAtomicAsync } from '../../util/atomic-write.js';
import { resolve } from 'node:path';
import { redactUrl } from '../../api/send/debug.js';
import { UsageError, VidpubError, sanitize } from '../../errors.js';
import type { Invocation } from '../run/command.js';
import type { Context } from '../run/context.js';

/** The env settings that would take the place of the profile's base URL and key. */
const OVERRIDES = ['VIDPUB_BASE_URL', 'VIDPUB_API_KEY', 'VIDPUB_PROFILE'];

/** Reads the profile's workspace (GET only) and gives the fixture; writes it to `save` first when asked. */
export async function seedFromProfile(profile: string, save: string | undefined, inv: Invocation): Promise<unknown> {
  const { ctx } = inv;
  const [{ seedFixture, validateFixture }, { createClientFor }] = await Promise.all([import('../../emulator/index.js'), import('../run/client-factory.js')]);
  // The profile named, not whatever VIDPUB_API_KEY or --base-url say.
  const env = Object.fromEntries(Object.entries(ctx.env).filter(([k]) => !OVERRIDES.includes(k)));
  const own: Context = { ...ctx, env };
  const client = await createClientFor(own, { ...inv.clientSettings, profile, baseUrl: undefined, apiKeyFile: undefined, workspace: undefined, cache: false });
  try {
    const source = redactUrl(client.baseUrl);
    inv.log.info(`Reading the workspace of profile "${profile}" from ${source} (GET only; nothing is written there).`);
    const seed = await seedFixture(client, { signal: ctx.signal, source, at: new Date(ctx.clock.now()).toISOString() });
    for (const note of seed.notes) inv.log.warn(`${note}.`);
    // What the service answered must make a fixture the emulator (and a later --fixture) takes.
    try {
      validateFixture(seed.fixture, `the copy of profile "${profile}"`);
    } catch (err) {
      throw new VidpubError(`the workspace read from ${source} does not fit the emulator:\n${sanitize((err as Error).message)}`, {
        hint: 'The service answered outside what the emulator can hold; see "Rehearse" in the manual (docs/emulator.md) for what a copy keeps.',
      });
    }
    if (save !== undefined) {
      await writeAtomically(resolve(ctx.cwd, save), `${JSON.stringify(seed.fixture, null, 2)}\n`);
      inv.log.info(`Saved the copy as ${save}: start it again with "vidpub emulator --fixture ${save}" (no key of the service is in it).`);
    }
    return seed.fixture;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Writes a file whole or not at all: a temporary file beside it, then renamed over it. */
async function writeAtomically(path: string, text: string): Promise<void> {
  try {
    await writeFileAtomicAsync(path, text, { mode: 0o644 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot write the fixture to ${sanitize(path)}${code ? ` (${code})` : ''}`, { hint: 'Give --save-fixture a path in a directory you can write.' });
  }
}
