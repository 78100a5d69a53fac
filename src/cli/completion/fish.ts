import { GLOBAL_VALUE_FLAGS, type ArgSpec, type FlagSpec } from '../line/flags.js';
import { choicesOf, header, subcommandPaths, topCommands, valueKind, type CompletionModel } from './model.js';

function fishq(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The `-a` of a value: what completes it (nothing for free text). */
function valueArguments(v: FlagSpec | ArgSpec, m: CompletionModel): string | undefined {
  const kind = 'required' in v ? v.kind : valueKind(v);
  const list = 'commaList' in v && v.commaList === true;
  const words = (source: string) => (list ? `'(${source} | __vidpub_list)'` : `'(${source})'`);
  if (kind === 'destination') return `-f -a ${words('__vidpub_destinations')}`;
  if (kind === 'option') return `-f -a ${words('__vidpub_names --option-values')}`;
  // Newest first, as the journal lists them (-k: fish keeps the order).
  if (kind === 'post') return `-k -f -a '(command vidpub completion fish --ids 2>/dev/null)'`;
  if (kind === 'post-or-video') return `-k -f -a '(command vidpub completion fish --ids --video-ids 2>/dev/null)'`;
  if (kind === 'file') return '-F';
  const choices = choicesOf({ kind, choices: v.choices }, m);
  if (choices.length) return list ? `-f -a ${words(`string join \\n ${choices.join(' ')}`)}` : `-f -a ${fishq(choices.join(' '))}`;
  return undefined;
}

/**
 * A flag's lines. Its values are on a line of their own, without -d: fish shows a line's
 * description beside every value it offers, so the flag's (on the line after) would be repeated
 * beside each name; fish takes the flag's description from the second line.
 */
function fishFlag(f: FlagSpec, m: CompletionModel, condition?: string): string[] {
  const parts = ['complete -c vidpub'];
  if (condition) parts.push(`-n ${fishq(condition)}`);
  if (f.short) parts.push(`-s ${f.short}`);
  parts.push(`-l ${f.name}`);
  if (f.value === undefined) return [[...parts, `-d ${fishq(f.description)}`].join(' ')];
  const values = valueArguments(f, m);
  const described = [...parts, '-r', ...(values === '-F' ? [] : ['-f']), `-d ${fishq(f.description)}`].join(' ');
  return values ? [[...parts, '-r', values].join(' '), described] : [described];
}

/** The script's functions that the registry does not shape: destinations from the service, comma-separated lists. */
const FISH_HELPERS = `# The names come from the service and key of the --profile, --base-url and --api-key-file typed.
function __vidpub_destinations
    __vidpub_names --destinations
end

function __vidpub_names
    set -l toks (commandline -opc)
    set -l args
    set -l take 0
    for t in $toks[2..-1]
        if test $take = 1
            set -a args $t
            set take 0
            continue
        end
        switch $t
            case --profile --base-url --api-key-file
                set -a args $t
                set take 1
            case '--profile=*' '--base-url=*' '--api-key-file=*'
                set -a args $t
        end
    end
    command vidpub $args completion fish $argv[1] 2>/dev/null
end

# A comma-separated value (--to a,b): each word on stdin that fits what
# follows the token's last comma, after what precedes it. A single
# fit is offered alone and followed by a comma: fish then inserts it with no
# space after it, so that a comma can follow.
function __vidpub_list
    set -l token (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    set -l head (string match -r -- '^.*,' "$token")
    set -l part (string replace -r -- '^.*,' '' "$token")
    set -l fits
    while read -l word
        string match -q -- "$part*" "$word"; and set -a fits "$word"
    end
    for word in $fits
        echo "$head$word"
    end
    test (count $fits) -eq 1; and echo "$head$fits[1],"
    return 0
end`;

export function fishScript(m: CompletionModel, version: string): string {
  const skipGlobals = [...GLOBAL_VALUE_FLAGS].join(' ');
  const lines: string[] = [];
  for (const c of topCommands(m)) lines.push(`complete -c vidpub -n __vidpub_needs_command -f -a ${c.name} -d ${fishq(c.summary)}`);
  for (const f of m.globals) lines.push(...fishFlag(f, m));
  for (const c of m.commands) {
    const cond = `__vidpub_using_command ${c.name.includes(' ') ? fishq(c.name) : c.name}`;
    for (const s of c.subcommands) lines.push(`complete -c vidpub -n ${fishq(cond)} -f -a ${s.name} -d ${fishq(s.description)}`);
    for (const f of c.flags) lines.push(...fishFlag(f, m, cond));
    const positional = c.positional && valueArguments(c.positional, m);
    if (positional) lines.push(`complete -c vidpub -n ${fishq(cond)} ${positional}`);
  }
  return `${header('fish', version, ['Load it in this shell:  vidpub completion fish | source', 'Install it:             vidpub completion fish > ~/.config/fish/completions/vidpub.fish'])}

${FISH_HELPERS}

# The command typed so far (global flags and their values skipped), or nothing: a subcommand
# (the word right after its command) by its path, "batch report".
function __vidpub_command
    set -l toks (commandline -opc)
    set -e toks[1]
    set -l skip 0
    # A while loop of builtins, not \`for i in (seq ...)\`: this runs for each of the script's
    # conditions, about a hundred on one TAB, and seq is a program (a fork each time).
    set -l i 0
    while test $i -lt (count $toks)
        set i (math $i + 1)
        set -l t $toks[$i]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case ${skipGlobals}
                set skip 1
            case '-*'
            case '*'
                set -l next $toks[(math $i + 1)]
                if test (count $toks) -gt $i; and contains -- "$t $next" ${subcommandPaths(m).map(fishq).join(' ')}
                    echo "$t $next"
                else
                    echo $t
                end
                return 0
        end
    end
    return 1
end

function __vidpub_needs_command
    not __vidpub_command >/dev/null
end

function __vidpub_using_command
    set -l cmd (__vidpub_command)
    and test "$cmd" = "$argv[1]"
end

complete -c vidpub -f
${lines.join('\n')}
`;
}
