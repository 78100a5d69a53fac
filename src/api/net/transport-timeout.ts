/** A request's time limit reached: the API calls' (transport.ts), the PUT's (put-stream.ts), a proxy's tunnel (proxy.ts). */

/** A timeout, with the code the retry policy knows (undici's, which http-errors.ts names). */
export class TransportTimeoutError extends Error {
  constructor(
    readonly code: 'UND_ERR_CONNECT_TIMEOUT' | 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT',
    message: string,
  ) {
    super(message);
    this.name = 'TransportTimeoutError';
  }
}
