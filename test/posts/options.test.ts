import { describe, expect, it } from 'vitest';
import { InterruptedError, UsageError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';
import { scriptedPrompter } from '../support/prompter.js';
import type { DestinationOption, OptionValue } from '../../src/contract/wire-types.js';
import {
  coerceValue,
  missingOptionsError,
  optionsBody,
  parseOptionFlag,
  planOptions,
  promptMissing,
  type ChosenDestination,
} from '../../src/posts/options.js';

const opt = (key: string, type: string, values: OptionValue[] | null, def: OptionValue | null, required: boolean, label = key): DestinationOption => ({
  key,
  label,
  type,
  values,
  default: def,
  required,
});

const tiktok: ChosenDestination = {
  name: '@vidpub.demo',
  destination: { id: 'dst_tt', platform: 'tiktok', handle: '@vidpub.demo', display_name: 'vidpub Demo', status: 'active' },
  options: {
    options: [
      opt('privacy', 'enum', ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'], null, true, 'Who can view this video'),
      opt('allow_comments', 'boolean', [true, false], true, false),
    ],
    creator: { handle: '@vidpub.demo', display_name: 'vidpub Demo', avatar_url: 'https://a.example/x.png' },
    max_duration_sec: 600,
  },
};
const youtube: ChosenDestination = {
  name: 'dst_yt',
  destination: { id: 'dst_yt', platform: 'youtube', handle: '@chan', display_name: 'Chan', status: 'active' },
  options: {
    options: [
      opt('visibility', 'enum', ['public', 'unlisted', 'private'], 'private', true, 'Visibility'),
      opt('allow_comments', 'boolean', [true, false], true, false),
      opt('title', 'string', null, null, false),
    ],
  },
};
const find = (name: string, chosen: ChosenDestination[]) => chosen.find((c) => c.name === name || c.destination.id === name);

const usage = (fn: () => unknown): UsageError => expectError(UsageError, fn);

describe('parseOptionFlag', () => {
  it('splits KEY=VALUE and DEST:KEY=VALUE on the last ":" before the first "="', () => {
    expect(parseOptionFlag('privacy=SELF_ONLY')).toMatchObject({ dest: undefined, key: 'privacy', value: 'SELF_ONLY' });
    expect(parseOptionFlag('tiktok:@a.b:privacy=x=y:z')).toMatchObject({ dest: 'tiktok:@a.b', key: 'privacy', value: 'x=y:z' });
    expect(parseOptionFlag('title=')).toMatchObject({ key: 'title', value: '' });
  });
  it('refuses bad syntax', () => {
    expect(usage(() => parseOptionFlag('privacy')).message).toMatch(/invalid --option "privacy": it has no "="/);
    expect(usage(() => parseOptionFlag('=x')).message).toMatch(/the key is empty/);
    expect(usage(() => parseOptionFlag(':privacy=x')).message).toMatch(/destination before ":" is empty/);
    expect(usage(() => parseOptionFlag('pri vacy=x')).message).toMatch(/is not an option key/);
  });
});

describe('coerceValue', () => {
  it('reads booleans as true/false/yes/no', () => {
    const b = opt('b', 'boolean', [true, false], null, false);
    expect(coerceValue(b, 'yes')).toBe(true);
    expect(coerceValue(b, 'FALSE')).toBe(false);
    expect(coerceValue(b, 'maybe')).toBeUndefined();
  });
  it('matches enum values exactly, else ignoring case when unambiguous', () => {
    const e = opt('e', 'enum', ['SELF_ONLY', 'PUBLIC'], null, true);
    expect(coerceValue(e, 'self_only')).toBe('SELF_ONLY');
    expect(coerceValue(e, 'friends')).toBeUndefined();
    expect(coerceValue(opt('s', 'string', null, null, false), ' Hello ')).toBe(' Hello ');
  });
});

describe('planOptions', () => {
  it('applies KEY=VALUE to every chosen destination that has KEY, DEST:KEY=VALUE wins for its destination', () => {
    const plans = planOptions(
      [tiktok, youtube],
      ['allow_comments=no', 'dst_yt:allow_comments=yes', '@vidpub.demo:privacy=self_only'].map(parseOptionFlag),
      find,
    );
    expect(optionsBody(plans[0]!)).toEqual({ privacy: 'SELF_ONLY', allow_comments: false });
    expect(optionsBody(plans[1]!)).toEqual({ visibility: 'private', allow_comments: true });
    expect(plans[1]!.values.find((v) => v.key === 'visibility')!.source).toBe('default');
    expect(plans.every((p) => p.missing.length === 0)).toBe(true);
  });

  it('never defaults the privacy of a creator-disclosure destination, even when it has a default', () => {
    const withDefault: ChosenDestination = {
      ...tiktok,
      options: { ...tiktok.options, options: [opt('privacy', 'enum', ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'], 'SELF_ONLY', false)] },
    };
    const [p] = planOptions([withDefault], [], find);
    expect(p!.missing.map((o) => o.key)).toEqual(['privacy']);
  });

  it('refuses an unknown key (exit 2) naming what each destination has', () => {
    const err = usage(() => planOptions([tiktok, youtube], [parseOptionFlag('colour=red')], find));
    expect(err.message).toMatch(/no chosen destination has an option "colour"/);
    expect(err.hint).toMatch(/dst_yt: visibility, allow_comments, title/);
    expect(err.exitCode).toBe(2);
    expect(usage(() => planOptions([tiktok, youtube], [parseOptionFlag('dst_yt:privacy=x')], find)).message).toMatch(/dst_yt has no option "privacy"/);
  });

  it('refuses a DEST that is not among --to', () => {
    expect(usage(() => planOptions([tiktok], [parseOptionFlag('dst_other:privacy=x')], find)).message).toMatch(/not one of the --to destinations/);
  });

  it('refuses a disallowed value, listing the allowed ones', () => {
    const err = usage(() => planOptions([tiktok], [parseOptionFlag('privacy=FRIENDS')], find));
    expect(err.message).toMatch(/"FRIENDS" is not an allowed value of privacy for @vidpub.demo/);
    expect(err.hint).toBe('Allowed values: PUBLIC_TO_EVERYONE, SELF_ONLY.');
  });

  it('lists every missing option as the exact flag to pass, with allowed values', () => {
    const other = { ...tiktok, name: 'tiktok:@x y', destination: { ...tiktok.destination, id: 'dst_tt2' } };
    const plans = planOptions([tiktok, other], [], find);
    const err = missingOptionsError(plans);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/2 required options are missing/);
    expect(err.hint).toContain('--option @vidpub.demo:privacy=VALUE');
    expect(err.hint).toContain("--option 'tiktok:@x y:privacy='VALUE");
    expect(err.hint).toMatch(/VALUE one of: PUBLIC_TO_EVERYONE, SELF_ONLY/);
  });
});

describe('promptMissing', () => {
  const scripted = scriptedPrompter;

  it('shows the creator details first, then asks for privacy with no default pre-selected', async () => {
    const said: string[] = [];
    const { prompter, asked } = scripted(['SELF_ONLY']);
    const plans = planOptions([tiktok, youtube], [], find);
    await promptMissing(plans, prompter, (l) => said.push(`${asked.length}:${l}`));
    expect(said[0]).toBe('0:Posting to tiktok as vidpub Demo (@vidpub.demo)');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: 'select', message: 'privacy for @vidpub.demo: Who can view this video', default: undefined });
    // the cursor starts on an entry that is no value: Enter alone never posts publicly
    expect(asked[0]!.choices!.map((c) => c.name)).toEqual(['(choose one: there is no default)', 'Everyone (PUBLIC_TO_EVERYONE)', 'Only me (SELF_ONLY)']);
    expect(asked[0]!.choices!.slice(1).map((c) => c.value)).toEqual(['PUBLIC_TO_EVERYONE', 'SELF_ONLY']);
    expect(optionsBody(plans[0]!)).toEqual({ privacy: 'SELF_ONLY' });
    expect(plans[0]!.values[0]!.source).toBe('prompt');
  });

  it('Enter on "no choice" chooses nothing: it says so and asks again', async () => {
    const said: string[] = [];
    // answer the first question with the entry the cursor starts on, the second with SELF_ONLY
    const answers: unknown[] = [];
    const prompter = {
      ...scripted([]).prompter,
      select: <T>(o: { message: string; choices: { name: string; value: T }[] }) => {
        answers.push(o.choices.map((c) => c.value));
        return Promise.resolve(answers.length === 1 ? o.choices[0]!.value : o.choices[2]!.value);
      },
    };
    const plans = planOptions([tiktok], [], find);
    await promptMissing(plans, prompter, (l) => said.push(l));
    expect(answers).toHaveLength(2);
    expect(said).toContain('  Nothing chosen: move to a value with the arrow keys, then press Enter.');
    expect(optionsBody(plans[0]!)).toEqual({ privacy: 'SELF_ONLY' });
  });

  it('pre-selects a default when there is one (the person still chooses), and asks text for a free-text option', async () => {
    const withDefault: ChosenDestination = {
      ...tiktok,
      options: { ...tiktok.options, options: [opt('privacy', 'enum', ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'], 'SELF_ONLY', true)] },
    };
    const plans = planOptions([withDefault], [], find);
    const { prompter, asked } = scripted(['PUBLIC_TO_EVERYONE']);
    await promptMissing(plans, prompter, () => undefined);
    expect(asked[0]).toMatchObject({ kind: 'select', default: 'SELF_ONLY' });
    expect(optionsBody(plans[0]!)).toEqual({ privacy: 'PUBLIC_TO_EVERYONE' });

    const mixed: ChosenDestination = {
      ...youtube,
      options: { options: [opt('title', 'string', null, null, true), opt('visibility', 'enum', ['public', 'private'], 'public', true)] },
    };
    const p3 = planOptions([mixed], [], find);
    expect(p3[0]!.missing.map((o) => o.key)).toEqual(['title']);
    const s3 = scripted(['', 'My title']);
    await promptMissing(p3, s3.prompter, () => undefined);
    expect(s3.asked.map((a) => a.kind)).toEqual(['input', 'input']);
    // the prompted value keeps the destination's order of options
    expect(Object.keys(optionsBody(p3[0]!))).toEqual(['title', 'visibility']);
    expect(optionsBody(p3[0]!)).toEqual({ title: 'My title', visibility: 'public' });
  });

  it('turns Ctrl-C inside a prompt into exit 130', async () => {
    const cancel = Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    const { prompter } = scripted([cancel]);
    const plans = planOptions([tiktok], [], find);
    await expect(promptMissing(plans, prompter, () => undefined)).rejects.toBeInstanceOf(InterruptedError);
  });
});
