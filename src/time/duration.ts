import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The longest --timeout, --max-wait or VIDPUB_REQUEST_TIMEOUT (a year): longer
 * is a typo, not a plan. Timers of any length up to it work (setLongTimeout).
 */
export const MAX_DURATION_MS = 365 * UNIT_MS.d!;

/** parseDuration, held to MAX_DURATION_MS: a usage error naming the maximum beyond it. */
export function parseBoundedDuration(text: string, flag: string): number {
  const ms = parseDuration(text, flag);
  if (ms > MAX_DURATION_MS) throw new UsageError(`${flag} "${text}" is too long: the maximum is 365d`);
  return ms;
}

/**
 * Parses a duration as written everywhere in vidpub: `90s`, `5m`, `1h`, `2d`,
 * `500ms`, compounds like `1h30m`, or a bare number of seconds. Returns ms.
 */
export function parseDuration(text: string, flag = 'duration'): number {
  const s = String(text).trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (s === '' || matched !== s.length) {
    throw new UsageError(`invalid ${flag} "${text}": write it like 90s, 5m or 1h (a bare number is seconds)`);
  }
  return Math.round(total);
}

/** 65_000 -> "1m 5s"; 3_600_000 -> "1h". */
export function formatDuration(ms: number): string {
  const totalSec = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(totalSec / 3600);
  const m = Math.floor((totalSec % 3600) / 60);
  const sec = totalSec % 60;
  const parts: string[] = [];
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  if (sec || parts.length === 0) parts.push(`${sec}s`);
  return parts.join(' ');
}
