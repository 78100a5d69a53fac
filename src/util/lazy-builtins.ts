/**
 * Node built-in modules on first use, for the ones a command may not need at
 * all: an import at the top of a module loads them with the CLI bundle, and
 * every command pays for them whether it uses them or not (counted for
 * `vidpub me`, which needs none of these; docs/performance.md;
 * test/tools/module-load.test.ts checks `me` loads none of them):
 * - node:crypto: key hashes, Idempotency-Keys (the client, the
 *   config store, the key cache, the journal);
 * - node:child_process, which loads node:dgram and the socket list with it:
 *   only the keychain helper and the browser opener start a process;
 * - node:tty: only a file descriptor that is a character device can be a
 *   terminal (src/cli/run/process-context.ts asks fstat first);
 * - node:module and node:sea, for the keychain helper's path: importing
 *   node:module loads Node 20's ES module loader and its source-map support;
 * - node:worker_threads: only a large upload's fingerprint hashes on a thread
 *   of its own (util/running-fingerprint.ts).
 *
 * Through process.getBuiltinModule, not createRequire, for that last reason.
 */
import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type { createRequire } from 'node:module';
import type * as Sea from 'node:sea';
import type * as Tty from 'node:tty';
import type * as WorkerThreads from 'node:worker_threads';

let crypto: typeof Crypto | undefined;
let childProcess: typeof ChildProcess | undefined;
let nodeModuleApi: { createRequire: typeof createRequire } | undefined;
let sea: typeof Sea | undefined;
let tty: typeof Tty | undefined;
let workerThreads: typeof WorkerThreads | undefined;

/* eslint-disable no-restricted-globals -- Node's built-in module loader, not process state */
export const nodeCrypto = (): typeof Crypto => (crypto ??= process.getBuiltinModule('node:crypto'));
export const nodeChildProcess = (): typeof ChildProcess => (childProcess ??= process.getBuiltinModule('node:child_process'));
export const nodeModule = (): { createRequire: typeof createRequire } => (nodeModuleApi ??= process.getBuiltinModule('node:module'));
export const nodeSea = (): typeof Sea => (sea ??= process.getBuiltinModule('node:sea'));
export const nodeTty = (): typeof Tty => (tty ??= process.getBuiltinModule('node:tty'));
export const nodeWorkerThreads = (): typeof WorkerThreads => (workerThreads ??= process.getBuiltinModule('node:worker_threads'));
/* eslint-enable no-restricted-globals */
