/**
 * "Publish at" in the web app takes the words `--at` takes ("in 2h", "tomorrow 9:00", 9:00, an
 * ISO time), read by the one time grammar (src/time/parse-when.ts) on the emulator's clock and in
 * the zone of the machine it runs on. What the grammar cannot read is the service's 400
 * invalid_publish_at, said on the page; a time that has passed goes to the service as written, and
 * is refused there in its words.
 */
import { UsageError } from '../../errors.js';
import { parseWhen } from '../../time/parse-when.js';
import type { Core } from '../core.js';
import { ServiceError } from '../service-errors.js';

export function webPublishAt(core: Core, text: string | null): string | undefined {
  const typed = text?.trim();
  if (!typed) return undefined;
  // "now" and an ISO time with its offset are what the service takes: sent as written.
  if (/^now$/i.test(typed) || /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})$/i.test(typed)) return typed;
  try {
    return parseWhen(typed, { now: core.clock.now(), zone: Intl.DateTimeFormat().resolvedOptions().timeZone, allowPast: true }).publishAt;
  } catch (err) {
    if (err instanceof UsageError) throw new ServiceError(400, 'invalid_publish_at', err.message);
    throw err;
  }
}
