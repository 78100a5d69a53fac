/**
 * The PUT's content fingerprint hashed on a thread of its own (a
 * worker_threads Worker), so that SHA-256 (about as fast as the loopback PUT
 * itself) does not take the time of the thread that writes the bytes to the
 * socket (docs/performance.md, the same video).
 *
 * No byte is copied: the file's chunks are read into a pool of buffers on a
 * SharedArrayBuffer (FileChunks reads into `pool`), the hashing thread reads
 * them where they are, and a buffer is read into again only once both the
 * socket has written it and the thread has hashed it (add() returns a promise
 * while the thread is behind): memory stays at the pool's size, whatever the
 * file's. Each chunk is told by a counter in shared memory, not a message.
 *
 * A small file is hashed on this thread (InlineFingerprint): starting a thread
 * costs more than hashing a few MB. A thread that cannot start or fails costs
 * the upload nothing: the fingerprint is then unknown (digest() gives
 * undefined, `onFailure` says why once).
 */
import type { Worker, WorkerOptions } from 'node:worker_threads';
import { FINGERPRINT_HASH, InlineFingerprint, type RunningFingerprint } from './content-hash.js';
import { nodeWorkerThreads } from './lazy-builtins.js';

/** Starts the hashing thread (tests pass one that fails). */
export type StartHashWorker = (source: string, options: WorkerOptions) => Worker;

export interface FingerprintOptions {
  /** Chunks in the pool, and the bytes of each (FileChunks' POOL_SIZE and UPLOAD_CHUNK_BYTES). */
  slots: number;
  slotBytes: number;
  /** Files of at least this many bytes are hashed on a thread of their own (default WORKER_FROM_BYTES). */
  workerFromBytes?: number;
  startWorker?: StartHashWorker;
  /** The hashing thread failed: the fingerprint will be unknown (said once, for --debug). */
  onFailure?(reason: string): void;
}

/** Below this, hashing on this thread costs less than starting a thread (its time and memory: docs/performance.md). */
export const WORKER_FROM_BYTES = 32 * 1024 * 1024;

/**
 * The shared counters (Int32Array indexes): bumped on every change the thread must see, chunks told,
 * chunks hashed, the end (0 while running), the thread asleep, the chunks hashed this thread waits for
 * (0: none). Then each slot's length.
 */
const SIGNAL = 0;
const PUBLISHED = 1;
const HASHED = 2;
const STATE = 3;
const SLEEPING = 4;
const WANT = 5;
const LENGTHS = 6;
const DIGEST = 1;
const STOP = 2;

/**
 * The thread: hashes chunk after chunk as they are told, sleeps (Atomics.wait) when
 * none is, and posts the hex digest when asked (or nothing when told to stop). Each
 * wake-up is a system call on both sides: this thread is woken only once a few chunks
 * wait (or the end), and wakes the PUT's thread only when it waits for a chunk hashed.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { algorithm, pool, control, slots, slotBytes } = workerData;
const ctl = new Int32Array(control);
const bytes = new Uint8Array(pool);
const hash = createHash(algorithm);
for (let k = 0; ; ) {
  const signal = Atomics.load(ctl, ${SIGNAL});
  const published = Atomics.load(ctl, ${PUBLISHED});
  if (k < published) {
    for (; k < published; k++) {
      const at = (k % slots) * slotBytes;
      hash.update(bytes.subarray(at, at + Atomics.load(ctl, ${LENGTHS} + (k % slots))));
      Atomics.store(ctl, ${HASHED}, k + 1);
      const want = Atomics.load(ctl, ${WANT});
      if (want !== 0 && k + 1 >= want) Atomics.notify(ctl, ${HASHED});
    }
    continue;
  }
  const state = Atomics.load(ctl, ${STATE});
  if (state === ${STOP}) break;
  if (state === ${DIGEST}) {
    parentPort.postMessage(hash.digest('hex'));
    break;
  }
  Atomics.store(ctl, ${SLEEPING}, 1);
  Atomics.wait(ctl, ${SIGNAL}, signal);
  Atomics.store(ctl, ${SLEEPING}, 0);
}
`;

/** The fingerprint of a file of `size` bytes: on a thread of its own when it is large, else on this one. */
export function runningFingerprint(size: number, opts: FingerprintOptions): RunningFingerprint {
  if (size < (opts.workerFromBytes ?? WORKER_FROM_BYTES)) return new InlineFingerprint(size);
  return new WorkerFingerprint(size, opts);
}

type WaitAsync = (ta: Int32Array, index: number, value: number) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

class WorkerFingerprint implements RunningFingerprint {
  readonly pool: Buffer[];
  private readonly ctl: Int32Array;
  private readonly worker: Worker | undefined;
  private readonly shared: SharedArrayBuffer;
  private count = 0;
  private published = 0;
  private failure: string | undefined;
  private closed = false;
  /** The thread posted its digest: its end that follows is no failure. */
  private digested = false;
  /** Resolves when the thread failed or this was closed: nothing waits for it any more. */
  private readonly ended: Promise<void>;
  private end!: () => void;
  private digestGot: ((hex: string | undefined) => void) | undefined;

  constructor(
    private readonly size: number,
    private readonly opts: FingerprintOptions,
  ) {
    this.ended = new Promise<void>((r) => (this.end = r));
    this.shared = new SharedArrayBuffer(opts.slots * opts.slotBytes);
    this.pool = Array.from({ length: opts.slots }, (_, i) => Buffer.from(this.shared, i * opts.slotBytes, opts.slotBytes));
    const control = new SharedArrayBuffer((LENGTHS + opts.slots) * 4);
    this.ctl = new Int32Array(control);
    const options: WorkerOptions = {
      eval: true,
      workerData: { algorithm: FINGERPRINT_HASH, pool: this.shared, control, slots: opts.slots, slotBytes: opts.slotBytes },
      execArgv: [],
      stdout: true,
      stderr: true,
    };
    try {
      const worker = (opts.startWorker ?? ((s, o) => new (nodeWorkerThreads().Worker)(s, o)))(WORKER_SOURCE, options);
      worker.on('message', (hex: unknown) => {
        this.digested = true;
        this.digestGot?.(typeof hex === 'string' ? hex : undefined);
      });
      worker.on('error', (err) => this.fail(`the hashing thread failed: ${err.message}`));
      worker.on('exit', (code) => this.fail(`the hashing thread ended (exit code ${code})`));
      this.worker = worker;
    } catch (err) {
      this.fail(`the hashing thread could not start: ${(err as Error).message}`);
    }
  }

  add(chunk: Buffer): void | Promise<void> {
    if (this.failure !== undefined || this.closed) return;
    const k = this.published;
    const slot = k % this.opts.slots;
    if (chunk.buffer !== this.shared || chunk.byteOffset !== slot * this.opts.slotBytes) {
      this.fail('a chunk was not read into its buffer of the pool');
      return;
    }
    Atomics.store(this.ctl, LENGTHS + slot, chunk.length);
    this.count += chunk.length;
    this.published = k + 1;
    Atomics.store(this.ctl, PUBLISHED, k + 1);
    Atomics.add(this.ctl, SIGNAL, 1);
    // A thread asleep is woken once a quarter of the pool waits for it (and whenever add() waits for it, below).
    if (k + 1 - Atomics.load(this.ctl, HASHED) >= this.opts.slots / 4 && Atomics.load(this.ctl, SLEEPING)) Atomics.notify(this.ctl, SIGNAL);
    // The next chunk is read into the buffer of chunk k + 1 - slots: it must have been hashed.
    return this.hashedUpTo(k + 2 - this.opts.slots);
  }

  async digest(): Promise<string | undefined> {
    if (this.failure !== undefined || this.closed || this.count !== this.size) return undefined;
    const got = new Promise<string | undefined>((r) => (this.digestGot = r));
    this.tell(STATE, DIGEST);
    return Promise.race([got, this.ended.then(() => undefined)]);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.tell(STATE, STOP);
    this.end();
    // The thread holds nothing vidpub needs once its digest is in (or not wanted).
    void this.worker?.terminate().catch(() => undefined);
  }

  private tell(index: number, value: number): void {
    Atomics.store(this.ctl, index, value);
    Atomics.add(this.ctl, SIGNAL, 1);
    Atomics.notify(this.ctl, SIGNAL);
  }

  private hashedUpTo(n: number): void | Promise<void> {
    if (n <= 0 || Atomics.load(this.ctl, HASHED) >= n) return;
    return this.waitHashed(n);
  }

  private async waitHashed(n: number): Promise<void> {
    Atomics.store(this.ctl, WANT, n);
    Atomics.notify(this.ctl, SIGNAL);
    try {
      for (;;) {
        const seen = Atomics.load(this.ctl, HASHED);
        if (seen >= n || this.failure !== undefined || this.closed) return;
        const w = waitAsync(this.ctl, HASHED, seen);
        if (w.async) await Promise.race([w.value, this.ended]);
      }
    } finally {
      Atomics.store(this.ctl, WANT, 0);
    }
  }

  private fail(reason: string): void {
    if (this.failure !== undefined || this.closed || this.digested) return;
    this.failure = reason;
    this.end();
    this.opts.onFailure?.(reason);
    void this.worker?.terminate().catch(() => undefined);
  }
}
