/**
 * The hooks of `vidpub watch` (--exec, --forward-to) as one shape: each gets the events an earlier
 * run could not hand it, then the new ones, and returns those it could not take (kept in the
 * journal's record of what watch reported, offered again by the next run). --forward-to's secret
 * is read (made on first need) before the first pass, and the command's streams take it out from
 * then on (util/redact.ts).
 */
import type { Logger } from '../core/log.js';
import type { VidpubEvent } from '../events/event.js';
import type { Profile } from '../config/profile-types.js';
import type { Session } from '../session/session.js';
import { guardOutput } from '../util/redact.js';

export interface WatchHook {
  /** Its name in the record of pending events: "exec", "forward". */
  name: string;
  /** Hands on the events; returns those not taken. */
  deliver(events: VidpubEvent[]): Promise<VidpubEvent[]>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** --exec CMD as a hook. */
export function execHook(cmd: string, env: Env, session: Pick<Session, 'log' | 'signal'>): WatchHook {
  return {
    name: 'exec',
    async deliver(events) {
      const { execHooks } = await import('./watch-hooks.js');
      return execHooks(cmd, events, { env, log: session.log, signal: session.signal });
    },
  };
}

export interface ForwardSetup {
  url: string;
  env: Env;
  /** The command's working directory (a relative config directory is read against it). */
  cwd: string;
  /** The profile whose secret signs (as config.json holds it: where its key lives). */
  profileName: string;
  profile: Profile | undefined;
  version: string;
  /** The streams the command prints on: they take the secret out. */
  shows: readonly object[];
}

/** --forward-to URL as a hook: the secret read or made now, the streams guarded, the client's network settings. */
export async function forwardHook(s: ForwardSetup, session: Session): Promise<WatchHook> {
  const [{ webhookSecret, secretForm }, { forwardEvents }] = await Promise.all([import('../events/forward/webhook-secret.js'), import('../events/forward/forward.js')]);
  // The key first: no secret is made for a profile that cannot be used.
  const client = await session.client();
  const { secret } = await webhookSecret(s.env, s.cwd, s.profileName, s.profile, session.signal);
  for (const stream of s.shows) guardOutput(stream, [secretForm(secret)]);
  const log: Pick<Logger, 'warn' | 'debug'> = session.log;
  return {
    name: 'forward',
    deliver: (events) => forwardEvents(events, { url: s.url, secret, clock: session.clock, signal: session.signal, log, net: client.net, version: s.version }),
  };
}

/** Profile `name`'s webhook secret (made now when it has none), for --print-secret. */
export async function printableSecret(env: Env, cwd: string, name: string, profile: Profile | undefined, signal: AbortSignal): Promise<{ secret: string; where: string; created: boolean }> {
  const { webhookSecret } = await import('../events/forward/webhook-secret.js');
  return webhookSecret(env, cwd, name, profile, signal);
}
