/**
 * One browser for the whole test run (vitest.config.ts globalSetup): started lazily, by the
 * first test file that asks for it (test/support/browser.ts, useBrowser), shared by every
 * web app file in every worker, closed when the run ends. A launch of the browser costs more CPU
 * than most of a file's tests; the files need one browser each only for their own cookies, which
 * a context per test gives them on a shared browser as well (test/support/browser.ts).
 *
 * The run's main process keeps a small HTTP server on 127.0.0.1 whose address the workers get
 * through vitest's provide/inject; a GET of it launches the browser server once (playwright-core's
 * launchServer, loaded only then) and answers its WebSocket endpoint, which the files connect to.
 * A run without a web app file starts no browser and never loads playwright-core.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';

/**
 * Debian's headless build of chromium (package chromium-headless-shell): the same engine as its
 * chromium (Blink, V8, the network stack: what the tests prove, the CSP, layout at 390 px, axe's
 * rules, the origin checks, are all done there) without the desktop browser around it, whose
 * windows cost a process for their own UI with each context (measured: a context and its first
 * page 0.5 s of CPU here against 1.2 s, a launch 2.5 s against 4 s). Playwright itself drives
 * this build for headless runs. Never a downloaded browser.
 */
export const CHROMIUM = '/usr/bin/chromium-headless-shell';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL a file GETs for the shared browser's WebSocket endpoint (test/support/browser.ts). */
    browserBroker: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let launched: Promise<BrowserServer> | undefined;
  const launch = async (): Promise<BrowserServer> => {
    const { chromium } = await import('playwright-core');
    return chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, host: '127.0.0.1', timeout: 60_000 });
  };
  const broker = createServer((req, res) => {
    launched ??= launch();
    launched.then(
      (server) => res.writeHead(200, { 'content-type': 'text/plain' }).end(server.wsEndpoint()),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`the shared browser did not start: ${e instanceof Error ? e.message : String(e)}`),
    );
    req.resume();
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('browserBroker', `http://127.0.0.1:${(broker.address() as AddressInfo).port}/`);
  return async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    // Whatever a file left open goes with it.
    if (launched) await (await launched.catch(() => undefined))?.close();
  };
}
