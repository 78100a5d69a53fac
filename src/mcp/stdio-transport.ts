/**
 * The stdio transport of `vidpub mcp`: one JSON-RPC message per line on
 * stdin, one per line on stdout (the MCP stdio transport).
 *
 * Unlike the SDK's StdioServerTransport, a bad message gets an answer and a
 * log line instead of silence (or a silent exit, for a line over its buffer):
 *   - a line over MAX_MESSAGE_BYTES: -32700 (id null), the rest of the line is
 *     skipped without being buffered, and the server goes on;
 *   - a line that is not JSON: -32700 (id null);
 *   - JSON that is not a JSON-RPC 2.0 message (a batch array, no "jsonrpc",
 *     a bad id): -32600 (with its id when it has a usable one);
 *   - params that are not an object, or tools/call "arguments" that are not an
 *     object (null included), or params of initialize, ping, tools/list or
 *     tools/call that do not match the method's schema: -32602 (invalid params).
 * The log line names the message by its line number and size, never its
 * content (it may hold a caption or a key).
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { paramsProblem } from '../contract/mcp-tools.js';

/** The largest message accepted, in bytes (a tool call's arguments are small: paths, ids, a caption). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export interface LineTransportOptions {
  maxMessageBytes?: number;
  /** Where a refused message is reported (one line, no trailing newline). */
  log(line: string): void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const usableId = (v: unknown): RequestId | null => (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null);

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #max: number;
  readonly #log: (line: string) => void;
  #parts: Buffer[] = [];
  #size = 0;
  /** Inside a line that was too long: its bytes are dropped up to the next newline. */
  #skipping = false;
  #line = 0;
  #closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    opts: LineTransportOptions,
  ) {
    this.#max = opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.#log = opts.log;
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = buf.indexOf(0x0a);
      const piece = nl < 0 ? buf : buf.subarray(0, nl);
      if (!this.#skipping) {
        this.#size += piece.length;
        if (this.#size > this.#max) {
          this.#line += 1;
          this.#parts = [];
          this.#skipping = true;
          this.#refuse(null, PARSE_ERROR, `Parse error: the message is larger than ${this.#max} bytes (the limit of vidpub mcp); it was skipped.`, 'over the size limit');
        } else if (piece.length > 0) {
          this.#parts.push(piece);
        }
      }
      if (nl < 0) return;
      if (this.#skipping) {
        this.#skipping = false;
      } else {
        const line = Buffer.concat(this.#parts);
        this.#line += 1;
        this.#handleLine(line);
      }
      this.#parts = [];
      this.#size = 0;
      buf = buf.subarray(nl + 1);
    }
  };

  /** A last line without its newline, when input ends. */
  readonly #onEnd = (): void => {
    if (!this.#skipping && this.#size > 0) {
      const line = Buffer.concat(this.#parts);
      this.#parts = [];
      this.#size = 0;
      this.#line += 1;
      this.#handleLine(line);
    }
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  #handleLine(bytes: Buffer): void {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#refuse(null, PARSE_ERROR, 'Parse error: the line is not JSON (one JSON-RPC message per line).', 'not JSON', bytes.length);
      return;
    }
    if (!isObject(value)) {
      const what = Array.isArray(value) ? 'a batch (an array), which MCP does not use' : 'not a JSON object';
      this.#refuse(null, INVALID_REQUEST, `Invalid Request: the message is ${what}.`, Array.isArray(value) ? 'a batch' : 'not an object', bytes.length);
      return;
    }
    const id = usableId(value.id);
    const isRequest = typeof value.method === 'string' && 'id' in value;
    if (value.jsonrpc !== '2.0') {
      this.#refuse(id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".', 'no "jsonrpc": "2.0"', bytes.length);
      return;
    }
    if (typeof value.method === 'string') {
      const reply = (message: string, what: string) => this.#refuse(isRequest ? id : null, INVALID_PARAMS, message, what, bytes.length, isRequest);
      if ('params' in value && !isObject(value.params)) {
        reply(`Invalid params: "params" of ${value.method} must be an object${value.params === null ? ', not null' : ''}.`, `params not an object in ${value.method}`);
        return;
      }
      const params = value.params as Record<string, unknown> | undefined;
      if (value.method === 'tools/call' && params && 'arguments' in params && !isObject(params.arguments)) {
        reply(`Invalid params: "arguments" of tools/call must be an object (or left out)${params.arguments === null ? ', not null' : ''}.`, 'tools/call arguments not an object');
        return;
      }
      const problem = isRequest ? paramsProblem(value.method, value.params) : undefined;
      if (problem) {
        reply(problem, `params of ${value.method} do not match its schema`);
        return;
      }
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#refuse(id, INVALID_REQUEST, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response.', 'not a JSON-RPC message', bytes.length);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /**
   * Answers a refused message with a JSON-RPC error (a notification, which
   * expects no answer, only gets the log line) and logs it.
   */
  #refuse(id: RequestId | null, code: number, message: string, what: string, size?: number, answer = true): void {
    const sizeText = size === undefined ? `over ${this.#max} bytes` : `${size} bytes`;
    this.#log(`vidpub mcp: message on input line ${this.#line} (${sizeText}) refused: ${what}${answer ? `; answered with JSON-RPC error ${code}` : ' (a notification: no answer)'}.`);
    if (!answer) return;
    void this.#write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n');
  }

  #write(text: string): Promise<void> {
    if (this.#closed || this.stdout.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(text)) resolve();
      else {
        this.stdout.once('drain', resolve);
        this.stdout.once('close', resolve);
      }
    });
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.#onData);
    this.stdin.on('end', this.#onEnd);
    this.stdin.on('error', this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(JSON.stringify(message) + '\n');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.stdin.off('data', this.#onData);
    this.stdin.off('end', this.#onEnd);
    this.stdin.off('error', this.#onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.#parts = [];
    this.#closed = true;
    this.onclose?.();
  }
}
