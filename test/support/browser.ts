/**
 * A real browser for the web app's tests: Debian's headless chromium (chromium-headless-shell),
 * driven by playwright-core with that executable (no browser is ever downloaded). One browser for
 * the whole run (test/support/browser-server.ts starts it when the first file asks), each file
 * connected to it (`useBrowser`), a fresh context (cookies) per test. Under CI a missing browser
 * fails the file (tools.ts), elsewhere it skips.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { POLL_MS } from '../../src/emulator/webapp/html.js';
import { CHROMIUM } from './browser-server.js';
import { ROOT } from './build.js';

export { CHROMIUM };

/** Where the screenshots docs/emulator.md shows are kept. */
export const SCREENSHOTS = join(ROOT, 'docs', 'images');

/** A PNG's width and height, from its IHDR chunk (throws on anything that is not a PNG). */
export function pngSize(png: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (png.length < 24 || !png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * A screenshot the manual shows (docs/images/<name>), taken by a test. It is written over the
 * committed one only when asked (VIDPUB_UPDATE_SCREENSHOTS=1), so that a test run leaves the tree
 * clean; otherwise the committed one must be there and be of the same size as the page now (a
 * full-page shot: the same width; its height follows the text and the fonts of the machine).
 */
export function keepScreenshot(name: string, png: Buffer, fullPage: boolean): { taken: { width: number; height: number }; kept: { width: number; height: number } } {
  const path = join(SCREENSHOTS, name);
  if (process.env.VIDPUB_UPDATE_SCREENSHOTS === '1') writeFileSync(path, png);
  const taken = pngSize(png);
  const kept = pngSize(readFileSync(path));
  return { taken, kept: fullPage ? { ...kept, height: taken.height } : kept };
}

export interface BrowserHandle {
  browser(): Browser;
  /** A new context (its own cookies) and page, closed after the test. */
  page(opts?: { width?: number; height?: number }): Promise<{ context: BrowserContext; page: Page }>;
}

/** The shared browser's WebSocket endpoint, from the run's broker (browser-server.ts), which starts it once. */
async function sharedEndpoint(): Promise<string> {
  const broker = inject('browserBroker');
  if (!broker) throw new Error('no shared browser in this run: vitest.config.ts must list test/support/browser-server.ts in globalSetup');
  const res = await fetch(broker);
  const text = await res.text();
  if (!res.ok) throw new Error(text);
  return text;
}

export function useBrowser(): BrowserHandle {
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await chromium.connect(await sharedEndpoint(), { timeout: 60_000 });
  }, 90_000);
  // A page left open goes on working (the review page polls while a post is in progress), in a browser the other files share.
  afterEach(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    contexts = [];
  });
  afterAll(async () => {
    // Of a connected browser, close() only disconnects this file (closing what it opened); the run closes the browser.
    await browser?.close();
  });
  return {
    browser: () => {
      if (!browser) throw new Error('the browser is not started yet: use it inside tests and hooks');
      return browser;
    },
    async page(opts = {}) {
      if (!browser) throw new Error('the browser is not started yet');
      const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 } });
      context.setDefaultTimeout(30_000);
      contexts.push(context);
      return { context, page: await context.newPage() };
    },
  };
}

/**
 * A page whose timers (the refresh the pages make every POLL_MS while a post is in progress) run
 * when the test says, not on the wall: `page.clock.install()` before the page loads, then this
 * once the emulator has moved on. It runs the page's next refresh at once (its fetch is real) and
 * waits until the page shows that nothing is in progress any more (data-poll="0"); a page still
 * in progress after a refresh gets the next one.
 */
export async function refreshedUntilSettled(page: Page): Promise<void> {
  const settled = page.locator('#main[data-poll="0"]');
  for (let refreshes = 1; refreshes <= 20; refreshes++) {
    await page.clock.runFor(POLL_MS);
    // The refresh's fetch is real: it lands while this waits, or during a later round (a refresh that lands after the
    // clock moved on schedules the next one from there, which the next round runs).
    if (await settled.waitFor({ timeout: 2000 }).then(() => true, () => false)) return;
  }
  throw new Error(`the page still shows something in progress after 20 refreshes: ${page.url()}`);
}

/*
 * The parts of the page's DOM the tests touch inside page.evaluate (the tests are type-checked
 * without the DOM library, which would let src/ use browser globals unnoticed).
 */
export interface VideoElement {
  readyState: number;
  muted: boolean;
  currentTime: number;
  duration: number;
  error: { code: number } | null;
  play(): Promise<void>;
  pause(): void;
  addEventListener(type: string, listener: (e?: unknown) => void, opts?: { once: boolean }): void;
}
export interface PageGlobals {
  document: { activeElement: { id: string; textContent: string | null } | null };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** axe-core's scan of the page (WCAG 2 A and AA rules): the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated by the browser's debugging protocol, which the page's Content-Security-Policy does not govern (an inline
  // script tag would be refused: the pages allow only their own script).
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[] }> } }).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
