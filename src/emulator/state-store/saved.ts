/**
 * What startEmulator does with a saved world: `state` (a state directory,
 * opened and locked, its world restored and kept there as it changes) and
 * `world` (an export to start from, `vidpub emulator --import FILE`). Both
 * refuse with a StateDirError: the sentence (with the path) and what to do.
 */
import type { FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import type { Core } from '../core.js';
import type { Fixture } from '../fixture.js';
import { validateFixture } from '../fixture-check.js';
import type { EmulatorService } from '../service.js';
import { Persisted, restore } from './persist.js';
import { resumeWork } from './resume.js';
import { openStateDir, refuseDamaged, SNAPSHOT_FILE, StateDirError, type OpenedDir } from './state-dir.js';
import { checkEnvelope, VIDEO_BYTES_LEFT_OUT, worldOf, WorldError, type WorldDoc } from './world.js';
import { join } from 'node:path';

export { StateDirError } from './state-dir.js';

export interface SavedOptions {
  /** The state directory (`--state DIR`). */
  state?: string;
  /** A parsed export to start from (`--import FILE`), and the file's name for messages. */
  world?: unknown;
  worldSource?: string;
}

/** What a start from a saved world reports. */
export interface SavedInfo {
  /** The state directory, when there is one. */
  dir?: string;
  /** Whether a world was restored (from the directory or an export). */
  restored: boolean;
  /** A last log line cut short (a kill while it was written: its request was never answered) was dropped. */
  droppedTorn: boolean;
}

export interface SavedWorld {
  /** The saved world's fixture (a reset goes back to it), or undefined to use the emulator's own. */
  fixture: Fixture | undefined;
  info: SavedInfo;
  /** Puts the world into a new core (before its server is built). */
  restore(core: Core): void;
  /** Starts keeping the world (with a state directory) and the work a stop cut short. */
  keep(core: Core, service: EmulatorService, server: Server): void;
  /** Gives the directory up. */
  close(): void;
}

function importError(source: string, err: WorldError): StateDirError {
  return err.newer
    ? new StateDirError(`--import ${source} ${err.message}.`, 'Import it with that newer vidpub.')
    : new StateDirError(`--import ${source} cannot be imported: ${err.message}.`, 'Give a file written by "vidpub emulator export FILE" (a fixture goes to --fixture).');
}

const damaged = (opened: OpenedDir, why: string): StateDirError => refuseDamaged(join(opened.dir, SNAPSHOT_FILE), opened.dir, why);

/** Opens what `opts` names (nothing: null). Throws StateDirError. */
export function openSavedWorld(opts: SavedOptions): SavedWorld | null {
  if (opts.state === undefined && opts.world === undefined) return null;
  const source = opts.worldSource ?? 'the file';
  let imported: WorldDoc | null = null;
  if (opts.world !== undefined) {
    try {
      imported = checkEnvelope(opts.world);
    } catch (err) {
      throw err instanceof WorldError ? importError(source, err) : err;
    }
  }
  const opened = opts.state === undefined ? null : openStateDir(opts.state);
  const fail = (err: unknown): never => {
    opened?.lock.release();
    if (opened && !imported) throw damaged(opened, err instanceof Error ? err.message : String(err));
    throw importError(source, err instanceof WorldError ? err : new WorldError(err instanceof Error ? err.message : String(err)));
  };
  if (opened?.snapshot && imported) {
    opened.lock.release();
    throw new StateDirError(
      `--state ${opened.dir} already holds a state, which --import ${source} would replace; nothing was changed.`,
      'Give --import with a new or empty --state DIR, or without --state.',
    );
  }
  const doc = opened?.snapshot ?? imported;
  let fixture: Fixture | undefined;
  try {
    fixture = doc ? validateFixture(doc.fixture, 'its fixture') : undefined;
  } catch (err) {
    fail(err);
  }
  let persisted: Persisted | undefined;
  let videos: string[] = [];
  return {
    fixture,
    info: { dir: opened?.dir, restored: doc !== null, droppedTorn: opened?.tornTail ?? false },
    restore(core) {
      if (!doc) return;
      try {
        videos = restore(core, doc, opened?.entries ?? []);
      } catch (err) {
        fail(err);
      }
    },
    keep(core, service, server) {
      if (!opened) {
        resumeWork(core);
        return;
      }
      persisted = new Persisted(core, opened, videos);
      persisted.follow(service);
      persisted.hook(server);
    },
    close() {
      if (persisted) persisted.close();
      else opened?.lock.release();
    },
  };
}

/** GET /_emulator/export: the running emulator's world as one JSON document, the videos' bytes left out. */
export function registerExport(app: FastifyInstance, core: Core): void {
  app.get('/_emulator/export', async (_req, reply) => {
    const doc = worldOf(core);
    doc.video_bytes = VIDEO_BYTES_LEFT_OUT;
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(doc));
  });
}
