/**
 * How a moment is written for machines and the service: ISO 8601 with an
 * offset, to the second (2026-11-21T09:00:00+01:00), or in UTC with Z.
 */
import { offsetAt } from './zones.js';

const MINUTE = 60_000;

/** `n` in `w` digits at least: pad(9) is "09". */
export const pad = (n: number, w = 2): string => String(Math.abs(n)).padStart(w, '0');

/** An offset from UTC as ISO 8601 writes it: +01:00, -05:30, +00:00. */
export function formatOffset(offsetMs: number): string {
  if (offsetMs === 0) return '+00:00';
  const sign = offsetMs < 0 ? '-' : '+';
  const total = Math.round(Math.abs(offsetMs) / MINUTE);
  return `${sign}${pad(Math.floor(total / 60))}:${pad(total % 60)}`;
}

/** `ms` as ISO 8601 in a fixed offset, seconds precision: 2026-11-21T09:00:00+01:00. */
export function isoWithOffset(ms: number, offsetMs: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000 + offsetMs);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${formatOffset(offsetMs)}`
  );
}

/** `ms` in `zone` with that zone's offset at that moment. */
export function isoInZone(ms: number, zone: string): string {
  return isoWithOffset(ms, offsetAt(ms, zone));
}

/** `ms` in UTC, seconds precision: 2026-11-21T08:00:00Z. */
export function isoUtc(ms: number): string {
  return isoWithOffset(ms, 0).replace(/\+00:00$/, 'Z');
}
