/**
 * Times for tests that run against the real clock (the emulator keeps real
 * time): dates that stay ahead whatever the day the suite runs, and patterns
 * for what vidpub prints about them whatever the hour or the season.
 */

/**
 * How vidpub says how far a time is ahead (relativePhrase): "in 98 d",
 * "in 2 d 4 h", "in 16 h", "in 11 h 46 m", "in 3 m 20 s", "in 5 s". A zero
 * second part is left out, so the hour of the run decides which form appears.
 */
export const IN_TIME = String.raw`in (?:\d+ d(?: \d+ h)?|\d+ h(?: \d+ m)?|\d+ m(?: \d+ s)?|\d+ s)`;

/** Central European time, winter or summer: the zone's name as vidpub shows it. */
export const CE_ZONE = 'CES?T';

/** Midnight UTC (the daily allowance's reset) on a Central European clock: 01:00 CET in winter, 02:00 CEST in summer. */
export const CE_MIDNIGHT_UTC = '(?:01:00 CET|02:00 CEST)';

/** A Central European UTC offset, winter or summer. */
export const CE_OFFSET = String.raw`\+0[12]:00`;

const DAY = 86_400_000;

/**
 * The first day at least `minDays` ahead whose month (1-12) is one of
 * `months`, as YYYY-MM-DD. Winter months ([12, 1, 2]) keep Europe on standard
 * time, summer months ([6, 7, 8]) on summer time; either way the day is within
 * the service's 365 days of scheduling.
 */
export function dayAhead(months: number[], minDays = 30, now = Date.now()): string {
  for (let t = now + minDays * DAY; ; t += DAY) {
    const d = new Date(t);
    if (months.includes(d.getUTCMonth() + 1)) return d.toISOString().slice(0, 10);
  }
}

/** The next last Sunday of March (when Europe skips 02:00 to 03:00), as YYYY-MM-DD. */
export function springForwardAhead(now = Date.now()): string {
  for (let year = new Date(now).getUTCFullYear(); ; year++) {
    const lastOfMarch = new Date(Date.UTC(year, 2, 31));
    const day = Date.UTC(year, 2, 31 - lastOfMarch.getUTCDay());
    if (day > now) return new Date(day).toISOString().slice(0, 10);
  }
}
