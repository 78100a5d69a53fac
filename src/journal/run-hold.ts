/**
 * Whether the run that left a note is still running, told by something a dead
 * process cannot hold: while its note is open, the run's process listens on a
 * Unix-domain socket named after the note, and a rerun asks by connecting.
 *
 * The kernel closes a process's descriptors when it exits, before anyone reaps
 * it: a run killed by any signal, still a zombie (under `timeout -s KILL`, in a
 * container whose PID 1 never reaps), or whose process id another process has
 * taken since (a restart, a busy machine) holds nothing, and a connect is
 * refused. `kill(pid, 0)` answered "alive" in all three. Node has no flock();
 * a listening socket is the lock it has, and it is closed on exec too (libuv
 * opens every descriptor close-on-exec), so a child never holds it.
 *
 * Where: `runs/.<hash>.sock` beside the notes, so runs in containers that
 * share the state directory see each other; when that path is longer than a
 * socket address takes (~107 bytes) or the file system takes no sockets, the
 * Linux abstract namespace (`\0vidpub-run-<hash>`: no file, freed with the
 * process), a named pipe on Windows, elsewhere the temporary directory. A
 * rerun tries each place.
 *
 * Every doubt reads "not held": the rerun then continues the run under the
 * same Idempotency-Key, and the service makes at most one post of a key. Only
 * a wrong "held" could make a second post, and only a live listener says it.
 */
import { createServer, connect, type Server } from 'node:net';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { unlinkSync } from 'node:fs';
import { nodeCrypto } from '../util/lazy-builtins.js';

/** What sun_path takes on Linux (108 bytes with the terminating NUL); macOS takes 104. */
const SUN_PATH_MAX = platform() === 'linux' ? 107 : 103;
/** A connect to a Unix socket is answered at once; this only bounds a file system that hangs. */
const ASK_MS = 2_000;

/** The places, in order, where the run of the note `name` in `runsDir` holds its socket. */
export function holdAddresses(runsDir: string, name: string): string[] {
  const hash = nodeCrypto().createHash('sha256').update(`${runsDir}\0${name}`).digest('hex').slice(0, 24);
  const beside = join(runsDir, `.${hash}.sock`);
  const places: string[] = [];
  if (Buffer.byteLength(beside) <= SUN_PATH_MAX) places.push(beside);
  const os = platform();
  places.push(os === 'linux' ? `\0vidpub-run-${hash}` : os === 'win32' ? `\\\\.\\pipe\\vidpub-run-${hash}` : join(tmpdir(), `vidpub-run-${hash}.sock`));
  return places;
}

/** A socket this process listens on while its run is open. */
export interface Hold {
  /** Stops holding (the run ended). */
  release(): void;
}

function removeFile(address: string): void {
  if (address.startsWith('\0')) return;
  try {
    unlinkSync(address);
  } catch {
    // not there
  }
}

/**
 * Holds the first place of `addresses` that takes a listener. Synchronous as
 * far as it can be: the socket is bound and listening when listen() returns;
 * a place that refuses it (no sockets on that file system) is reported later,
 * and the next place is taken then. A socket file left by a killed run is
 * removed first: the run that opens the note is the one that writes under it.
 */
export function hold(addresses: readonly string[]): Hold {
  let server: Server | undefined;
  let released = false;
  const listenAt = (i: number): void => {
    const address = addresses[i];
    if (address === undefined || released) return;
    removeFile(address);
    const s = createServer((socket) => socket.destroy());
    s.on('error', () => {
      s.close();
      listenAt(i + 1);
    });
    s.listen(address);
    s.unref(); // never keeps the command alive
    server = s;
  };
  listenAt(0);
  return {
    release() {
      released = true;
      server?.close(); // a socket file of ours goes with it
    },
  };
}

/** Whether something listens at `address`: a refused or missing socket, or any doubt, is not held. */
function heldAt(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address);
    const done = (held: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(held);
    };
    const timer = setTimeout(() => done(false), ASK_MS);
    timer.unref();
    socket.once('connect', () => done(true));
    // EAGAIN: a listener whose queue is full is a listener.
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'EAGAIN'));
  });
}

/** Whether a live process holds any of `addresses`. */
export async function isHeld(addresses: readonly string[]): Promise<boolean> {
  for (const address of addresses) if (await heldAt(address)) return true;
  return false;
}
