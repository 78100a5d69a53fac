import { sanitize } from '../../errors.js';
import { keyStorage, maskedProfileKey, type KeyStorage } from '../../config/key-storage.js';
import { renderTable } from '../../ui/table.js';
import { defineCommand } from '../run/command.js';

export interface ProfileRow {
  name: string;
  base_url: string | null;
  workspace: string | null;
  /** The stored key, masked: vp_live_…a1b2 (never more). */
  key: string | null;
  /** Where the key is kept: the OS store (`keychain`) or the config file (`file`); null without a key. */
  storage: KeyStorage | null;
  logged_in_at: string | null;
  /** The profile this run would use (--profile, VIDPUB_PROFILE, else "default"). */
  current: boolean;
}

export default defineCommand<'profiles', Record<string, never>, ProfileRow[]>({
  description:
    'List the stored profiles: name, base URL, workspace, the key (masked), when it was stored by "vidpub login", ' +
    'and where the key is kept (keychain: the system keychain; file: the config file). ' +
    'The profile in use is marked with "*" (--profile or VIDPUB_PROFILE choose it).',
  examples: ['vidpub profiles', 'vidpub profiles --json name,workspace'],
  parse() {
    return {};
  },
  async run(_opts, inv) {
    const store = await inv.ctx.config();
    return store.listProfiles().map((name) => {
      const p = store.getProfile(name) ?? {};
      return {
        name,
        base_url: p.base_url ?? null,
        workspace: p.workspace ?? null,
        key: maskedProfileKey(p),
        storage: keyStorage(p),
        logged_in_at: p.logged_in_at ?? null,
        current: name === inv.globals.profile,
      };
    });
  },
  print(rows, inv) {
    const { tty, colors: c } = inv.out;
    if (rows.length === 0) {
      if (tty) inv.print('No stored profiles. Store a key with: vidpub login');
      return;
    }
    const lines = renderTable(
      rows,
      [
        { header: tty ? 'Profile' : 'name', value: (r) => (tty ? `${r.current ? '* ' : '  '}${r.name}` : r.name) },
        { header: 'Base URL', value: (r) => r.base_url ?? (tty ? '(built-in default)' : '') },
        { header: 'Workspace', value: (r) => r.workspace ?? '' },
        { header: 'Key', value: (r) => r.key ?? (tty ? '(none)' : '') },
        { header: 'Last login', value: (r) => (r.logged_in_at ? sanitize(r.logged_in_at) : '') },
        // Last: a script reading the columns by position before it was added keeps working.
        { header: 'Storage', value: (r) => r.storage ?? '' },
      ],
      { tty, bold: c.bold },
    );
    for (const line of lines) inv.print(line);
  },
});
