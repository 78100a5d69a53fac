/**
 * `vidpub config get|set|unset|list [KEY] [VALUE]`: the profile's settings,
 * kept in its config (src/config/, under the store's lock): a caption prefix
 * or suffix for each platform (config/text-defaults.ts), which `post` adds to
 * the caption of the destinations of that platform.
 */
import { NotFoundError, UsageError, sanitize } from '../../errors.js';
import { checkSettingKey, settingsOf, type SettingKey } from '../../config/text-defaults.js';
import { renderTable } from '../../ui/table.js';
import { defineCommand } from '../run/command.js';

type Action = 'get' | 'set' | 'unset' | 'list';
const ACTIONS: readonly string[] = ['get', 'set', 'unset', 'list'];

interface Opts {
  action: Action;
  key?: SettingKey;
  value?: string;
}

interface Result {
  profile: string;
  action: Action;
  settings: { key: string; value: string }[];
}

export default defineCommand<'config', Opts, Result>({
  description:
    "Get, set, unset or list the settings of the profile (--profile or VIDPUB_PROFILE): a caption prefix or suffix for each platform " +
    '(caption.prefix.PLATFORM, caption.suffix.PLATFORM), which post adds to the caption of the destinations of that platform, ' +
    "set apart by a blank line (post --no-caption-defaults leaves them out). Only text: a destination's privacy and other " +
    'options are chosen at each post.',
  examples: ['vidpub config set caption.suffix.instagram "Link in bio"', 'vidpub config get caption.suffix.instagram', 'vidpub config list', 'vidpub config unset caption.suffix.instagram'],
  parse(args) {
    const [action, key, value] = args as [Action, string | undefined, string | undefined];
    if (!ACTIONS.includes(action)) throw new UsageError(`unknown action "${sanitize(String(action))}": give one of ${ACTIONS.join(', ')}`, { hint: 'For example: vidpub config list' });
    const needs = action === 'list' ? 0 : action === 'set' ? 2 : 1;
    const given = [key, value].filter((a) => a !== undefined).length;
    if (given < needs) {
      throw new UsageError(`config ${action} needs ${needs === 2 ? 'a KEY and a VALUE' : 'a KEY'}`, { hint: 'For example: vidpub config set caption.suffix.instagram "Link in bio"' });
    }
    if (given > needs) throw new UsageError(`config ${action} takes ${needs === 0 ? 'no KEY' : needs === 1 ? 'a KEY, no VALUE' : 'a KEY and a VALUE'}: "${sanitize(String(needs === 0 ? key : value))}" is one too many`);
    if (action === 'set' && value!.trim() === '') throw new UsageError(`config set ${sanitize(key!)}: the value is empty; to remove the setting: vidpub config unset ${sanitize(key!)}`);
    return { action, ...(key !== undefined ? { key: checkSettingKey(key) } : {}), ...(value !== undefined ? { value } : {}) };
  },
  async run(opts, inv) {
    const { ctx, globals } = inv;
    const profile = globals.profile;
    if (opts.action === 'list' || opts.action === 'get') {
      const all = settingsOf((await ctx.config()).getProfile(profile)).map(([key, value]) => ({ key, value }));
      const settings = opts.key ? all.filter((s) => s.key === opts.key) : all;
      if (opts.key && settings.length === 0) throw new NotFoundError(`${opts.key} is not set for profile "${sanitize(profile)}"`, { hint: `Set it with: vidpub config set ${opts.key} TEXT` });
      return { profile, action: opts.action, settings };
    }
    const { openConfigStore } = await import('../../config/config-store.js');
    const store = await openConfigStore(ctx.env, ctx.cwd, { writable: true, clock: ctx.clock });
    const key = opts.key!;
    await store.updateProfile(
      profile,
      async (current) => {
        const next = { ...(current ?? {}) };
        if (opts.action === 'set') next[key] = opts.value;
        else delete next[key];
        return { profile: next, result: undefined };
      },
      ctx.signal,
    );
    return { profile, action: opts.action, settings: opts.action === 'set' ? [{ key, value: opts.value! }] : [] };
  },
  print(r, inv) {
    if (r.action === 'set' || r.action === 'unset') {
      inv.log.info(r.action === 'set' ? `Set for profile "${sanitize(r.profile)}".` : `Unset for profile "${sanitize(r.profile)}".`);
      return;
    }
    if (r.action === 'get') return void inv.print(sanitize(r.settings[0]!.value));
    if (r.settings.length === 0 && inv.out.tty) return void inv.print(`No settings for profile "${sanitize(r.profile)}". For example: vidpub config set caption.suffix.instagram "Link in bio"`);
    // A value's line breaks as \n: one setting a line.
    for (const line of renderTable(r.settings, [{ header: inv.out.tty ? 'Key' : 'key', value: (s) => s.key }, { header: inv.out.tty ? 'Value' : 'value', value: (s) => s.value.replace(/\n/g, '\\n'), shrink: true }], { tty: inv.out.tty, bold: inv.out.colors.bold, width: inv.out.columns })) inv.print(line);
  },
  json: (r) => ({ profile: r.profile, settings: Object.fromEntries(r.settings.map((s) => [s.key, s.value])) }),
});
