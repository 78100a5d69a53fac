/**
 * The emulator's storage origin: a second listener, on a port of its own
 * (over HTTPS with its own certificate when the API is), that takes the
 * signed upload links and nothing else, as object storage on another host
 * would. The links are answered by the same routes as on the API's origin.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { EMULATOR_SERVER_HEADER } from '../contract/wire-types.js';
import { errorBody } from './service-errors.js';
import type { KeyPair } from './tls.js';
import { UPLOAD_PATH_PREFIX } from './uploads.js';

export interface StorageListener {
  port: number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function notStorage(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify(errorBody('not_found', 'not_found', `No endpoint ${req.method ?? ''} on the storage origin: it takes only the signed upload links (PUT ${UPLOAD_PATH_PREFIX}...).`));
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), server: EMULATOR_SERVER_HEADER });
  res.end(body);
}

/** Listens on `host`:`port` (0: a free port), passing upload links to the app's own request handler. */
export async function listenStorage(app: FastifyInstance, o: { host: string; port: number; tls?: KeyPair }): Promise<StorageListener> {
  const routing = app.server.listeners('request')[0] as Handler;
  const onRequest: Handler = (req, res) => {
    if ((req.url ?? '').startsWith(UPLOAD_PATH_PREFIX)) routing.call(app.server, req, res);
    else notStorage(req, res);
  };
  const server = o.tls ? https.createServer({ cert: o.tls.cert, key: o.tls.key }, onRequest) : http.createServer(onRequest);
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: o.host, port: o.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
