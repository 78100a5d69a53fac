/**
 * The environment variables vidpub reads: the one list that `vidpub help
 * environment`, the ENVIRONMENT section of vidpub(1) and the manual's page
 * docs/commands/environment.md are made from (test/docs/env-vars.test.ts
 * checks that every variable the code reads is here, and nothing else).
 * Text: `code` in back quotes; a guide of the manual in `see` (a path from docs/).
 */
import { wrapWords } from '../../ui/wrap.js';

export interface EnvVarDoc {
  name: string;
  /** The other spellings read for it (`https_proxy` beside `HTTPS_PROXY`), named in `text`. */
  also?: readonly string[];
  text: string;
  see?: { title: string; page: string };
}

export interface EnvGroup {
  title: string;
  vars: readonly EnvVarDoc[];
}

/** An XDG base directory variable, read as util/xdg.ts xdgBase reads it: an absolute path only. */
function xdgHome(name: string, own: string, what: string): EnvVarDoc {
  return {
    name,
    text: `when set to an absolute path (and \`${own}\` is not set), ${what} in \`$${name}/vidpub/\`; a relative path is ignored, as the XDG spec asks`,
  };
}

export const ENVIRONMENT: readonly EnvGroup[] = [
  {
    title: 'The service and the key',
    vars: [
      { name: 'VIDPUB_API_KEY', text: 'the API key; wins over the stored profile (`--api-key-file` wins over it)' },
      { name: 'VIDPUB_BASE_URL', text: 'the service root including `/v1`; `--base-url` wins over it; set but empty is exit 2 (a missing CI variable), not the default service' },
      { name: 'VIDPUB_PROFILE', text: 'the profile to use, as `--profile`' },
      { name: 'VIDPUB_WORKSPACE', text: 'the workspace writes must go to, as `--workspace`' },
      { name: 'VIDPUB_SHARD', text: '`I/N`: `batch` posts shard I of N of its manifest, as `--shard`', see: { title: 'shards', page: 'batch.md#shards' } },
      {
        name: 'JOB_COMPLETION_INDEX',
        text: "Kubernetes' (an Indexed Job's, from 0): with `batch --shard-count N`, the shard `batch` posts",
        see: { title: 'shards', page: 'batch.md#shards' },
      },
      { name: 'VIDPUB_NO_INPUT', text: '`1`: never prompt, as `--no-input`' },
      { name: 'VIDPUB_DEBUG', text: '`1`: debug log on stderr, as `--debug`' },
      {
        name: 'VIDPUB_REQUEST_TIMEOUT',
        text: 'the ceiling of one request, connect to last byte (default `60s`; `90s`, `2m`, a bare number is seconds; at most `365d`)',
        see: { title: 'reliability', page: 'reliability.md#reliability' },
      },
    ],
  },
  {
    title: 'Networks, proxies and certificates',
    vars: [
      {
        name: 'VIDPUB_CA_FILE',
        text: "a file of CA certificates (PEM) trusted besides the system's, as `--ca-file`",
        see: { title: 'networks, proxies and certificates', page: 'networks-and-credentials.md#networks-proxies-and-certificates' },
      },
      { name: 'NODE_EXTRA_CA_CERTS', text: "Node's own: more CA certificates to trust (kept when a CA file is given too)" },
      { name: 'HTTPS_PROXY', also: ['https_proxy'], text: 'the proxy of https URLs (`https_proxy` first), as curl reads it' },
      { name: 'http_proxy', text: 'the proxy of http URLs (never `HTTP_PROXY`, as curl)' },
      { name: 'ALL_PROXY', also: ['all_proxy'], text: 'the proxy of both when theirs is not set (`all_proxy` first); `http://` only, a `socks5://` one is exit 2' },
      {
        name: 'NO_PROXY',
        also: ['no_proxy'],
        text: 'hosts that go straight (`no_proxy` first): names and their subdomains, `host:port`, addresses, CIDR ranges, `*`; an entry that cannot be read is a warning',
        see: { title: 'networks, proxies and certificates', page: 'networks-and-credentials.md#networks-proxies-and-certificates' },
      },
    ],
  },
  {
    title: 'Files: keys, the journal, the caches',
    vars: [
      { name: 'VIDPUB_CONFIG_DIR', text: 'the directory of `config.json`' },
      {
        name: 'VIDPUB_NO_KEYRING',
        text: '`1`: `login` keeps keys in `config.json`, never in the system keychain, as `--insecure-storage` does',
        see: { title: 'where keys are kept', page: 'networks-and-credentials.md#where-keys-are-kept' },
      },
      {
        name: 'DBUS_SESSION_BUS_ADDRESS',
        text: 'on Linux, the D-Bus session the system keychain (the Secret Service) is reached through; unset (and no `$XDG_RUNTIME_DIR/bus`): no keychain, keys go to `config.json`',
      },
      { name: 'XDG_RUNTIME_DIR', text: "on Linux, where the D-Bus session's socket (`bus`) is looked for when `DBUS_SESSION_BUS_ADDRESS` is not set" },
      { name: 'VIDPUB_STATE_DIR', text: 'the directory of the local journal', see: { title: 'the local journal', page: 'journal.md#the-local-journal' } },
      xdgHome('XDG_STATE_HOME', 'VIDPUB_STATE_DIR', 'the journal is'),
      { name: 'VIDPUB_NO_JOURNAL', text: '`1`: keep no journal, as `--no-journal`' },
      xdgHome('XDG_CONFIG_HOME', 'VIDPUB_CONFIG_DIR', 'the config is'),
      {
        name: 'VIDPUB_CACHE_DIR',
        text: "the directory of vidpub's caches (the compiled-code cache that makes each command start faster, and what it remembers between runs per service and key); default `$XDG_CACHE_HOME/vidpub/`, else `~/.cache/vidpub/`",
        see: { title: 'what vidpub remembers between runs', page: 'journal.md#what-vidpub-remembers-between-runs' },
      },
      xdgHome('XDG_CACHE_HOME', 'VIDPUB_CACHE_DIR', 'the caches are'),
      { name: 'VIDPUB_NO_COMPILE_CACHE', text: '`1`: no compiled-code cache (each command compiles the CLI afresh)' },
      {
        name: 'VIDPUB_NO_CACHE',
        text: "`1`: nothing read from or written to the cache of destinations, options and the key's workspace, as `--no-cache`",
        see: { title: 'what vidpub remembers between runs', page: 'journal.md#what-vidpub-remembers-between-runs' },
      },
      {
        name: 'VIDPUB_DUPLICATE_WINDOW',
        text: "how far back `post` looks for the same video posted to the same destination (`30d`, `12h`; `0` turns the guard off), over the profile's `duplicate_window`",
        see: { title: 'vidpub post', page: 'publishing.md#vidpub-post' },
      },
      {
        name: 'HOME',
        text: 'where `~/.config/vidpub/` is (when neither `VIDPUB_CONFIG_DIR` nor `XDG_CONFIG_HOME` is set), and what `~/` means in `upload_file` paths of `vidpub mcp`',
      },
      { name: 'USERPROFILE', text: 'the home directory when `HOME` is not set (Windows)' },
      { name: 'APPDATA', text: 'on Windows, the config is in `%APPDATA%\\vidpub\\` (unless `VIDPUB_CONFIG_DIR` or `XDG_CONFIG_HOME`)' },
    ],
  },
  {
    title: 'The terminal, times, the editor and the browser',
    vars: [
      {
        name: 'TZ',
        text: 'the zone of local `--at` times (unless `--tz`) and of times shown: an IANA name (`:Area/City` too), a zoneinfo path, or a POSIX string (`JST-9`, `CET-1CEST,M3.5.0,M10.5.0/3`); one that cannot be read is exit 2',
        see: { title: 'the zone of WHEN', page: 'publishing.md#vidpub-post' },
      },
      { name: 'VISUAL', text: 'the editor a missing caption is written in at a terminal, as `gh` does (before `EDITOR`); neither set: a one-line prompt' },
      { name: 'EDITOR', text: 'the editor for a missing caption when `VISUAL` is not set' },
      { name: 'NO_COLOR', text: 'any non-empty value: no colour; empty (`NO_COLOR=`) is as if unset', see: { title: 'no-color.org', page: 'https://no-color.org' } },
      { name: 'FORCE_COLOR', text: '`1` to `3`: colour even in a pipe; `0`: none (`NO_COLOR` wins)' },
      { name: 'COLORTERM', text: '`truecolor` or `24bit`: full colour on a terminal' },
      {
        name: 'TERM',
        text: '`dumb`: no colour and no cursor-control codes on a terminal (progress as plain lines, menus numbered, lines edited with Backspace, Ctrl-W and Ctrl-U); a name containing `256`: 256 colours',
      },
      {
        name: 'DISPLAY',
        text: 'on Linux, set (or `WAYLAND_DISPLAY`): `--web` and `vidpub open` can open a browser (with `xdg-open`); neither: they print the URL',
      },
      { name: 'WAYLAND_DISPLAY', text: 'as `DISPLAY`' },
      { name: 'CI', text: 'any value: `--web` and `vidpub open` print the URL instead of opening a browser' },
    ],
  },
];

/** Every variable of the list, in its order. */
export function environmentVariables(): EnvVarDoc[] {
  return ENVIRONMENT.flatMap((g) => g.vars);
}

/** A variable's text for a terminal or a man page: no back quotes, the guide named by its page. */
export function plainEnvText(v: EnvVarDoc): string {
  const text = v.text.replace(/`/g, '');
  if (!v.see) return text;
  return /^https?:/.test(v.see.page) ? `${text} (${v.see.page})` : `${text}; see ${v.see.title} (docs/${v.see.page.replace(/#.*/, '')})`;
}

const INTRO = 'vidpub reads these environment variables. A flag given on the command line wins over the variable it mirrors.';

/** `vidpub help environment`: each group, each variable on its own line, its text indented and wrapped below it (as gh does). */
export function environmentHelp(width: number): string {
  const wrap = (text: string, w: number) => wrapWords(text, w);
  const out = [...wrap(INTRO, width)];
  for (const g of ENVIRONMENT) {
    out.push('', `${g.title}:`);
    for (const v of g.vars) out.push(v.name, ...wrap(plainEnvText(v), width - 4).map((l) => `    ${l}`));
  }
  out.push('', 'The manual lists them too: man vidpub (ENVIRONMENT), docs/commands/environment.md.');
  return out.join('\n') + '\n';
}

export const ENVIRONMENT_INTRO = INTRO;
