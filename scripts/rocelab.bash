# bash completion for rocelab: installed as share/bash-completion/completions/rocelab.
# Everything it offers is asked of the rocelab being completed (its --help, `gen --list`,
# `lab list`), so it cannot drift from the command: the subcommands, each one's options, the
# verbs of lab and realrxe, gen's scenario names and the lab numbers; files elsewhere.

# _rocelab_words CMD...: the first word of each line the command prints indented by two spaces.
_rocelab_words()
{
	"$@" 2>/dev/null | sed -n 's/^  \([a-z0-9][a-z0-9-]*\)\( .*\)\{0,1\}$/\1/p'
}

_rocelab()
{
	local cur prev self cmd i opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	self=${COMP_WORDS[0]}
	COMPREPLY=()

	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(sed -n '/^commands:/,/^$/p' < <("$self" --help 2>/dev/null) |
				_rocelab_words cat) help" -- "$cur"))
		fi
		return
	fi

	case $cmd in
	help)
		[[ $COMP_CWORD -eq $((i + 1)) ]] &&
			COMPREPLY=($(compgen -W "$(sed -n '/^commands:/,/^$/p' < <("$self" --help 2>/dev/null) |
				_rocelab_words cat)" -- "$cur"))
		return
		;;
	gen)
		# gen SCENARIO: the scenario is its first word that is not an option or an option's value
		if [[ $cur != -* && $prev != -* && $COMP_CWORD -eq $((i + 1)) ]]; then
			COMPREPLY=($(compgen -W "$(_rocelab_words "$self" gen --list)" -- "$cur"))
			return
		fi
		;;
	lab)
		if [[ $COMP_CWORD -eq $((i + 1)) && $cur != -* ]]; then
			COMPREPLY=($(compgen -W 'list run grade up down status' -- "$cur"))
			return
		fi
		case $prev in
		run | grade)
			COMPREPLY=($(compgen -W "$("$self" lab list 2>/dev/null | sed -n 's/^  \([0-9][0-9]\)  .*/\1/p')" -- "$cur"))
			return
			;;
		esac
		;;
	realrxe)
		if [[ $COMP_CWORD -eq $((i + 1)) && $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$("$self" realrxe --help 2>/dev/null |
				sed -n '1,/^$/s/^\(usage:\)\{0,1\} *rocelab realrxe \([a-z]*\).*/\2/p')" -- "$cur"))
			return
		fi
		;;
	esac

	if [[ $cur == -* ]]; then
		# every long and short option its --help names, on the lines that describe options
		opts=$("$self" "$cmd" --help 2>/dev/null | grep -E '^ +-' | grep -oE -- '(^| |,)--?[A-Za-z0-9][A-Za-z0-9-]*' |
			tr -d ' ,' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur") # names with spaces stay whole
}
complete -o filenames -o bashdefault -F _rocelab rocelab
