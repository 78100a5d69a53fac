import type { CommandSpec } from '../command.js';

/**
 * Every command: its name, positional arguments, one-line summary, and how to
 * load it. Only the command being run is loaded, so `vidpub --version` and
 * `vidpub --help` import no command module and no heavy dependency.
 */
export interface CommandEntry {
  name: string;
  args?: string;
  summary: string;
  group: 'account' | 'media' | 'posts' | 'tools';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  load(): Promise<{ default: CommandSpec<any, any> }>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'emulator', summary: 'Run the local emulator of the Video Publishing Service', group: 'tools', load: () => import('./emulator.js') },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}
