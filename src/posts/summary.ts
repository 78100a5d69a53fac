/**
 * The summary a person sees before anything is sent: the video, the caption,
 * each destination with its options (defaults marked), and when it goes out
 * (with its offset and in UTC).
 */
import type { Me } from '../contract/wire-types.js';
import { sanitize } from '../errors.js';
import type { Colors } from '../ui/color.js';
import { formatDuration } from '../time/duration.js';
import type { DestinationPlan } from './options.js';
import { destinationLabel } from './view.js';
import { describeRelative, describeWall, relativePhrase } from '../time/describe.js';
import type { ResolvedWhen } from '../time/parse-when.js';
import { isValidTimeZone } from '../time/zones.js';
import { formatSize } from '../util/bytes.js';

export interface SummaryInput {
  /** What is posted: a file path, a link, or "media med_123". */
  video: string;
  sizeBytes?: number;
  durationSec?: number;
  caption: string;
  plans: DestinationPlan[];
  /** Destinations with a caption of their own: one post per caption, each destination's shown under it. */
  captionOf?: (p: DestinationPlan) => string;
  /** null: a draft. */
  when: ResolvedWhen | null;
  /** The current time: the day word (today, tomorrow, Mon) and "in 2 h" beside the time are relative to it. */
  now: number;
  /** The first line (default "About to post"). */
  heading?: string;
  /** What it spends of the daily API post allowance. */
  allowance?: string;
}

/**
 * What one more API post spends of the daily allowance, as publish and retry
 * show it: "1 API post of 29 left today (of 30; resets tomorrow 01:00 CET, in 1 h 25 m (…Z))".
 */
export function dailySpendText(daily: Partial<Me['limits']['api_posts_per_day']> | undefined, zone: string, now: number): string {
  if (!daily || typeof daily.remaining !== 'number') return "1 API post of today's allowance";
  const reset = Date.parse(String(daily.reset_at));
  return `1 API post of ${daily.remaining} left today (of ${daily.limit ?? '?'}${Number.isNaN(reset) ? '' : `; resets ${describeRelative(reset, zone, now)}`})`;
}

/**
 * When it goes out, as a person reads it: "now, today 21:14 CET (2026-11-22T20:14:00Z)" or
 * "tomorrow 09:00 CET, in 11 h 46 m (2026-11-23T08:00:00Z)". The day word is relative to `now`
 * (the clock's, never the moment's own: that made every day "today").
 */
export function whenLine(when: ResolvedWhen | null, now: number): string {
  if (!when) return 'saved as a draft, not published';
  // A time written with an explicit offset keeps it; a zone name gives the day and the zone's name.
  const wall = isValidTimeZone(when.zone) ? describeWall(when.ms, when.zone, now, when.now ? 'always' : 'when-set') : when.local;
  if (when.now) return `now, ${wall} (${when.utc})`;
  return `${wall}, ${relativePhrase(when.ms, now)} (${when.utc})`;
}

const CAPTION_PREVIEW = 200;

export function summaryLines(s: SummaryInput, c: Colors): string[] {
  const label = (k: string) => c.dim(`${k}:`.padEnd(9));
  const facts = [s.sizeBytes !== undefined ? formatSize(s.sizeBytes) : '', s.durationSec !== undefined ? formatDuration(s.durationSec * 1000) : '']
    .filter(Boolean)
    .join(', ');
  const preview = (text: string) => {
    const caption = sanitize(text);
    return caption === '' ? c.dim('(empty)') : caption.length > CAPTION_PREVIEW ? caption.slice(0, CAPTION_PREVIEW - 1) + '…' : caption;
  };
  const lines = [
    c.bold(s.heading ?? 'About to post'),
    `${label('Video')}${sanitize(s.video)}${facts ? ` (${facts})` : ''}`,
    ...(s.captionOf ? [] : [`${label('Caption')}${preview(s.caption)}`]),
    `${label('When')}${whenLine(s.when, s.now)}`,
  ];
  if (s.when?.note) lines.push(`${' '.repeat(9)}${c.yellow(sanitize(s.when.note))}`);
  if (s.allowance) lines.push(`${label('Spends')}${s.allowance}`);
  lines.push(`${label('To')}`.trimEnd());
  for (const p of s.plans) {
    const d = p.destination;
    const name = sanitize(destinationLabel(d));
    lines.push(`  ${c.bold(name)}${d.display_name ? c.dim(` · ${sanitize(d.display_name)}`) : ''}`);
    if (s.captionOf) lines.push(`    caption: ${preview(s.captionOf(p))}`);
    for (const v of p.values) {
      const mark = v.source === 'default' ? c.dim(' (default)') : '';
      lines.push(`    ${sanitize(v.key)}: ${sanitize(String(v.value))}${mark}`);
    }
  }
  return lines;
}
