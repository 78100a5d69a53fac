import type { ApiClient, ClientSettings } from '../../api/client.js';
import type { ClientTuning } from '../../api/send/request-sender.js';
import { UsageError } from '../../errors.js';
import { parseBoundedDuration } from '../../time/duration.js';
import type { Context } from './context.js';
import { canRepaint } from '../../ui/live-region.js';
import { keyStorage } from '../../config/key-storage.js';

/** VIDPUB_REQUEST_TIMEOUT: the ceiling of one request (90s, 2m; a bare number is seconds; at most 365d); undefined: the default (60 s). */
export function requestTimeoutOf(env: Record<string, string | undefined>): number | undefined {
  const raw = env.VIDPUB_REQUEST_TIMEOUT;
  if (raw === undefined || raw === '') return undefined;
  const ms = parseBoundedDuration(raw, 'VIDPUB_REQUEST_TIMEOUT');
  if (ms < 1000) throw new UsageError('VIDPUB_REQUEST_TIMEOUT must be at least 1s');
  return ms;
}

/**
 * Builds the API client for a Context: the client itself knows nothing of
 * the CLI; this hands it the clock, the signal, stderr as its notice and
 * debug sinks, and the Context's env, cwd and stored profiles as credential
 * sources. Loaded lazily with the client.
 */
export async function createClientFor(ctx: Context, settings: ClientSettings, tuning?: ClientTuning): Promise<ApiClient> {
  const [{ createApiClient }, { silentNotices }, { streamNotices }] = await Promise.all([
    import('../../api/http-client.js'),
    import('../../api/send/backoff.js'),
    import('../../ui/notices.js'),
  ]);
  const requestTimeoutMs = requestTimeoutOf(ctx.env);
  return createApiClient(settings, {
    clock: ctx.clock,
    signal: ctx.signal,
    version: ctx.version,
    notices: settings.quiet ? silentNotices : streamNotices(ctx.io.stderr, canRepaint(ctx.io.stderrIsTTY, ctx.env), ctx.io.columns),
    debugOut: settings.debug ? ctx.io.stderr : undefined,
    credentials: {
      env: ctx.env,
      cwd: ctx.cwd,
      readProfile: async (name) => (await ctx.config()).getProfile(name),
      profilesWithKeys: async () => {
        const store = await ctx.config();
        return store.listProfiles().filter((n) => keyStorage(store.getProfile(n)) !== null);
      },
    },
    shows: [ctx.io.stdout, ctx.io.stderr],
    warn: (line) => ctx.io.stderr.write(`! ${line}\n`),
  }, { requestTimeoutMs, ...tuning });
}
