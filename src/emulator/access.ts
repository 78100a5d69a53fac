/**
 * Who the emulator answers beyond its API. Its test controls (/_emulator:
 * the start information with every key, reset, the clock, faults, the
 * request log) answer only peers on this machine's loopback (contract/addresses.ts:
 * 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104; not NAT64, 6to4 or IPv4-compatible
 * forms that carry 127.0.0.1, which any remote peer may use), unless it was
 * started to expose them (`vidpub emulator --expose-controls`), and so does
 * the web app (review_url's page, the workspace page and their actions:
 * webapp/). The controls also refuse what a browser sends for a web page
 * (isControl; webapp/guard.ts, Guard.refuseControl): a DNS-rebinding Host, and
 * for a request that changes state another origin or a body that is not JSON,
 * so that no page can reset the emulator or read its keys, --expose-controls
 * or not. The page behind a published destination's url stands for the
 * platform's and answers anyone. Listening on an address other than loopback
 * is said at start (listenWarning).
 */
import { isLoopbackHost, isLoopbackPeer } from '../contract/addresses.js';
import { ADMIN_PREFIX } from './admin.js';
import { ServiceError } from './service-errors.js';
import { APP_PATH, REVIEW_PATH } from './webapp/review-page.js';

const PAGE_PREFIXES = [`${ADMIN_PREFIX}/published/`];
/** The web app's pages and actions, which check each request themselves (webapp/guard.ts: a session token on every action). */
const WEBAPP_PATHS = [APP_PATH, REVIEW_PATH];

/**
 * Whether a path under /_emulator is a test control (not a published page, which answers
 * anyone, nor the web app): its requests are checked by Guard.refuseControl (the Host rule, no
 * request a web page sends), on top of the peer rule.
 */
export function isControl(path: string): boolean {
  return !PAGE_PREFIXES.some((p) => path.startsWith(p)) && !WEBAPP_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/** The answer to a control request a browser sent for a page (another origin, a rebound Host, a body that is not JSON). */
export function controlRefused(why: string): ServiceError {
  return new ServiceError(403, 'control_refused', why);
}

/** Whether a request to `path` (under /_emulator) from `peer` (the socket's remote address) is answered. */
export function controlsAnswer(path: string, peer: string | undefined, exposeControls: boolean): boolean {
  return exposeControls || isLoopbackPeer(peer) || PAGE_PREFIXES.some((p) => path.startsWith(p));
}

/** The answer to a peer the controls do not answer. */
export function controlsRefused(peer: string | undefined): ServiceError {
  return new ServiceError(
    403,
    'controls_not_exposed',
    `The test controls (/_emulator) answer only requests from this machine's loopback address (127.0.0.1, ::1); this one came from ${peer ?? 'an unknown address'}. `
      + 'To use them from elsewhere, start the emulator with --expose-controls.',
  );
}

/** What to say when the emulator listens on `host`, or null when only this machine can reach it. */
export function listenWarning(host: string, exposeControls: boolean): string | null {
  if (isLoopbackHost(host)) return null;
  const who = `The emulator listens on ${host}: whoever can reach this machine can use its API with its keys `
    + "(those of the default fixture are published in vidpub's manual)";
  return exposeControls
    ? `${who}, and its test controls (/_emulator: every key, reset, the clock, faults), as --expose-controls asks.`
    : `${who}. Its test controls (/_emulator), which list every key, still answer only on this machine; --expose-controls opens them too.`;
}
