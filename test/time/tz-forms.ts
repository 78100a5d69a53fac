/**
 * TZ forms the C library reads, each with its offset (seconds east of UTC) at
 * given instants: mid-January and mid-July 2027, and either side of every
 * change in 2027 and 2028 (a leap year). Generated with glibc (Python's
 * time.localtime under each TZ, scanning both years); tz-forms.test.ts checks
 * vidpub against it and glibc (`date -f`) against it again on the machine
 * that runs the tests.
 */
export interface TzForm {
  tz: string;
  what: string;
  /**
   * The TZ glibc is asked, when not `tz`: where vidpub departs from glibc (without a rule,
   * glibc takes its posixrules file's changes and moves them by the difference of the
   * offsets: CET-1CEST would change at 13:00 UTC), the string vidpub reads it as.
   */
  glibcTz?: string;
  /** Epoch seconds: offset east of UTC in seconds. */
  at: Record<number, number>;
}

export const TZ_FORMS: TzForm[] = [
  { tz: "JST-9", what: "a name and an offset, no summer time", at: { 1800014400: 32400, 1815652800: 32400 } },
  { tz: "UTC0", what: "UTC written as POSIX", at: { 1800014400: 0, 1815652800: 0 } },
  { tz: "GMT+3", what: "a positive offset is west of UTC", at: { 1800014400: -10800, 1815652800: -10800 } },
  { tz: "<+14>-14", what: "a quoted name, the largest offset in use", at: { 1800014400: 50400, 1815652800: 50400 } },
  { tz: "<+0530>-5:30", what: "a quoted name, hh:mm", at: { 1800014400: 19800, 1815652800: 19800 } },
  { tz: "<-0330>+3:30", what: "a quoted name, an explicit + (west)", at: { 1800014400: -12600, 1815652800: -12600 } },
  { tz: "<+013045>-1:30:45", what: "hh:mm:ss", at: { 1800014400: 5445, 1815652800: 5445 } },
  { tz: "CET-1CEST,M3.5.0,M10.5.0/3", what: "Mm.w.d rules, the end at 03:00", at: { 1800014400: 3600, 1806195599: 3600, 1806195600: 7200, 1815652800: 7200, 1824944399: 7200, 1824944400: 3600, 1837645199: 3600, 1837645200: 7200, 1856393999: 7200, 1856394000: 3600 } },
  { tz: "EST5EDT,M3.2.0,M11.1.0", what: "the US rules written out", at: { 1800014400: -18000, 1805007599: -18000, 1805007600: -14400, 1815652800: -14400, 1825567199: -14400, 1825567200: -18000, 1836457199: -18000, 1836457200: -14400, 1857016799: -14400, 1857016800: -18000 } },
  { tz: "CET-1CEST", what: "summer time without a rule: the US rules at 02:00", glibcTz: "CET-1CEST,M3.2.0,M11.1.0", at: { 1800014400: 3600, 1804985999: 3600, 1804986000: 7200, 1815652800: 7200, 1825545599: 7200, 1825545600: 3600, 1836435599: 3600, 1836435600: 7200, 1856995199: 7200, 1856995200: 3600 } },
  { tz: "AAA+3BBB+1,M3.2.0,M11.1.0", what: "an explicit summer offset", at: { 1800014400: -10800, 1805000399: -10800, 1805000400: -3600, 1815652800: -3600, 1825556399: -3600, 1825556400: -10800, 1836449999: -10800, 1836450000: -3600, 1857005999: -3600, 1857006000: -10800 } },
  { tz: "NZST-12NZDT,M9.5.0,M4.1.0/3", what: "southern hemisphere: summer spans the new year", at: { 1800014400: 46800, 1806760799: 46800, 1806760800: 43200, 1815652800: 43200, 1821880799: 43200, 1821880800: 46800, 1838210399: 46800, 1838210400: 43200, 1853330399: 43200, 1853330400: 46800 } },
  { tz: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", what: "negative and zero transition times", at: { 1800014400: -7200, 1806195599: -7200, 1806195600: -3600, 1815652800: -3600, 1824944399: -3600, 1824944400: -7200, 1837645199: -7200, 1837645200: -3600, 1856393999: -3600, 1856394000: -7200 } },
  { tz: "IST-1GMT0,M10.5.0,M3.5.0/1", what: "negative summer time (Ireland): the \"summer\" offset is the winter one", at: { 1800014400: 0, 1806195599: 0, 1806195600: 3600, 1815652800: 3600, 1824944399: 3600, 1824944400: 0, 1837645199: 0, 1837645200: 3600, 1856393999: 3600, 1856394000: 0 } },
  { tz: "XYZ0ABC,J60/2,J300/2", what: "Jn days (February 29 never counted)", at: { 1800014400: 0, 1803866399: 0, 1803866400: 3600, 1815652800: 3600, 1824598799: 3600, 1824598800: 0, 1835488799: 0, 1835488800: 3600, 1856221199: 3600, 1856221200: 0 } },
  { tz: "XYZ0ABC,60/2,300/2", what: "n days (zero-based, February 29 counted)", at: { 1800014400: 0, 1803952799: 0, 1803952800: 3600, 1815652800: 3600, 1824685199: 3600, 1824685200: 0, 1835488799: 0, 1835488800: 3600, 1856221199: 3600, 1856221200: 0 } },
  { tz: "EST5EDT4,0/0,J365/25", what: "summer time all year (RFC 8536)", at: { 1798761599: -14400, 1798761600: -18000, 1798779599: -18000, 1798779600: -14400, 1800014400: -14400, 1815652800: -14400, 1830297599: -14400, 1830297600: -18000, 1830315599: -18000, 1830315600: -14400 } },
  { tz: "WART4WARST,J1/0,J365/25", what: "summer time all year, written with J1", at: { 1798761599: -10800, 1798761600: -14400, 1798775999: -14400, 1798776000: -10800, 1800014400: -10800, 1815652800: -10800, 1830297599: -10800, 1830297600: -14400, 1830311999: -14400, 1830312000: -10800 } },
  { tz: ":Asia/Tokyo", what: "an IANA name after a colon", at: { 1800014400: 32400, 1815652800: 32400 } },
  { tz: "Europe/Paris", what: "an IANA name", at: { 1800014400: 3600, 1806195599: 3600, 1806195600: 7200, 1815652800: 7200, 1824944399: 7200, 1824944400: 3600, 1837645199: 3600, 1837645200: 7200, 1856393999: 7200, 1856394000: 3600 } },
  { tz: "/usr/share/zoneinfo/America/New_York", what: "a path into the zoneinfo directory", at: { 1800014400: -18000, 1805007599: -18000, 1805007600: -14400, 1815652800: -14400, 1825567199: -14400, 1825567200: -18000, 1836457199: -18000, 1836457200: -14400, 1857016799: -14400, 1857016800: -18000 } },
  { tz: ":/usr/share/zoneinfo/posix/Australia/Sydney", what: "a path after a colon, posix/", at: { 1800014400: 39600, 1806767999: 39600, 1806768000: 36000, 1815652800: 36000, 1822492799: 36000, 1822492800: 39600, 1838217599: 39600, 1838217600: 36000, 1853942399: 36000, 1853942400: 39600 } },
  { tz: "EST5EDT", what: "a name glibc finds as a file (America/New_York)", at: { 1800014400: -18000, 1805007599: -18000, 1805007600: -14400, 1815652800: -14400, 1825567199: -14400, 1825567200: -18000, 1836457199: -18000, 1836457200: -14400, 1857016799: -14400, 1857016800: -18000 } },
];
