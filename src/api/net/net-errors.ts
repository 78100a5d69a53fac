/**
 * A certificate or proxy failure as one sentence saying what to do: an
 * unknown CA, an expired certificate, one for another host, a self-signed
 * one; a proxy that cannot be reached or refuses the tunnel. Exit 1, the
 * class of "could not reach the service" (errors.ts, docs/reliability.md "Exit codes").
 * There is no switch that turns certificate checks off.
 */
import { ServiceError, sanitize } from '../../errors.js';
import { redactUrl } from '../send/debug.js';

const SECTION = 'See "Networks, proxies and certificates" in the manual (docs/networks-and-credentials.md).';
const GIVE_CA = 'give its certificate with --ca-file FILE or VIDPUB_CA_FILE ("vidpub login --ca-file FILE" keeps it in the profile), or NODE_EXTRA_CA_CERTS';

type Kind = 'unknown-ca' | 'expired' | 'not-yet-valid' | 'wrong-host' | 'self-signed';

const CERT_CODES: Record<string, Kind> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unknown-ca',
  UNABLE_TO_GET_ISSUER_CERT: 'unknown-ca',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknown-ca',
  SELF_SIGNED_CERT_IN_CHAIN: 'unknown-ca',
  CERT_UNTRUSTED: 'unknown-ca',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'not-yet-valid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'wrong-host',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed',
};

interface NetErr {
  code?: string;
  host?: string;
  cert?: { subjectaltname?: string };
  proxy?: { url: string; source: string; status?: number; forward?: boolean };
}

function partOf(url: string, part: 'host' | 'pathname'): string {
  try {
    return new URL(url)[part];
  } catch {
    return part === 'host' ? 'the host' : url;
  }
}
const hostOf = (url: string) => partOf(url, 'host');

function certProblem(kind: Kind, host: string, e: NetErr): { said: string; hint: string } {
  switch (kind) {
    case 'unknown-ca':
      return {
        said: `the certificate of ${host} was issued by a certificate authority this machine does not trust`,
        hint: `If the service, or a proxy of your organisation that inspects TLS, uses a private CA, ${GIVE_CA}. ${SECTION}`,
      };
    case 'expired':
    case 'not-yet-valid':
      return {
        said: `the certificate of ${host} ${kind === 'expired' ? 'has expired' : 'is not valid yet'}`,
        hint: "Check this machine's date and time; if they are right, the certificate must be renewed by whoever runs that host.",
      };
    case 'wrong-host': {
      const names = e.cert?.subjectaltname ? ` (it names ${sanitize(e.cert.subjectaltname)})` : '';
      return {
        said: `the certificate presented by ${host} is for other host names${names}`,
        hint: 'Check the host in the base URL (--base-url, VIDPUB_BASE_URL or the profile); a proxy that inspects TLS must present a certificate for that host.',
      };
    }
    case 'self-signed':
      return {
        said: `${host} presented a self-signed certificate, which no certificate authority vouches for`,
        hint: `If you trust this server (a test server of your own), ${GIVE_CA}. ${SECTION}`,
      };
  }
}

/**
 * The error for a certificate or proxy failure of a request to `url` ("the
 * service", "the upload storage"); undefined for any other failure.
 */
export function netProblem(err: unknown, method: string, url: string, what = 'the service'): ServiceError | undefined {
  const e = findNetErr(err);
  if (!e) return undefined;
  const http = { status: 0, method, path: partOf(url, 'pathname') };
  if (e.proxy) {
    const p = e.proxy;
    const refused = p.status !== undefined;
    const said = refused
      ? `the proxy ${p.url} (${p.source}) refused to ${p.forward ? 'pass on the request' : 'open a tunnel'} to ${hostOf(url)}: HTTP ${p.status}${p.status === 407 ? ' Proxy Authentication Required' : ''}`
      : `could not reach the proxy ${p.url} (${p.source})${e.code ? ` (${e.code})` : ''}`;
    const hint = p.status === 407
      ? `Put the proxy's user and password in ${p.source} (http://user:password@host:port, percent-encoded). ${SECTION}`
      : `Check ${p.source}, or list ${hostOf(url).replace(/:\d+$/, '')} in NO_PROXY to go straight. ${SECTION}`;
    return new ServiceError(`Could not reach ${what} at ${redactUrl(url)}: ${said}.`, { cause: err, http, hint });
  }
  const kind = CERT_CODES[e.code ?? ''];
  if (!kind) return undefined;
  const { said, hint } = certProblem(kind, hostOf(url), e);
  return new ServiceError(`Could not reach ${what} at ${redactUrl(url)} securely: ${said} (${e.code}).`, { cause: err, http, hint });
}

/** A certificate problem, or a proxy's refusal: trying again gives the same answer. */
export function isHopelessNetError(err: unknown): boolean {
  const e = findNetErr(err);
  return e !== undefined && (e.code === 'VIDPUB_PROXY_REFUSED' ? e.proxy?.status !== 502 && e.proxy?.status !== 503 : CERT_CODES[e.code ?? ''] !== undefined);
}

function findNetErr(err: unknown): NetErr | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const n = e as NetErr;
    if (n.proxy || CERT_CODES[n.code ?? '']) return n;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

