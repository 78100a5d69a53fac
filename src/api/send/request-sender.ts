/**
 * The request sender: one logical request of the contract to the service,
 * its parsed answer back, or an error of the hierarchy (http-errors.ts). What
 * every endpoint shares lives here; what each endpoint means lives in its
 * resource (resources/), which only names a method, a path and a body.
 *
 * - the key sent to the service's origin only (redirects.ts);
 * - one Idempotency-Key per write, reused on every retry;
 * - retries of connection errors, timeouts and 5xx with capped, jittered
 *   exponential backoff, what to do after each attempt decided by a pure
 *   function (retry-decision.ts);
 * - 429s waited out within --max-wait (rate-limit-wait.ts), X-RateLimit-*
 *   used to slow down before one (rate-limit-state.ts);
 * - the --timeout budget, Ctrl-C, and a write whose outcome is open told as
 *   such (unknown-outcome.ts);
 * - each result carrying its own response metadata (responseMeta());
 * - a --debug line per request and response with secrets redacted.
 *
 * The write rule (--workspace) and the key's cache are the client's
 * (http-client.ts): the sender calls back before a write and when the key is
 * refused.
 */
import { clockTimeout, type Clock } from '../../core/clock.js';
import { AuthError, DeadlineReached, RateLimitError, ServiceError } from '../../errors.js';
import { formatDuration } from '../../time/duration.js';
import { nodeCrypto } from '../../util/lazy-builtins.js';
import { DEFAULT_BACKOFF, backoffDelay, interruptibleSleep, isAbortError, parseRetryAfter, stoppedError, type BackoffPolicy, type NoticeSink } from './backoff.js';
import { attachMeta, type HttpMethod, type RequestOptions, type ResponseMeta } from '../client.js';
import { withKeyHint } from '../credentials.js';
import { createDebugLogger, redactUrl, type DebugLogger } from './debug.js';
import { errorFromResponse, header, isRetryableNetworkError, networkError, parseErrorBody, redactSecrets, type ResponseInfo } from './http-errors.js';
import { Pacer, kindOf, type RequestKind } from './rate-limit-state.js';
import { waitOutRateLimit } from './rate-limit-wait.js';
import { redirectTarget, sameOrigin } from './redirects.js';
import { exchange, networkReason, type RawResponse } from './exchange.js';
import { decideAfterAttempt, type RetryCounters } from './retry-decision.js';
import { createTransport, type MaybeSent, type Transport } from '../net/transport.js';
import { answerSeen, isServiceError, readSuccess } from './service-word.js';
import { uncertainAfter, unknownOutcome } from './unknown-outcome.js';
import type { SenderOptions } from './sender-options.js';
import { followAll, type LinkedSignal } from '../../util/any-signal.js';

export type { ClientTuning, SenderDeps, SenderOptions } from './sender-options.js';

/** Retries after a connection error, a timeout or a 5xx (so at most 1 + this many attempts). */
export const MAX_RETRIES = 3;
/** Retries of a 409 idempotency_key_in_use (the first request is still being handled). */
const MAX_IN_USE_RETRIES = 6;
const CONNECT_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 30_000;
/** The whole response body, from its headers (a total: a trickle cannot stretch it). */
const BODY_TIMEOUT_MS = 30_000;
/** The ceiling of one request, connect to last byte (VIDPUB_REQUEST_TIMEOUT overrides it). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** One logical request on its way: what every attempt of it shares. */
interface Sending {
  method: HttpMethod;
  kind: RequestKind;
  path: string;
  o: RequestOptions;
  body: string | undefined;
  signal: AbortSignal;
  idempotencyKey: string | undefined;
  /** Whether the service may have handled it without our hearing (a write's outcome is open). */
  uncertain: boolean;
}

export class RequestSender {
  readonly baseUrl: string;
  readonly #o: SenderOptions;
  readonly #key: string;
  readonly #origin: URL;
  readonly #clock: Clock;
  readonly #debug: DebugLogger;
  readonly #pacer: Pacer;
  readonly #sink: NoticeSink;
  readonly #backoff: BackoffPolicy;
  readonly #maxRetries: number;
  readonly #random: () => number;
  readonly #headersTimeoutMs: number;
  readonly #requestTimeoutMs: number;
  #keyId: string | undefined;
  #transport?: Transport;
  /** Rate-limit waits so far, against --max-wait (when it bounds the whole command). */
  #rateLimitWaitedMs = 0;
  /** The service's clock as its last answer's Date header said it, and ours then (a rerun judges a note's age by it). */
  #serviceTime?: { service: number; local: number };
  /** The --timeout budget, started by the first request; `stop` ends its timer at close. */
  #budget?: { signal: AbortSignal; endsAt: number; stop(): void; expire(): void };

  constructor(o: SenderOptions) {
    const tuning = o.tuning ?? {};
    this.#o = o;
    this.baseUrl = o.baseUrl;
    this.#key = o.key;
    this.#origin = new URL(o.baseUrl);
    this.#clock = o.deps.clock;
    this.#debug = createDebugLogger({ out: o.deps.debugOut, now: () => o.deps.clock.now(), secrets: () => [this.#key] });
    this.#sink = o.deps.notices;
    this.#backoff = tuning.backoff ?? DEFAULT_BACKOFF;
    this.#maxRetries = tuning.maxRetries ?? MAX_RETRIES;
    this.#random = tuning.random ?? Math.random;
    this.#pacer = new Pacer(o.deps.clock, this.#random);
    this.#requestTimeoutMs = tuning.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#headersTimeoutMs = Math.min(tuning.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, this.#requestTimeoutMs);
  }

  /** A short hash of the key, computed on first use: node:crypto is costly to load, and a read needs nothing of it. */
  get keyId(): string {
    return (this.#keyId ??= nodeCrypto().createHash('sha256').update(this.#key).digest('hex').slice(0, 12));
  }

  /** Any endpoint of the contract: `path` is relative to baseUrl (e.g. "/me"); the JSON answer, with its metadata. */
  async request<T = unknown>(method: HttpMethod, path: string, o: RequestOptions = {}): Promise<T> {
    if (kindOf(method) === 'write') await this.#o.beforeWrite(o);
    const { body, meta } = await this.#send(method, path, o);
    return (body !== null && typeof body === 'object' ? attachMeta(body, meta!) : body) as T;
  }

  async close(): Promise<void> {
    this.#budget?.stop();
    const transport = this.#transport;
    this.#transport = undefined;
    await transport?.close().catch(() => undefined);
  }

  #transportFor(): Transport {
    return (this.#transport ??= createTransport({
      connectMs: Math.min(CONNECT_TIMEOUT_MS, this.#requestTimeoutMs),
      headersMs: this.#headersTimeoutMs,
      bodyMs: Math.min(BODY_TIMEOUT_MS, this.#requestTimeoutMs),
      totalMs: this.#requestTimeoutMs,
    }, this.#o.deps.net));
  }

  /** The request's signal: the client's, the caller's and the budget's, followed until the request ends (util/any-signal.ts). */
  #signal(o: RequestOptions): LinkedSignal {
    if (o.signal && o.signalOnly) return followAll([o.signal]);
    return followAll([this.#o.deps.signal, ...(o.signal ? [o.signal] : []), ...(this.#budgetSignal() ?? [])]);
  }

  /**
   * settings.timeoutMs as a signal that aborts with DeadlineReached once spent,
   * started by the first request. A sleep on the client's clock (as the flows'
   * deadline, session/deadline.ts) aborts what is in flight; each call also
   * checks the clock. `stop` ends the sleep at close.
   */
  #budgetSignal(): [AbortSignal] | undefined {
    const ms = this.#o.settings.timeoutMs;
    if (ms === undefined) return undefined;
    if (!this.#budget) {
      const expired = new AbortController();
      const reason = new DeadlineReached(ms);
      const timer = clockTimeout(this.#clock, ms, () => expired.abort(reason));
      this.#budget = { signal: expired.signal, endsAt: this.#clock.now() + ms, stop: () => timer.clear(), expire: () => expired.abort(reason) };
    }
    if (this.#clock.now() >= this.#budget.endsAt) this.#budget.expire();
    return [this.#budget.signal];
  }

  /**
   * Sends one logical request; a write that may have reached the service but
   * got no answer (timeout, dropped connection, still in flight, Ctrl-C or the
   * deadline during it) ends in OutcomeUnknownError, never in a refusal.
   */
  async #send(method: HttpMethod, path: string, o: RequestOptions): Promise<{ body: unknown; meta?: ResponseMeta }> {
    const kind = kindOf(method);
    const linked = this.#signal(o);
    const s: Sending = {
      method,
      kind,
      path,
      o,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: linked.signal,
      // A write carries one Idempotency-Key for all its attempts.
      idempotencyKey: kind === 'write' ? (o.idempotencyKey ?? nodeCrypto().randomUUID()) : undefined,
      uncertain: false,
    };
    try {
      const res = await this.#attempts(s);
      // The --timeout covers reading the answer too: a read whose answer came after it is not parsed.
      this.#budgetSignal();
      if (s.kind === 'read' && s.signal.aborted) throw stoppedError(s.signal);
      return { body: this.#record(s, res), meta: res.meta };
    } catch (caught) {
      let err = caught;
      if (err instanceof AuthError) {
        await this.#o.keyRefused();
        if (this.#o.keyOrigin) err = withKeyHint(err, this.#o.keyOrigin);
      }
      if (kind !== 'write') throw err;
      const request = `${method} ${new URL(this.baseUrl + path).pathname}`;
      throw unknownOutcome(err, { uncertain: s.uncertain, signal: s.signal, request, action: o.action }) ?? err;
    } finally {
      linked.dispose();
    }
  }

  /** The attempts of one logical request: retries, rate limits, redirects; returns a 2xx response or throws. */
  async #attempts(s: Sending): Promise<RawResponse> {
    const { method, signal } = s;
    const limits = { maxRetries: this.#maxRetries, maxInUseRetries: MAX_IN_USE_RETRIES };
    const counters: RetryCounters = { retries: 0, inUseRetries: 0 };
    let url = this.baseUrl + s.path;
    let redirects = 0;
    // --max-wait bounds every rate-limit wait of the command together, or of this request alone.
    const perRequest = this.#o.settings.maxWaitPer === 'request';
    let requestWaitedMs = 0;
    let staleResent = false;
    for (let attempt = 1; ; attempt++) {
      this.#budgetSignal(); // spent by now on the clock: the signal aborts
      if (signal.aborted) throw stoppedError(signal);
      if (perRequest) this.#refuseLongPacing(s.kind, requestWaitedMs);
      await this.#pace(s.kind, signal);

      let res: RawResponse;
      try {
        res = await this.#exchange(s, url, attempt);
      } catch (err) {
        // The request may have reached the service (the connection was up): its outcome is open.
        if ((err as MaybeSent | undefined)?.requestSent !== false) s.uncertain = true;
        if (isAbortError(err, signal)) throw stoppedError(signal, err);
        // A kept-alive connection the other end had closed (a proxy that closes after each answer,
        // an idle timeout): sent again at once on a new connection, once, without a backoff or a
        // retry counted. The same request as any retry (a write with its Idempotency-Key, which
        // the service replays); its outcome stays open (s.uncertain) if it fails again.
        if ((err as MaybeSent).staleConnection && !staleResent) {
          staleResent = true;
          this.#debug.line(`${method} ${redactUrl(url)}: the kept-alive connection was closed by the other end (${networkReason(err)}); sent again on a new connection`);
          continue;
        }
        const decision = decideAfterAttempt({ kind: 'network', retryable: isRetryableNetworkError(err) }, counters, limits);
        if (decision.action !== 'retry') throw networkError(err, method, url, attempt);
        await this.#backoffWait(counters[decision.counter]++, signal, `${method} ${redactUrl(url)} failed (${networkReason(err)})`, undefined, s.o.quietRetries);
        continue;
      }

      const { status, headers } = res;
      res.meta = this.#metaOf(s.kind, res);
      const { retryAfterSec } = res.meta;
      // Only the service's error body speaks for the service (service-word.ts); a 2xx is judged by its record.
      const fromService = status < 400 || isServiceError(status, res.text);
      const foreign = fromService ? undefined : answerSeen(status, headers);
      const info: ResponseInfo = { status, method, url, headers, bodyText: res.text, retryAfterSec, secrets: [this.#key], foreign };
      const code = status >= 400 && fromService ? parseErrorBody(res.text, header(headers, 'content-type')).code : undefined;
      s.uncertain = uncertainAfter({ status, code, fromService }, s.uncertain);
      const decision = decideAfterAttempt({ kind: 'response', status, code, retryAfterSec, fromService }, counters, limits);
      switch (decision.action) {
        case 'accept':
          return res;
        case 'redirect':
          url = this.#redirect(res, method, url, ++redirects);
          continue;
        case 'rate-limited': {
          const waited = await this.#rateLimited(info, perRequest ? requestWaitedMs : this.#rateLimitWaitedMs, s);
          requestWaitedMs += waited;
          this.#rateLimitWaitedMs += waited;
          continue;
        }
        case 'retry': {
          const why = decision.counter === 'inUseRetries' ? `${method} ${redactUrl(url)}: the same request is still being handled` : `${method} ${redactUrl(url)} got HTTP ${status}`;
          await this.#backoffWait(counters[decision.counter]++, signal, why, decision.delayMs, s.o.quietRetries);
          continue;
        }
        case 'fail':
          throw failure(info, s.o.action, attempt);
      }
    }
  }

  /**
   * A success as the service's record (service-word.ts): JSON the resource's
   * expectation accepts. Anything else was not the service's word: an error
   * that says what was seen, which a write tells as an unknown outcome.
   */
  #record(s: Sending, res: RawResponse): unknown {
    const read = readSuccess(res.status, res.headers, res.text, s.o.expect);
    if (read.ok) return read.body;
    s.uncertain = true;
    const url = this.baseUrl + s.path;
    const type = header(res.headers, 'content-type');
    const said = read.seen.includes('not JSON') ? `: ${parseErrorBody(redactSecrets(res.text, [this.#key]), type).message}` : '';
    throw new ServiceError(`Unexpected response to ${s.method} ${redactUrl(url)}: ${read.seen}${said}`, {
      http: { status: res.status, method: s.method, path: new URL(url).pathname, foreign: read.seen },
      hint: 'Run the command again with --debug to see the answer; if it keeps happening, something other than the service is answering (a proxy, a load balancer).',
    });
  }

  /** Per request (the MCP server): a wait for the minute's allowance counts against --max-wait like a 429's. */
  #refuseLongPacing(kind: RequestKind, waitedMs: number): void {
    const paceMs = this.#pacer.delayFor(kind);
    const maxWaitMs = this.#o.settings.maxWaitMs;
    if (paceMs <= maxWaitMs - waitedMs) return;
    const wait = formatDuration(Math.ceil(paceMs / 1000) * 1000);
    throw new RateLimitError(`Rate limited (requests_per_minute): no ${kind} requests are left this minute; the allowance resets in ${wait}, more than --max-wait (${formatDuration(maxWaitMs)}) allows.`, {
      code: 'requests_per_minute',
      retryAfterSec: Math.ceil(paceMs / 1000),
      hint: `Try again in ${wait}, or raise --max-wait.`,
    });
  }

  /** Waits for the minute's allowance when X-RateLimit-* says none is left. */
  async #pace(kind: RequestKind, signal: AbortSignal): Promise<void> {
    await this.#pacer.before(kind, signal, (ms) => {
      const text = `Pacing: no ${kind} requests left this minute; waiting ${formatDuration(ms)} for the allowance to reset.`;
      if (ms >= 5_000) this.#sink.line(text);
      else this.#debug.line(text);
    });
  }

  /** settings.timeoutMs is spent by now (a budget started by the first request). */
  budgetSpent(): boolean {
    return this.#budget !== undefined && this.#clock.now() >= this.#budget.endsAt;
  }

  /** The service's time now (epoch ms): its last Date header, moved on by our clock since; undefined before any answer with one. */
  serviceNow(): number | undefined {
    const t = this.#serviceTime;
    return t === undefined ? undefined : t.service + (this.#clock.now() - t.local);
  }

  /** What a caller may read of a response (responseMeta()); notes its rate-limit headers for pacing. */
  #metaOf(kind: RequestKind, res: RawResponse): ResponseMeta {
    const { status, headers } = res;
    const date = Date.parse(header(headers, 'date') ?? '');
    if (Number.isFinite(date)) this.#serviceTime = { service: date, local: this.#clock.now() };
    const rate = this.#pacer.note(kind, headers);
    const retryAfterSec = parseRetryAfter(headers['retry-after'], this.#clock.now());
    return {
      status,
      replayed: header(headers, 'idempotent-replayed') === 'true',
      rateLimit: rate ? { limit: rate.limit ?? 0, remaining: rate.remaining, resetSec: Math.max(0, Math.round((rate.resetAtMs - this.#clock.now()) / 1000)), kind } : undefined,
      ...(retryAfterSec !== undefined ? { retryAfterSec } : {}),
      ...(headers.server !== undefined ? { server: header(headers, 'server') } : {}),
    };
  }

  /** One attempt's HTTP exchange. */
  #exchange(s: Sending, url: string, attempt: number): Promise<RawResponse> {
    return exchange({
      transport: this.#transportFor(),
      debug: this.#debug,
      method: s.method,
      url,
      // The key goes to the service's origin only.
      key: sameOrigin(new URL(url), this.#origin) ? this.#key : undefined,
      userAgent: `vidpub/${this.#o.deps.version}`,
      body: s.body,
      idempotencyKey: s.idempotencyKey,
      signal: s.signal,
      attempt,
    });
  }

  #redirect(res: RawResponse, method: string, url: string, count: number): string {
    const to = redirectTarget({ status: res.status, headers: res.headers, method, url, count, origin: this.#origin });
    this.#debug.line(`redirect ${res.status} → ${redactUrl(to.href)}`);
    return to.href;
  }

  #rateLimited(info: ResponseInfo, waitedMs: number, s: Sending): Promise<number> {
    const { maxWaitMs, waitForQuota } = this.#o.settings;
    return waitOutRateLimit({ info, waitedMs, signal: s.signal, action: s.o.action, clock: this.#clock, sink: this.#sink, maxWaitMs, waitForQuota, random: this.#random });
  }

  async #backoffWait(retry: number, signal: AbortSignal, why: string, overrideMs?: number, quiet = false): Promise<void> {
    const ms = overrideMs ?? backoffDelay(retry, this.#backoff, this.#random);
    this.#debug.line(`${why}; retry ${retry + 1} in ${ms} ms`);
    if (retry >= 1 && !quiet) this.#sink.line(`${why}; retrying in ${formatDuration(ms)}…`);
    await interruptibleSleep(this.#clock, ms, signal);
  }
}

/** A refusal or failure as an error of the hierarchy; a 5xx says how many attempts it took. */
function failure(info: ResponseInfo, action: string | undefined, attempts: number): Error {
  const err = errorFromResponse(info, { action });
  if (info.status >= 500 && attempts > 1 && err instanceof ServiceError) {
    return new ServiceError(`${err.message} after ${attempts} attempts`, { http: err.http, hint: err.hint });
  }
  return err;
}
