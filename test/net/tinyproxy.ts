/**
 * A real proxy for the network tests: tinyproxy (Debian's package, installed
 * by .ci/run), started on a free port with a generated config, its log in a
 * file the tests read: the CONNECT tunnels (https) and the requests it
 * forwarded in absolute form (plain http). Under CI a missing tinyproxy is a
 * failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { runs } from '../support/tools.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';


export interface Tinyproxy {
  /** http://127.0.0.1:PORT (no credentials). */
  url: string;
  port: number;
  /** The proxy's own log so far. */
  log(): string;
  /** The CONNECT requests in the log ("127.0.0.1:PORT"), in order. */
  connects(): string[];
  /** The requests forwarded in absolute form (plain http), as "METHOD URL", in order. */
  forwarded(): string[];
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/** The requests tinyproxy logged, as "METHOD TARGET". */
const requests = (log: string) => [...log.matchAll(/Request \(file descriptor \d+\): (\S+ \S+)/g)].map((m) => m[1]!);

/** Starts tinyproxy allowing CONNECT to `connectPorts`; `auth` turns on BasicAuth. */
export async function startTinyproxy(o: { connectPorts: number[]; auth?: { user: string; password: string } }): Promise<Tinyproxy> {
  if (!runs('tinyproxy', ['-v'])) throw new Error('tinyproxy is not installed (apt-get install tinyproxy; .ci/run installs it)');
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-tinyproxy-'));
  const port = await freePort();
  const logFile = join(dir, 'tinyproxy.log');
  const conf = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 30',
    `LogFile "${logFile}"`,
    'LogLevel Connect',
    'MaxClients 20',
    'Allow 127.0.0.1',
    ...o.connectPorts.map((p) => `ConnectPort ${p}`),
    ...(o.auth ? [`BasicAuth ${o.auth.user} ${o.auth.password}`] : []),
  ].join('\n');
  writeFileSync(join(dir, 'tinyproxy.conf'), conf + '\n');
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  // Until it accepts (a loaded machine may take seconds to start it); not accepting after a minute fails here.
  for (const end = Date.now() + 60_000; !(await accepting(port)); ) {
    if (exited) throw new Error(`tinyproxy exited at start; config:\n${conf}`);
    if (Date.now() > end) throw new Error(`tinyproxy did not accept connections on port ${port} within 60 s; config:\n${conf}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    connects: () => requests(log()).filter((r) => r.startsWith('CONNECT ')).map((r) => r.slice('CONNECT '.length)),
    forwarded: () => requests(log()).filter((r) => !r.startsWith('CONNECT ')),
    stop: async () => {
      if (!exited) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
