/**
 * Byte counts for people, the one way, in decimal units as the service states
 * its limits (1 GB = 1,000,000,000 bytes): a size ("12.3 MB"), a count in MB
 * for a progress line ("12.3 of 820 MB"), and an exact count ("1,048,576 bytes").
 */

/** "1.23 GB" / "12.3 MB" / "820.0 kB" / "512 B". */
export function formatSize(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** The whole percent of `total` bytes that `sent` is, 0 to 100 (an empty file is all sent). */
export function percentSent(sent: number, total: number): number {
  return total > 0 ? Math.min(100, Math.floor((sent / total) * 100)) : 100;
}

/** The number of MB, three figures at most: "820", "12.3", "0.52". */
export function formatMB(bytes: number): string {
  const mb = bytes / 1e6;
  return mb >= 100 ? mb.toFixed(0) : mb >= 10 ? mb.toFixed(1) : mb.toFixed(2);
}

/** "1,048,576 bytes": every byte counted, with thousands separators. */
export function exactBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes`;
}
