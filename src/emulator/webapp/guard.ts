/**
 * What keeps the web app a local web app, and the test controls beside it
 * the tools of programs on this machine (their peers are checked in
 * server.ts and access.ts; refuseControl: the Host rule below, and no
 * request a page of another origin sends):
 * - the Host a request names must be an address (127.0.0.1, [::1], any IP
 *   literal), `localhost`, or the host the emulator was started on: a page
 *   on a DNS name made to point at this machine (DNS rebinding) is refused,
 *   its reads included;
 * - every action is a POST that carries the session's token (a cookie set by
 *   the pages, SameSite=Strict and HttpOnly, and an HMAC of it under the
 *   process's secret in each form), from a page of the emulator's own origin
 *   (Origin, or Referer when a browser sends no Origin; neither is refused).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_CSP } from './html.js';

export const SESSION_COOKIE = 'vidpub_emulator_session';
export const TOKEN_FIELD = 'csrf_token';

/** Headers of every web-app answer: nothing from elsewhere, no framing, no referrer sent on. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The host name of a Host header ("127.0.0.1:4010" -> "127.0.0.1", "[::1]:4010" -> "::1"), or null. */
function hostName(host: string | undefined): string | null {
  if (!host) return null;
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return null;
  }
}

/** Whether the Host header names this emulator by address, as localhost, or by the host it listens on. */
export function hostAllowed(host: string | undefined, origin: string): boolean {
  const name = hostName(host);
  if (name === null) return false;
  if (isIP(name) !== 0 || name === 'localhost') return true;
  return name === hostName(new URL(origin).host);
}

/** The origin a browser says a request came from: its Origin header, else its Referer's origin; null when it names none. */
function sentFrom(req: FastifyRequest): string | null {
  const origin = first(req.headers.origin);
  if (origin !== undefined) return origin.toLowerCase();
  const referer = first(req.headers.referer);
  try {
    return referer ? new URL(referer).origin.toLowerCase() : null;
  } catch {
    return null;
  }
}

function cookie(req: FastifyRequest, name: string): string | undefined {
  const header = first(req.headers.cookie);
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class Guard {
  constructor(
    private readonly secret: Buffer,
    private readonly origin: () => string,
  ) {}

  private tokenOf(session: string): string {
    return createHmac('sha256', this.secret).update(`web-app session\n${session}`).digest('hex');
  }

  /** The session of a page request (a new one, with its cookie set, when it has none): its form token. */
  session(req: FastifyRequest, reply: FastifyReply): string {
    let session = cookie(req, SESSION_COOKIE);
    if (!session || !/^[0-9a-f]{32}$/.test(session)) {
      session = randomBytes(16).toString('hex');
      void reply.header('Set-Cookie', `${SESSION_COOKIE}=${session}; Path=/_emulator; HttpOnly; SameSite=Strict`);
    }
    return this.tokenOf(session);
  }

  /** Why a request may not be answered at all (a DNS-rebinding Host), or null. */
  refuseHost(req: FastifyRequest): string | null {
    const host = first(req.headers.host);
    if (hostAllowed(host, this.origin())) return null;
    return `The web app answers only on this machine's own addresses (127.0.0.1, [::1], localhost); this request named the host "${host ?? ''}".`;
  }

  /** The emulator's own origin as the request names it (its scheme, the Host header). */
  private own(req: FastifyRequest): string {
    return `${new URL(this.origin()).protocol}//${first(req.headers.host) ?? ''}`.toLowerCase();
  }

  /**
   * Why a request that changes the emulator's state outside the web app (a test control: reset,
   * faults, the clock, any POST, PUT or DELETE under /_emulator) may not run, or null. The
   * controls are for programs (vidpub, curl, a test), which send no Origin: a request a browser
   * sent for a page of another origin (or of none: `Origin: null`) is refused, and so is a body
   * that is not JSON, which no page of another origin can send without asking first (CORS).
   * `remote`: the peer is another machine (let in by --expose-controls), whose programs may name
   * the emulator by any name they know it by; the Host rule keeps this machine's browsers out.
   */
  refuseControl(req: FastifyRequest, remote = false): string | null {
    const host = first(req.headers.host);
    if (!remote && !hostAllowed(host, this.origin())) {
      return `The test controls answer only on this machine's own addresses (127.0.0.1, [::1], localhost); this request named the host "${host ?? ''}".`;
    }
    if (req.method === 'GET' || req.method === 'HEAD') return null;
    const own = this.own(req);
    const from = sentFrom(req);
    if (from !== null && from !== own) {
      const page = from === 'null' ? 'a page with no origin of its own (Origin: null)' : `a page of ${from}`;
      return `The request came from ${page}, not from a program: the test controls (${own}/_emulator) take no request a web page sends.`;
    }
    const type = first(req.headers['content-type'])?.split(';')[0]!.trim().toLowerCase();
    const length = first(req.headers['content-length']);
    const body = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
    if ((type !== undefined || body) && type !== 'application/json') {
      return `A test control takes a JSON body ("Content-Type: application/json") or none; this request sent ${type ? `"${type}"` : 'a body without a Content-Type'}.`;
    }
    return null;
  }

  /** Why an action may not run (another origin, no token or a wrong one), or null. */
  refuseAction(req: FastifyRequest, token: string | null): string | null {
    const hostRefused = this.refuseHost(req);
    if (hostRefused) return hostRefused;
    const own = this.own(req);
    const from = sentFrom(req);
    if (from !== own) {
      return from === null
        ? 'The action came without an Origin or Referer header: the web app takes actions only from its own pages.'
        : `The action came from a page of ${from}, not of the web app (${own}): refused.`;
    }
    const session = cookie(req, SESSION_COOKIE);
    if (!session || !token || !/^[0-9a-f]{64}$/.test(token)) return 'The action carried no session token: reload the page and try again.';
    if (!timingSafeEqual(Buffer.from(this.tokenOf(session), 'hex'), Buffer.from(token, 'hex'))) {
      return "The action's session token does not match this browser's session: reload the page and try again.";
    }
    return null;
  }
}
