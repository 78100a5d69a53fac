/**
 * Who the emulator answers beyond its API. Its test controls (/_emulator:
 * the start information with every key, reset, the clock, faults, the
 * request log) answer only peers on this machine's loopback (contract/addresses.ts:
 * 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104; not NAT64, 6to4 or IPv4-compatible
 * forms that carry 127.0.0.1, which any remote peer may use), unless it was
 * started to expose them (`vidpub emulator --expose-controls`), and so does
 * the web app (review_url's page, the workspace page and their actions:
 * webapp/). The page behind a published destination's url stands for the
 * platform's and answers anyone. Listening on an address other than loopback
 * is said at start (listenWarning).
 */
import { isLoopbackHost, isLoopbackPeer } from '../contract/addresses.js';
import { ADMIN_PREFIX } from './admin.js';
import { ServiceError } from './service-errors.js';

const PAGE_PREFIXES = [`${ADMIN_PREFIX}/published/`];

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
