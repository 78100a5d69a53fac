/**
 * The one place undici is loaded, lazily: only commands that talk to the
 * network pay for it. The upload code uses the same loader for the signed PUT.
 *
 * Start-up time is a feature (`vidpub me --json` is benchmarked), and
 * `import('undici')` costs ~90 ms of CPU: its index loads every dispatcher,
 * fetch, WebSocket, the cache stores and the mock agents. vidpub needs two
 * pieces — the Agent (connection pools) and `request` — which load in ~30 ms
 * from undici's own files. Those paths are undici internals (no "exports"
 * map forbids them, but they may move in a future major), so the lean load is
 * checked and, if anything is missing, the full package is loaded instead:
 * never faster at the cost of working.
 */
import type * as UndiciModule from 'undici';

/** The part of undici vidpub uses. */
export interface Undici {
  Agent: typeof UndiciModule.Agent;
  /** undici's top-level `request(url, opts)`; vidpub always passes `opts.dispatcher`. */
  request: typeof UndiciModule.request;
}

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  return (loading ??= loadLean().catch(loadFull));
}

async function loadFull(): Promise<Undici> {
  const u = await import('undici');
  return { Agent: u.Agent, request: u.request };
}

type DispatcherRequest = (this: UndiciModule.Dispatcher, opts: UndiciModule.Dispatcher.RequestOptions) => Promise<UndiciModule.Dispatcher.ResponseData>;

async function loadLean(): Promise<Undici> {
  // Variables keep bundlers and tsc from resolving undici's untyped internals.
  const agentPath = 'undici/lib/dispatcher/agent.js';
  const requestPath = 'undici/lib/api/api-request.js';
  const [agentMod, requestMod] = (await Promise.all([import(agentPath), import(requestPath)])) as [{ default?: unknown }, { default?: unknown }];
  const Agent = agentMod.default as typeof UndiciModule.Agent | undefined;
  const dispatch = requestMod.default as DispatcherRequest | undefined;
  if (typeof Agent !== 'function' || typeof dispatch !== 'function' || typeof Agent.prototype?.dispatch !== 'function') {
    throw new Error('undici internals moved');
  }
  let fallbackAgent: UndiciModule.Agent | undefined;
  // The same URL handling as undici's index.js makeDispatcher(), for absolute URLs.
  const request = ((url: string | URL, opts: UndiciModule.Dispatcher.RequestOptions & { dispatcher?: UndiciModule.Dispatcher } = {} as never) => {
    const u = new URL(url);
    const { dispatcher, ...rest } = opts as typeof opts & { dispatcher?: UndiciModule.Dispatcher };
    const target = dispatcher ?? (fallbackAgent ??= new Agent());
    return dispatch.call(target, {
      ...rest,
      origin: u.origin,
      path: u.search ? `${u.pathname}${u.search}` : u.pathname,
      method: rest.method || (rest.body ? 'PUT' : 'GET'),
    });
  }) as unknown as typeof UndiciModule.request;
  return { Agent, request };
}
