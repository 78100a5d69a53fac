/**
 * What the resources share: the request sender they speak through, the key's
 * cache they keep rarely changing answers in, and the check a record read by
 * id must pass.
 */
import { ServiceError } from '../../errors.js';
import type { ClientMemory, RequestOptions } from '../client.js';
import type { RequestSender } from '../send/request-sender.js';

/** The sender as a resource sees it. */
export type Requester = Pick<RequestSender, 'baseUrl' | 'request'>;

/** The key's cache, opened on first use (undefined: none, --no-cache). */
export type MemoryOf = () => ClientMemory | undefined;

/**
 * Keeps an answer in the key's cache. Awaited (a few ms of file work) so
 * that nothing is left to write once a command has printed: a process that
 * lingers after printing into a closed pipe (| head) meets EPIPE.
 */
export async function remember(memory: MemoryOf, name: string, value: unknown): Promise<void> {
  await memory()?.set(name, value);
}

/**
 * A record read by id must at least say its status: an answer without one
 * (an empty object, a list) is refused here, rather than printed as a post
 * with no id or taken by a wait for a finished video. A record without its
 * id gets the one asked for.
 */
export async function readRecord<T extends { id: string; status: string }>(api: Requester, r: { path: string; id: string; what: string; o: RequestOptions }): Promise<T> {
  const body = await api.request<T | undefined>('GET', r.path, r.o);
  if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.status !== 'string') {
    const pathname = new URL(api.baseUrl + r.path).pathname;
    throw new ServiceError(`Unexpected response to GET ${pathname}: HTTP 200 without the ${r.what} status.`, {
      hint: 'Run the command again with --debug to see the answer; if it keeps happening, the service is answering outside its contract.',
      http: { status: 200, method: 'GET', path: pathname },
    });
  }
  if (typeof body.id !== 'string') body.id = r.id;
  return body;
}
