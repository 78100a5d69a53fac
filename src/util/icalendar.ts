/**
 * Events as an iCalendar file (RFC 5545) that a calendar app imports: one
 * VCALENDAR of VEVENTs, each with its UID (the caller's, stable across
 * exports so a second import updates rather than duplicates), times in UTC,
 * TEXT values escaped (backslash, semicolon, comma, line breaks; other
 * control characters dropped) and lines folded at 75 octets without cutting
 * a UTF-8 character, CRLF between lines.
 */

export interface CalendarEvent {
  uid: string;
  startMs: number;
  durationMin: number;
  summary: string;
  description?: string;
  url?: string;
}

/** 20270325T080000Z */
function utcStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** A TEXT value (RFC 5545 3.3.11). */
export function icsText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n');
}

/** A content line folded at 75 octets (RFC 5545 3.1): each further piece after CRLF and a space. */
export function foldLine(line: string): string {
  const pieces: string[] = [];
  let piece = '';
  let octets = 0;
  for (const ch of line) {
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    // The first line holds 75 octets; a continuation line 74 after its leading space.
    if (octets + n > (pieces.length === 0 ? 75 : 74)) {
      pieces.push(piece);
      piece = '';
      octets = 0;
    }
    piece += ch;
    octets += n;
  }
  pieces.push(piece);
  return pieces.join('\r\n ');
}

/** The calendar: `name` as its X-WR-CALNAME, `stampMs` as each event's DTSTAMP. */
export function icsCalendar(events: readonly CalendarEvent[], opts: { name: string; stampMs: number }): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//vidpub//schedule//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH', `X-WR-CALNAME:${icsText(opts.name)}`];
  const stamp = utcStamp(opts.stampMs);
  for (const e of events) {
    lines.push('BEGIN:VEVENT', `UID:${icsText(e.uid)}`, `DTSTAMP:${stamp}`, `DTSTART:${utcStamp(e.startMs)}`, `DURATION:PT${e.durationMin}M`, `SUMMARY:${icsText(e.summary)}`);
    if (e.description) lines.push(`DESCRIPTION:${icsText(e.description)}`);
    if (e.url) lines.push(`URL:${e.url.replace(/[\r\n]/g, '')}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}
