import { GLOBAL_VALUE_FLAGS, flagNames, type FlagSpec } from '../line/flags.js';
import { choicesOf, header, isKind, shq, subcommandPaths, topCommands, valueFlagNames, type CompletionModel } from './model.js';

function described(items: { name: string; description: string }[]): string {
  return items.map((i) => shq(`${i.name.replace(/:/g, '\\:')}:${i.description}`)).join(' ');
}

function flagItems(flags: FlagSpec[]): { name: string; description: string }[] {
  return flags.flatMap((f) => flagNames(f).map((n) => ({ name: n, description: f.description })));
}

/** `__vidpub_choices CMD FLAG` (FLAG empty for the positional argument): the fixed values it takes. */
function choicesFunction(m: CompletionModel): string {
  const cases: string[] = [];
  for (const c of m.commands) {
    if (c.positional?.kind === 'choice') cases.push(`    (${shq(`${c.name} `)}) print -r -- ${shq(choicesOf(c.positional, m).join(' '))} ;;`);
    for (const f of c.flags.filter(isKind('choice'))) {
      for (const n of flagNames(f)) cases.push(`    (${shq(`${c.name} ${n}`)}) print -r -- ${shq(choicesOf(f, m).join(' '))} ;;`);
    }
  }
  for (const f of m.globals.filter(isKind('choice'))) {
    for (const n of flagNames(f)) cases.push(`    (*${shq(` ${n}`)}) print -r -- ${shq(choicesOf(f, m).join(' '))} ;;`);
  }
  return `__vidpub_choices() {
  case "$1 $2" in
${cases.join('\n')}
  esac
}`;
}

/** The script's functions that the registry does not shape: adding words (comma-separated lists too), destinations from the service. */
const ZSH_HELPERS = `# Offers the words after the first argument. For a comma-separated value (the
# first argument is 1) only what follows the last comma is completed, and no
# space is added after a word, so that a comma can follow.
__vidpub_add() {
  local list=$1
  shift
  (( $# )) || return 1
  if (( list )); then
    [[ $PREFIX == *,* ]] && compset -P '*,'
    compadd -S '' -- "$@"
  else
    compadd -- "$@"
  fi
}

# The names come from the service and key of the --profile, --base-url and --api-key-file typed.
__vidpub_destinations() { __vidpub_names --destinations $1 }
__vidpub_names() {
  local -a dests args
  local j
  for ((j = 2; j < CURRENT; j++)); do
    case \${words[j]} in
      (--profile|--base-url|--api-key-file) args+=(\${words[j]} \${words[j+1]}); ((j++)) ;;
      (--profile=*|--base-url=*|--api-key-file=*) args+=(\${words[j]}) ;;
    esac
  done
  dests=(\${(f)"$(command vidpub $args completion zsh $1 2>/dev/null)"})
  __vidpub_add $2 $dests
}`;

/** Per command, the `case` branch that sets its flags of each kind and its positional argument's kind. */
function commandCases(m: CompletionModel): string {
  return m.commands
    .map((c) => {
      const lines = [
        `flags=(${described(flagItems(c.flags))})`,
        `value_flags+=(${valueFlagNames(c.flags).join(' ')})`,
        `dest_flags=(${valueFlagNames(c.flags, isKind('destination')).join(' ')})`,
        `option_flags=(${valueFlagNames(c.flags, isKind('option')).join(' ')})`,
        `file_flags+=(${valueFlagNames(c.flags, isKind('file')).join(' ')})`,
        `choice_flags+=(${valueFlagNames(c.flags, isKind('choice')).join(' ')})`,
        `list_flags=(${valueFlagNames(c.flags, (f) => f.commaList === true).join(' ')})`,
        `positional=${c.positional?.kind ?? 'none'}`,
        ...(c.subcommands.length > 0 ? [`subs=(${described(c.subcommands)})`] : []),
        ...(c.positional?.variadic ? ['many=1'] : []),
      ];
      return `    (${c.name.includes(' ') ? shq(c.name) : c.name}) ${lines.join('; ')} ;;`;
    })
    .join('\n');
}

export function zshScript(m: CompletionModel, version: string): string {
  const skipGlobals = [...GLOBAL_VALUE_FLAGS].join('|');
  const cases = commandCases(m);
  const subs = subcommandPaths(m);
  // A subcommand is the word right after its command: the line's command is then its path.
  const subcommand = subs.length === 0 ? '' : `
  (( i + 1 < CURRENT )) && case "$cmd \${words[i+1]}" in
    (${subs.map(shq).join('|')}) cmd="$cmd \${words[i+1]}"; ((i++)) ;;
  esac`;
  return `#compdef vidpub
${header('zsh', version, ['Load it in this shell (after compinit):  source <(vidpub completion zsh)', 'Install it:  vidpub completion zsh > "${fpath[1]}/_vidpub"   (then start a new shell)'])}

${ZSH_HELPERS}

${choicesFunction(m)}

_vidpub() {
  local -a commands globals flags value_flags dest_flags option_flags file_flags choice_flags list_flags subs
  local cmd="" positional=none i n=0 many=0
  commands=(${described(topCommands(m).map((c) => ({ name: c.name, description: c.summary })))})
  globals=(${described(flagItems(m.globals))})
  value_flags=(${[...GLOBAL_VALUE_FLAGS].join(' ')})
  file_flags=(${valueFlagNames(m.globals, isKind('file')).join(' ')})
  choice_flags=(${valueFlagNames(m.globals, isKind('choice')).join(' ')})
  for ((i = 2; i < CURRENT; i++)); do
    case \${words[i]} in
      (${skipGlobals}) ((i++)) ;;
      (-*) ;;
      (*) cmd=\${words[i]}; break ;;
    esac
  done${subcommand}
  case $cmd in
${cases}
  esac
  if [[ -n $cmd ]]; then
    for ((i = i + 1; i < CURRENT; i++)); do
      if (( \${value_flags[(Ie)\${words[i]}]} )); then ((i++)); elif [[ \${words[i]} != -* ]]; then ((n++)); fi
    done
  fi
  local prev=\${words[CURRENT-1]} cur=\${words[CURRENT]} list=0
  (( \${list_flags[(Ie)$prev]} )) && list=1
  if (( \${dest_flags[(Ie)$prev]} )); then
    __vidpub_destinations $list
  elif (( \${option_flags[(Ie)$prev]} )); then
    __vidpub_names --option-values 0
  elif (( \${file_flags[(Ie)$prev]} )); then
    _files
  elif (( \${choice_flags[(Ie)$prev]} )); then
    __vidpub_add $list \${=$(__vidpub_choices $cmd $prev)}
  elif (( \${value_flags[(Ie)$prev]} )); then
    return 1
  elif [[ $cur == -* ]]; then
    _describe -t options 'option' globals -- flags
  elif [[ -z $cmd ]]; then
    _describe -t commands 'command' commands
  elif (( n == 0 || many )); then
    # A command's subcommands, beside what its argument is (a file).
    (( \${#subs} )) && _describe -t commands 'subcommand' subs
    case $positional in
      (destination) __vidpub_destinations 0 ;;
      # Newest first, as the journal lists them: an unsorted group (-V).
      (post) compadd -V ids -- \${(f)"$(command vidpub completion zsh --ids 2>/dev/null)"} ;;
      (post-or-video) compadd -V ids -- \${(f)"$(command vidpub completion zsh --ids --video-ids 2>/dev/null)"} ;;
      (file) _files ;;
      (choice) __vidpub_add 0 \${=$(__vidpub_choices $cmd '')} ;;
      (command) _describe -t commands 'command' commands ;;
    esac
  fi
}

if [[ "\${funcstack[1]}" == _vidpub ]]; then
  _vidpub "$@"
else
  compdef _vidpub vidpub
fi
`;
}
