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
  { name: 'login', summary: 'Check an API key and store it in a profile', group: 'account', load: () => import('./login.js') },
  { name: 'logout', summary: "Forget a profile's stored API key", group: 'account', load: () => import('./logout.js') },
  { name: 'profiles', summary: 'List the stored profiles (base URL, workspace, masked key, last login)', group: 'account', load: () => import('./profiles.js') },
  { name: 'me', summary: 'Show the key, workspace, plan, usage and limits', group: 'account', load: () => import('./me.js') },
  { name: 'destinations', summary: 'List the connected accounts you can post to', group: 'account', load: () => import('./destinations.js') },
  { name: 'options', args: '<destination>', summary: "Show a destination's posting options", group: 'account', load: () => import('./options.js') },
  { name: 'upload', args: '<file>', summary: 'Upload a local video and wait until it is ready', group: 'media', load: () => import('./upload.js') },
  { name: 'import', args: '<url>', summary: 'Import a video from a direct https link', group: 'media', load: () => import('./import.js') },
  { name: 'post', args: '[file-or-url]', summary: 'Upload or import a video and post it to destinations', group: 'posts', load: () => import('./post.js') },
  { name: 'publish', args: '<post-id>', summary: 'Publish a draft now or later, or move a scheduled post', group: 'posts', load: () => import('./publish.js') },
  { name: 'status', args: '<post-id>', summary: "Show a post and each destination's status", group: 'posts', load: () => import('./status.js') },
  { name: 'emulator', summary: 'Run the local emulator of the Video Publishing Service', group: 'tools', load: () => import('./emulator.js') },
  { name: 'demo', summary: 'Run the whole job against a built-in emulator', group: 'tools', load: () => import('./demo.js') },
  { name: 'completion', args: '<shell>', summary: 'Print shell completion for bash, zsh or fish', group: 'tools', load: () => import('./completion.js') },
  { name: 'version', summary: 'Print the versions of vidpub and Node.js, and the platform', group: 'tools', load: () => import('./version.js') },
  { name: 'mcp', summary: 'Run a local MCP server (stdio) for AI assistants', group: 'tools', load: () => import('./mcp.js') },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}
