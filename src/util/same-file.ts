/**
 * When two names are the same video file (the one home of the rule): the
 * same size and modification time, and the same real path (after symbolic
 * links) or, where the paths differ (a bind mount, another mount of the same
 * file system, a hard link), the same device and inode. A run's note
 * (posts/post/cut-off.ts) and a batch item's journal record (batch/changed.ts)
 * keep this identity; a rerun compares its own with it.
 */

export interface FileIdentity {
  /** The path with every symbolic link resolved. */
  real?: string;
  dev?: number;
  ino?: number;
  size: number;
  /** Modification time, epoch ms (null: not known). */
  mtime: number | null;
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  if (a.size !== b.size || (a.mtime ?? null) !== (b.mtime ?? null)) return false;
  return (a.real !== undefined && a.real === b.real) || (a.ino !== undefined && a.dev === b.dev && a.ino === b.ino);
}

/** An identity as a journal line holds it, or undefined when it is not one (a foreign or damaged line). */
export function readIdentity(v: unknown): FileIdentity | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.size !== 'number' || (o.mtime !== null && typeof o.mtime !== 'number')) return undefined;
  return {
    ...(typeof o.real === 'string' ? { real: o.real } : {}),
    ...(typeof o.dev === 'number' && typeof o.ino === 'number' ? { dev: o.dev, ino: o.ino } : {}),
    size: o.size,
    mtime: o.mtime,
  };
}
