import { defineCommand } from '../run/command.js';

export interface VersionInfo {
  version: string;
  node: string;
  platform: string;
  arch: string;
}

export default defineCommand<'version', Record<string, never>, VersionInfo>({
  description: 'Print the version of vidpub, of Node.js and the platform: what a bug report needs.',
  examples: ['vidpub version', 'vidpub version --json'],
  parse() {
    return {};
  },
  async run(_opts, inv) {
    const rt = inv.ctx.runtime ?? { node: 'unknown', platform: 'unknown', arch: 'unknown' };
    return { version: inv.ctx.version, node: rt.node, platform: rt.platform, arch: rt.arch };
  },
  print(v, inv) {
    if (!inv.out.tty) {
      inv.print(`version\t${v.version}`);
      inv.print(`node\t${v.node}`);
      inv.print(`platform\t${v.platform}-${v.arch}`);
      return;
    }
    inv.print(`vidpub ${v.version}`);
    inv.print(`Node.js ${v.node}`);
    inv.print(`Platform ${v.platform}-${v.arch}`);
  },
});
