/**
 * `vidpub watch --exec CMD`: a command run for each event, the event (one JSON line) on its stdin and
 * VIDPUB_EVENT_TYPE, VIDPUB_POST_ID, VIDPUB_DESTINATION_ID in its environment, which follows the child
 * environment rules (src/util/child-env.ts: no key). A hook that fails (exit not 0, or it cannot start)
 * is said on stderr, and its event is kept to be offered again by the next run: at least once; the
 * event's id lets the hook drop a repeat.
 */
import type { Logger } from '../core/log.js';
import { sanitize } from '../errors.js';
import type { VidpubEvent } from '../events/event.js';
import { childEnv } from '../util/child-env.js';
import { nodeChildProcess } from '../util/lazy-builtins.js';

/** Runs `cmd` with a shell for one event; resolves with its exit code (or the reason it could not run). */
function runHook(cmd: string, event: VidpubEvent, env: Readonly<Record<string, string | undefined>>, signal: AbortSignal): Promise<number | string> {
  return new Promise((resolve) => {
    const child = nodeChildProcess().spawn('/bin/sh', ['-c', cmd], {
      env: {
        ...childEnv(env),
        VIDPUB_EVENT_TYPE: event.type,
        VIDPUB_EVENT_ID: event.id,
        VIDPUB_POST_ID: event.post_id ?? '',
        VIDPUB_DESTINATION_ID: event.destination_id ?? '',
      },
      stdio: ['pipe', 'ignore', 'inherit'],
      signal,
    });
    child.on('error', (err) => resolve(err.message));
    child.on('close', (code, sig) => resolve(code ?? `stopped by ${sig ?? 'a signal'}`));
    // A hook that does not read its stdin is not a failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${JSON.stringify(event)}\n`);
  });
}

/** Runs the hook for each event in turn; returns those it failed for (to be offered again). */
export async function execHooks(cmd: string, events: VidpubEvent[], ctx: { env: Readonly<Record<string, string | undefined>>; log: Logger; signal: AbortSignal }): Promise<VidpubEvent[]> {
  const failed: VidpubEvent[] = [];
  for (const e of events) {
    const end = await runHook(cmd, e, ctx.env, ctx.signal);
    if (end === 0) continue;
    failed.push(e);
    const how = typeof end === 'number' ? `exit ${end}` : sanitize(end);
    ctx.log.warn(`The --exec hook failed (${how}) for ${e.type} of ${e.post_id ?? e.media_id ?? '?'}${e.destination_id ? ` (${e.destination_id})` : ''} (${e.id}): it is offered again on the next run.`);
  }
  return failed;
}
