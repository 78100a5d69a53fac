/** What a RequestSender is made with (request-sender.ts): what it runs on, its knobs, and the client's callbacks. */
import type { Clock } from '../../core/clock.js';
import type { BackoffPolicy, NoticeSink } from './backoff.js';
import type { ClientSettings, RequestOptions } from '../client.js';
import type { KeyOrigin } from '../credentials.js';
import type { NetSettings } from '../net/net-types.js';

/** What the sender runs on: no CLI Context, only these. */
export interface SenderDeps {
  /** Proxies and trusted CAs (net.ts); none: straight, trusting Node's CAs. */
  net?: NetSettings;
  clock: Clock;
  /** Aborts every request of this client (Ctrl-C). */
  signal: AbortSignal;
  /** For the User-Agent. */
  version: string;
  /** Retries and rate-limit waits, for a person (silentNotices with --quiet). */
  notices: NoticeSink;
  /** Where --debug lines go (secrets redacted); absent: no debug log. */
  debugOut?: { write(text: string): unknown };
}

/** Extra knobs for tests and other callers; defaults suit the CLI. */
export interface ClientTuning {
  backoff?: BackoffPolicy;
  maxRetries?: number;
  random?: () => number;
  /** How long to wait for response headers (ms) before the attempt counts as timed out. */
  headersTimeoutMs?: number;
  /** The ceiling of one request (ms), connect to last byte (VIDPUB_REQUEST_TIMEOUT; default 60 s). */
  requestTimeoutMs?: number;
}

export interface SenderOptions {
  deps: SenderDeps;
  settings: Pick<ClientSettings, 'maxWaitMs' | 'maxWaitPer' | 'timeoutMs' | 'waitForQuota'>;
  baseUrl: string;
  key: string;
  tuning?: ClientTuning;
  /** Where the key came from: the hint after it is refused says where a new one goes. */
  keyOrigin?: KeyOrigin;
  /** Before every write (the --workspace check). */
  beforeWrite(o: RequestOptions): Promise<void>;
  /** When the service refuses the key: what was kept under it may no longer hold. */
  keyRefused(): Promise<void>;
}
