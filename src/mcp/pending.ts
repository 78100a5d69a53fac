/**
 * A transport wrapper that knows which requests are still unanswered, so a
 * server whose input closed (a client that wrote its last request and hung
 * up, `... | vidpub mcp`) can answer them before it stops. A request the
 * client cancelled (notifications/cancelled) gets no answer, so it is not
 * waited for.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

export class PendingTrackingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #pending = new Set<RequestId>();
  #waiters: (() => void)[] = [];

  constructor(private readonly inner: Transport) {}

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      if ('method' in message && 'id' in message) this.#pending.add(message.id);
      this.onmessage?.(message, extra);
      // A cancelled request is never answered (the protocol says so): it is no longer waited for.
      if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if ((typeof id === 'string' || typeof id === 'number') && this.#pending.delete(id)) this.#settle();
      }
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.inner.send(message, options);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined && this.#pending.delete(message.id)) this.#settle();
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Resolves once every request received so far has been answered. */
  idle(): Promise<void> {
    return this.#pending.size === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }

  #settle(): void {
    if (this.#pending.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
