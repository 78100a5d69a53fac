import type { CommandSpec } from '../command.js';
import type { CommandName } from './index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loader = () => Promise<{ default: CommandSpec<any, any> }>;

/**
 * Each command's module, imported only when that command runs (so `vidpub me`
 * loads neither the emulator nor the MCP SDK). One line per entry of the
 * registry (./index.ts): the type requires it.
 */
const LOADERS: Record<CommandName, Loader> = {
  login: () => import('./login.js'),
  logout: () => import('./logout.js'),
  profiles: () => import('./profiles.js'),
  me: () => import('./me.js'),
  destinations: () => import('./destinations.js'),
  options: () => import('./options.js'),
  upload: () => import('./upload.js'),
  import: () => import('./import.js'),
  post: () => import('./post.js'),
  publish: () => import('./publish.js'),
  batch: () => import('./batch.js'),
  status: () => import('./status.js'),
  history: () => import('./history.js'),
  retry: () => import('./retry.js'),
  version: () => import('./version.js'),
  emulator: () => import('./emulator.js'),
  demo: () => import('./demo.js'),
  completion: () => import('./completion.js'),
  mcp: () => import('./mcp.js'),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function loadCommand(name: string): Promise<CommandSpec<any, any>> {
  const load = (LOADERS as Record<string, Loader | undefined>)[name];
  if (!load) throw new Error(`no module for command "${name}"`);
  return (await load()).default;
}
