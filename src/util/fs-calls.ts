/**
 * The few file calls that reading a video or a user's file makes (open,
 * stat, read at a position, close) as promises over node:fs's callback API.
 * node:fs/promises would serve, but loading it loads Node's readline
 * interface, directory and watcher modules with it, on every `vidpub upload`
 * and `vidpub post`, for these four calls (docs/performance.md;
 * test/tools/module-load.test.ts checks neither path loads it).
 */
import { close, fstat, open, read, realpath, stat, type Stats } from 'node:fs';

const settle =
  <T>(resolve: (value: T) => void, reject: (err: Error) => void) =>
  (err: Error | null, value: T) =>
    err ? reject(err) : resolve(value);

/** Opens `path` for reading (`flags`: 'r', or O_RDONLY with more, as util/user-file.ts asks); resolves to the file descriptor. */
export function openForReading(path: string, flags: string | number = 'r'): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, settle(resolve, reject)));
}

export function statPath(path: string): Promise<Stats> {
  return new Promise((resolve, reject) => stat(path, settle(resolve, reject)));
}

/** The path with every symbolic link, `.` and `..` resolved. */
export function realPath(path: string): Promise<string> {
  return new Promise((resolve, reject) => realpath(path, settle(resolve, reject)));
}

export function statFd(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, settle(resolve, reject)));
}

/** Reads up to `length` bytes at `position` into `buf` from its start; resolves to the count read. */
export function readAt(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, length, position, settle(resolve, reject)));
}

export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));
}
