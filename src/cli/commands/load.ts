import type { AnyCommandSpec } from '../run/command.js';
import type { CommandName } from './index.js';

type Loader = () => Promise<{ default: AnyCommandSpec }>;

/**
 * Each command's module, imported only when that command runs (so `vidpub me`
 * loads neither the emulator nor the MCP SDK). One line per entry of the
 * registry (./index.ts): the type requires it.
 */
const LOADERS: Record<CommandName, Loader> = {
  login: () => import('./login.js'),
  logout: () => import('./logout.js'),
  profiles: () => import('./profiles.js'),
  config: () => import('./config.js'),
  me: () => import('./me.js'),
  destinations: () => import('./destinations.js'),
  options: () => import('./options.js'),
  upload: () => import('./upload.js'),
  import: () => import('./import.js'),
  post: () => import('./post.js'),
  publish: () => import('./publish.js'),
  batch: () => import('./batch.js'),
  'batch report': () => import('./batch-report.js'),
  'batch matrix': () => import('./batch-matrix.js'),
  status: () => import('./status.js'),
  open: () => import('./open.js'),
  history: () => import('./history.js'),
  schedule: () => import('./schedule.js'),
  retry: () => import('./retry.js'),
  watch: () => import('./watch.js'),
  version: () => import('./version.js'),
  emulator: () => import('./emulator.js'),
  demo: () => import('./demo.js'),
  completion: () => import('./completion.js'),
  mcp: () => import('./mcp.js'),
};

export async function loadCommand(name: string): Promise<AnyCommandSpec> {
  const load = (LOADERS as Record<string, Loader | undefined>)[name];
  if (!load) throw new Error(`no module for command "${name}"`);
  return (await load()).default;
}
