/**
 * Whether a run of `post` is still running, told by something a dead process
 * cannot hold, and seen by every process that shares the state directory:
 * while it runs, the run's process listens on a Unix-domain socket of its
 * own, a file in `runs/` beside the notes, and a rerun asks by connecting.
 *
 * The kernel closes a process's descriptors when it exits, before anyone reaps
 * it: a run killed by any signal, still a zombie (under `timeout -s KILL`, in a
 * container whose PID 1 never reaps), or whose process id another process has
 * taken since (a restart, a busy machine) holds nothing, and a connect is
 * refused. `kill(pid, 0)` answered "alive" in all three. A stopped run
 * (SIGSTOP, a frozen container) still holds it: the kernel answers a connect
 * for it. Node has no flock(); a listening socket is the lock it has, closed
 * on exec too (libuv opens every descriptor close-on-exec), so a child never
 * holds it.
 *
 * A socket on a path (never the Linux abstract namespace, which is scoped to
 * one network namespace: two containers sharing the state directory would
 * not see each other): `runs/.<what>.<key>.<nonce>.sock`. When that path is
 * longer than a socket address takes (~107 bytes), it is bound and reached
 * through `/proc/self/fd/<dir fd>/<name>`, which is short. Each process's name
 * is its own (a random nonce), and a socket is renamed to it only once it
 * listens, so a socket that refuses a connect is dead for good and is removed
 * at once: a stale file never blocks, and no live socket is ever removed by
 * another process. The key is in the name (a long
 * key as a hash), so a rerun learns which key a live run posts under.
 *
 * Whatever cannot be told reads "not held".
 */
import { createServer, connect, type Server } from 'node:net';
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { platform } from 'node:os';
import { join } from 'node:path';
import { nodeCrypto } from '../util/lazy-builtins.js';

/** What sun_path takes on Linux (108 bytes with the terminating NUL); macOS takes 104. */
const SUN_PATH_MAX = platform() === 'linux' ? 107 : 103;
/** A connect to a Unix socket is answered at once; this only bounds a file system that hangs. */
const ASK_MS = 2_000;
/** The longest key a socket's name carries as it is (longer ones are hashed). */
const KEY_IN_NAME = 40;

/** The part of a socket's name that says which run it is: `.<what>.<key>.` */
export function holdPrefix(what: string, key: string): string {
  const k = key.length <= KEY_IN_NAME ? key : `~${nodeCrypto().createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  return `.${what}.${k}.`;
}

/** A live run, as its socket's name tells it. */
export interface LiveHold {
  /** The note's `what` it runs. */
  what: string;
  /** Its key, when its name carries it (not a hashed long key). */
  key?: string;
  /** The socket's name. */
  name: string;
}

function parse(name: string): LiveHold | undefined {
  const m = /^\.([0-9a-f]{1,64})\.([A-Za-z0-9_~-]{1,40})\.[0-9a-f]{8,32}\.sock$/.exec(name);
  if (!m) return undefined;
  return { what: m[1]!, ...(m[2]!.startsWith('~') ? {} : { key: m[2]! }), name };
}

/**
 * A directory's socket paths short enough for sun_path: as they are, or
 * through /proc/self/fd/<fd>/ (Linux) while `use` runs; the descriptor is
 * closed when the promise it returns settles.
 */
async function inDir<T>(dir: string, use: (path: (name: string) => string) => Promise<T>): Promise<T> {
  let fd: number | undefined;
  const path = (name: string): string => {
    const full = join(dir, name);
    if (Buffer.byteLength(full) <= SUN_PATH_MAX || platform() !== 'linux') return full;
    fd ??= openSync(dir, 'r');
    return `/proc/self/fd/${fd}/${name}`;
  };
  try {
    return await use(path);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A socket this process listens on while its run is open. */
export interface Hold {
  readonly name: string;
  /** Stops holding (the run ended): the socket file goes with it. */
  release(): void;
}

/**
 * Listens on a new socket `<prefix><nonce>.sock` in `dir`; resolves once it
 * listens (visible to every process sharing the directory), or undefined
 * when it cannot (the file system takes no sockets, the directory cannot be
 * made): the run then runs unseen.
 */
export async function hold(dir: string, prefix: string): Promise<Hold | undefined> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  const nonce = nodeCrypto().randomBytes(6).toString('hex');
  const name = `${prefix}${nonce}.sock`;
  // Bound under a name no rerun looks at, then renamed: a socket a rerun sees is one that listens already (bound and
  // not yet listening, it would refuse a connect and be taken for dead).
  const bound = `.bind.${nonce}`;
  let fd: number | undefined;
  let address = join(dir, bound);
  if (Buffer.byteLength(address) > SUN_PATH_MAX && platform() === 'linux') {
    try {
      fd = openSync(dir, 'r');
    } catch {
      return undefined;
    }
    address = `/proc/self/fd/${fd}/${bound}`;
  }
  const server: Server | undefined = await new Promise((resolve) => {
    const s = createServer((socket) => socket.destroy());
    s.once('error', () => {
      s.close();
      resolve(undefined);
    });
    s.listen(address, () => resolve(s));
  });
  if (fd !== undefined) closeSync(fd);
  if (!server) return undefined;
  server.unref(); // never keeps the command alive
  try {
    renameSync(join(dir, bound), join(dir, name));
  } catch {
    server.close();
    return undefined;
  }
  let released = false;
  return {
    name,
    release() {
      if (released) return;
      released = true;
      // Closed, the socket's file is ours to remove (libuv would remove the name it was bound under, gone since).
      server.close();
      removeFile(join(dir, name));
    },
  };
}

type Answer = 'live' | 'dead' | 'doubt';

/** Whether something listens at `address`. */
function ask(address: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(address);
    const done = (a: Answer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(a);
    };
    const timer = setTimeout(() => done('doubt'), ASK_MS);
    timer.unref();
    socket.once('connect', () => done('live'));
    // EAGAIN: a listener whose queue is full (a stopped run asked many times) is a listener.
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'EAGAIN' ? 'live' : err.code === 'ECONNREFUSED' ? 'dead' : 'doubt'));
  });
}

/**
 * The live runs in `dir` whose sockets' names start with one of `prefixes`
 * (`.<what>.` for every run of it, `holdPrefix()` for one key), but for the
 * socket `except` (this process's own). A socket that refuses is dead for
 * good (no other process ever takes its name) and is removed.
 */
export async function liveHolds(dir: string, prefixes: readonly string[], except?: string): Promise<LiveHold[]> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n !== except && n.endsWith('.sock') && prefixes.some((p) => n.startsWith(p)));
  } catch {
    return [];
  }
  if (names.length === 0) return [];
  try {
    return await inDir(dir, async (path) => {
      const live: LiveHold[] = [];
      await Promise.all(
        names.map(async (n) => {
          const a = await ask(path(n));
          const run = parse(n);
          if (a === 'live' && run) live.push(run);
          if (a === 'dead') removeFile(join(dir, n));
        }),
      );
      return live.sort((a, b) => (a.name < b.name ? -1 : 1));
    });
  } catch {
    return []; // the directory cannot be opened: nothing can be told
  }
}

function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
