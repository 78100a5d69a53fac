/**
 * `vidpub watch --forward-to URL`: each event POSTed to a receiver as a webhook, its JSON as the
 * body, signed (./signature.ts) with the profile's secret (./webhook-secret.ts). It goes through
 * vidpub's HTTP stack (src/api/net/: the proxy variables, NO_PROXY, the CA file), one event at a
 * time, in order. A network error, a 5xx, 408 or 429 is tried again after a backoff on the
 * command's clock, up to FORWARD_TRIES tries; a 2xx takes the event, and it is never sent again by
 * this run. Any other answer (a redirect, a 4xx: the receiver refused it) or the tries spent
 * leaves the event for the next run, and the rest with it once the receiver looks down: at least
 * once, never lost. What the receiver answered is shown through the sanitizer, cut short.
 */
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import type { NetSettings } from '../../api/net/net-types.js';
import { isHopelessNetError, netProblem } from '../../api/net/net-errors.js';
import { createTransport, type Transport } from '../../api/net/transport.js';
import { backoffDelay, interruptibleSleep, isAbortError, type BackoffPolicy } from '../../api/send/backoff.js';
import { redactUrl } from '../../api/send/debug.js';
import { sanitize } from '../../errors.js';
import type { VidpubEvent } from '../event.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

/** Tries of one event in one run: the first and three more. */
export const FORWARD_TRIES = 4;

/** The waits between tries: 1 s, 2 s, 4 s (each with jitter), at most 30 s. */
export const FORWARD_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 30_000 };

/** The receiver's time to connect, to answer, to send its answer. */
const TIMEOUTS = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 };

/** Answers worth another try in this run: the receiver's trouble, not a refusal. */
const AGAIN = (status: number): boolean => status >= 500 || status === 408 || status === 429;

export interface ForwardOptions {
  url: string;
  secret: string;
  clock: Clock;
  signal: AbortSignal;
  log: Pick<Logger, 'warn' | 'debug'>;
  /** Proxies and trusted CAs (the API client's): the webhook goes the same way. */
  net?: NetSettings;
  /** vidpub's version, for the User-Agent. */
  version?: string;
  random?: () => number;
}

type Outcome = { ok: true } | { ok: false; again: boolean; why: string };

/** What an answer's body says, for a message: sanitized, cut short. */
function answerText(text: string): string {
  const one = sanitize(text);
  return one.length > 200 ? `${one.slice(0, 200)}…` : one;
}

async function tryOnce(transport: Transport, event: VidpubEvent, o: ForwardOptions): Promise<Outcome> {
  const body = JSON.stringify(event);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(o.secret, body, o.clock.now()),
    'user-agent': `vidpub/${o.version ?? 'dev'} (webhook)`,
  };
  try {
    const res = await transport.request(o.url, { method: 'POST', headers, body, signal: o.signal });
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true };
    const said = res.text.trim() === '' ? '' : `: ${answerText(res.text)}`;
    const redirect = res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed: give the URL it points to)' : '';
    return { ok: false, again: AGAIN(res.statusCode), why: `it answered HTTP ${res.statusCode}${redirect}${said}` };
  } catch (err) {
    if (isAbortError(err, o.signal)) throw err;
    const problem = netProblem(err, 'POST', o.url, 'the receiver');
    if (problem) return { ok: false, again: !isHopelessNetError(err), why: problem.message };
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, again: true, why: `it could not be reached (${sanitize(code ?? (err as Error).message ?? 'error')})` };
  }
}

/**
 * POSTs `events` to the receiver in order; returns those it did not take, to be offered again by the
 * next run. An event the receiver refused is kept and the next one sent; once an event's tries are
 * spent, the rest are not sent: a receiver that is down gets them all next time, in order. Ctrl-C or
 * --timeout stops it the same way.
 */
export async function forwardEvents(events: readonly VidpubEvent[], o: ForwardOptions): Promise<VidpubEvent[]> {
  if (events.length === 0) return [];
  const transport = createTransport(TIMEOUTS, o.net);
  const where = redactUrl(o.url);
  const kept: VidpubEvent[] = [];
  const say = (event: VidpubEvent, what: string, more: number) =>
    o.log.warn(
      `The receiver at ${where} did not take ${event.type} of ${event.post_id ?? event.media_id ?? '?'} (${event.id})${what}. ` +
        `${more === 0 ? 'It is' : `It and the ${more} event${more === 1 ? '' : 's'} after it are`} offered again on the next run.`,
    );
  try {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      let last: Outcome = { ok: false, again: true, why: 'it was not tried' };
      let stopped = false;
      try {
        for (let attempt = 0; attempt < FORWARD_TRIES; attempt++) {
          if (attempt > 0) await interruptibleSleep(o.clock, backoffDelay(attempt - 1, FORWARD_BACKOFF, o.random), o.signal);
          last = await tryOnce(transport, event, o);
          o.log.debug(`webhook ${event.id} try ${attempt + 1}: ${last.ok ? 'taken' : last.why}`);
          if (last.ok || !last.again) break;
        }
      } catch {
        stopped = true;
      }
      if (last.ok) {
        if (!stopped) continue;
        last = { ok: false, again: true, why: 'the command was stopped' };
      }
      if (stopped || last.again) {
        // Down (or the command stopped): this event and the rest wait for the next run, in order.
        say(event, stopped ? ': the command was stopped' : ` after ${FORWARD_TRIES} tries: ${last.why}`, events.length - i - 1);
        return [...kept, ...events.slice(i)];
      }
      say(event, `: ${last.why}`, 0);
      kept.push(event);
    }
    return kept;
  } finally {
    await transport.close();
  }
}
