/**
 * A TCP relay in front of the emulator that can lose the service and bring it back on the same
 * port: what a service that goes away (a restart, a network cut) looks like to the client, while
 * the emulator keeps its world. lose() closes the listener and every connection (the client's
 * next request is refused); back() listens again on the same port. holdAnswers() holds back the
 * answers to one kind of request until release(): a service slow to answer, for as long as the test says.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpRelay {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  #holdMarker: string | undefined;
  readonly #held = new Set<() => void>();
  port = 0;

  constructor(private readonly targetPort: number) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
      // A request carrying the marker: its answer (and all after it on this connection) waits for release(). Seen in
      // the same 'data' event that passed the request on, so no byte of the answer can have been passed on before.
      client.on('data', (chunk: Buffer) => {
        const marker = this.#holdMarker;
        if (marker === undefined || !chunk.includes(marker)) return;
        upstream.unpipe(client);
        upstream.pause();
        this.#held.add(() => {
          upstream.pipe(client);
          upstream.resume();
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
    return this;
  }

  /**
   * From now on the answer to a request that contains `marker` (a request line such as "POST /v1/posts ") is held
   * back, not passed on, until release(): the service has handled the request and its answer is slow to come.
   */
  holdAnswers(marker: string): void {
    this.#holdMarker = marker;
  }

  /** How many answers are held back. */
  get held(): number {
    return this.#held.size;
  }

  /** Passes on the answers held back, and holds no more. */
  release(): void {
    this.#holdMarker = undefined;
    for (const go of this.#held) go();
    this.#held.clear();
  }

  /** The service is gone: nothing listens, every open connection is cut. */
  async lose(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The service is back, on the same port. */
  back(): Promise<this> {
    return this.start();
  }
}
