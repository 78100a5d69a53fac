import { GLOBAL_VALUE_FLAGS, flagNames } from '../line/flags.js';
import { choicesOf, header, isKind, shq, subcommandPaths, topCommands, valueFlagNames, type CompletionModel } from './model.js';

/** `__vidpub_choices CMD FLAG` (FLAG empty for the positional argument): the fixed values it takes. */
function choicesFunction(m: CompletionModel): string {
  const cases: string[] = [];
  for (const c of m.commands) {
    if (c.positional?.kind === 'choice') cases.push(`    ${shq(`${c.name} `)}) echo ${shq(choicesOf(c.positional, m).join(' '))} ;;`);
    for (const f of c.flags.filter(isKind('choice'))) {
      for (const n of flagNames(f)) cases.push(`    ${shq(`${c.name} ${n}`)}) echo ${shq(choicesOf(f, m).join(' '))} ;;`);
    }
  }
  for (const f of m.globals.filter(isKind('choice'))) {
    for (const n of flagNames(f)) cases.push(`    *${shq(` ${n}`)}) echo ${shq(choicesOf(f, m).join(' '))} ;;`);
  }
  return `__vidpub_choices() {
  case "$1 $2" in
${cases.join('\n')}
  esac
}`;
}

/** The script's functions that the registry does not shape: destinations from the service. */
const BASH_HELPERS = `# The names come from the service and key of the --profile, --base-url and --api-key-file typed.
__vidpub_destinations() { __vidpub_names --destinations; }
__vidpub_names() {
  local -a args=()
  local j
  for ((j = 1; j < \${#toks[@]}; j++)); do
    case "\${toks[j]}" in
      --profile|--base-url|--api-key-file) args+=("\${toks[j]}" "\${toks[j+1]}"); ((j++)) ;;
      --profile=*|--base-url=*|--api-key-file=*) args+=("\${toks[j]}") ;;
    esac
  done
  command vidpub "\${args[@]}" completion bash "$1" 2>/dev/null
}`;

/** The end of _vidpub: the words offered as the reply, for a comma-separated list and past bash's word breaks. */
const BASH_REPLY = `  # A comma-separated value (--to a,b): complete the name after the last comma,
  # and add no space after it, so that a comma can follow.
  local head=""
  if __vidpub_in "$prev" $list_flags; then
    compopt -o nospace 2>/dev/null
    [[ "$cur" == *,* ]] && head="\${cur%,*},"
  fi
  COMPREPLY=($(compgen -P "$head" -W "$words" -- "\${cur#"$head"}"))
  # Readline replaces only what follows the last of COMP_WORDBREAKS (: = @ ...) in the word, but
  # keeps a "@" or "$" break with the text it replaces (rl_special_prefixes): strip the rest.
  local tail="\${cur##*["$COMP_WORDBREAKS"]}"
  local brk="\${cur:\${#cur}-\${#tail}-1:1}"
  (( \${#tail} < \${#cur} )) && [[ "$brk" == "@" || "$brk" == '$' ]] && tail="$brk$tail"
  local prefix="\${cur:0:\${#cur}-\${#tail}}"
  [[ -n "$prefix" ]] && COMPREPLY=("\${COMPREPLY[@]#"$prefix"}")
  return 0
}`;

/** Per command, the `case` branch that sets its flags of each kind and its positional argument's kind. */
function commandCases(m: CompletionModel): string {
  return m.commands
    .map((c) => {
      const lines = [
        `flags=${shq(c.flags.flatMap(flagNames).join(' '))}`,
        `value_flags+=${shq(' ' + valueFlagNames(c.flags).join(' '))}`,
        `dest_flags=${shq(valueFlagNames(c.flags, isKind('destination')).join(' '))}`,
        `option_flags=${shq(valueFlagNames(c.flags, isKind('option')).join(' '))}`,
        `file_flags+=${shq(' ' + valueFlagNames(c.flags, isKind('file')).join(' '))}`,
        `choice_flags+=${shq(' ' + valueFlagNames(c.flags, isKind('choice')).join(' '))}`,
        `list_flags=${shq(valueFlagNames(c.flags, (f) => f.commaList === true).join(' '))}`,
        `positional=${c.positional?.kind ?? 'none'}`,
        ...(c.subcommands.length > 0 ? [`subs=${shq(c.subcommands.map((s) => s.name).join(' '))}`] : []),
        ...(c.positional?.variadic ? ['many=1'] : []),
      ];
      return `    ${c.name.includes(' ') ? shq(c.name) : c.name}) ${lines.join('; ')} ;;`;
    })
    .join('\n');
}

export function bashScript(m: CompletionModel, version: string): string {
  const globalWords = m.globals.flatMap(flagNames).join(' ');
  const commandWords = topCommands(m).map((c) => c.name).join(' ');
  const subs = subcommandPaths(m);
  // A subcommand is the word right after its command: the line's command is then its path.
  const subcommand = subs.length === 0 ? '' : `
  (( i + 1 < \${#toks[@]} )) && case "$cmd \${toks[i+1]}" in
    ${subs.map(shq).join('|')}) cmd="$cmd \${toks[i+1]}"; ((i++)) ;;
  esac`;
  const skipGlobals = [...GLOBAL_VALUE_FLAGS].join('|');
  const cases = commandCases(m);
  return `${header('bash', version, ['Load it in this shell:    source <(vidpub completion bash)', "Load it in every shell:   echo 'source <(vidpub completion bash)' >> ~/.bashrc"])}

${BASH_HELPERS}

${choicesFunction(m)}

__vidpub_in() {
  local word="$1" w
  shift
  for w in "$@"; do [[ "$w" == "$word" ]] && return 0; done
  return 1
}

_vidpub() {
  local line="\${COMP_LINE:0:COMP_POINT}" cur="" prev="" cmd="" i n=0
  local -a toks=()
  read -ra toks <<< "$line"
  if [[ -n "$line" && "$line" != *[[:space:]] && \${#toks[@]} -gt 0 ]]; then
    cur="\${toks[\${#toks[@]}-1]}"
    unset 'toks[\${#toks[@]}-1]'
  fi
  (( \${#toks[@]} > 0 )) && prev="\${toks[\${#toks[@]}-1]}"

  local flags="" dest_flags="" option_flags="" list_flags="" positional=none subs="" many=0
  local value_flags=${shq([...GLOBAL_VALUE_FLAGS].join(' '))}
  local file_flags=${shq(valueFlagNames(m.globals, isKind('file')).join(' '))}
  local choice_flags=${shq(valueFlagNames(m.globals, isKind('choice')).join(' '))}
  for ((i = 1; i < \${#toks[@]}; i++)); do
    case "\${toks[i]}" in
      ${skipGlobals}) ((i++)) ;;
      -*) ;;
      *) cmd="\${toks[i]}"; break ;;
    esac
  done${subcommand}
  case "$cmd" in
${cases}
  esac
  if [[ -n "$cmd" ]]; then
    # positional arguments already given after the command
    for ((i = i + 1; i < \${#toks[@]}; i++)); do
      if __vidpub_in "\${toks[i]}" $value_flags; then ((i++)); elif [[ "\${toks[i]}" != -* ]]; then ((n++)); fi
    done
  fi

  local words=""
  if __vidpub_in "$prev" $dest_flags; then
    words="$(__vidpub_destinations)"
  elif __vidpub_in "$prev" $option_flags; then
    words="$(__vidpub_names --option-values)"
  elif __vidpub_in "$prev" $file_flags; then
    compopt -o default 2>/dev/null; COMPREPLY=(); return 0
  elif __vidpub_in "$prev" $choice_flags; then
    words="$(__vidpub_choices "$cmd" "$prev")"
  elif __vidpub_in "$prev" $value_flags; then
    COMPREPLY=(); return 0
  elif [[ "$cur" == -* ]]; then
    words=${shq(globalWords)}" $flags"
  elif [[ -z "$cmd" ]]; then
    words=${shq(commandWords)}
  elif (( n == 0 )) && [[ -n "$subs" ]]; then
    # Its subcommands, else (no name fits) what its argument is: a file.
    compopt -o default 2>/dev/null; words="$subs"
  elif (( n == 0 || many )); then
    case "$positional" in
      destination) words="$(__vidpub_destinations)" ;;
      # Newest first, as the journal lists them: not sorted (bash 4.4 and later).
      post) words="$(command vidpub completion bash --ids 2>/dev/null)"; compopt -o nosort 2>/dev/null ;;
      post-or-video) words="$(command vidpub completion bash --ids --video-ids 2>/dev/null)"; compopt -o nosort 2>/dev/null ;;
      file) compopt -o default 2>/dev/null; COMPREPLY=(); return 0 ;;
      choice) words="$(__vidpub_choices "$cmd" "")" ;;
      command) words=${shq(commandWords)} ;;
    esac
  fi
${BASH_REPLY}

complete -F _vidpub vidpub
`;
}
