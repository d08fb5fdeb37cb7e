# bash completion for cgtrace(1)                             -*- shell-script -*-
#
# The options come from the binary itself ("cgtrace __options COMMAND"
# prints its getopt table), so they cannot drift from what it accepts.

# __cgtrace_cgroups - cgroup paths below the cgroup2 mount, and units
__cgtrace_cgroups()
{
	local cur=$1 mnt
	mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo 2>/dev/null)
	if [[ -n $mnt && ( -z $cur || $cur == /* ) ]]; then
		find "$mnt" -mindepth 1 -maxdepth 4 -type d 2>/dev/null |
			sed "s|^$mnt||"
	fi
	if [[ $cur != /* ]] && command -v systemctl >/dev/null; then
		systemctl list-units --all --plain --no-legend --no-pager \
			'*.service' '*.scope' '*.slice' 2>/dev/null | awk '{ print $1 }'
		printf '%s\n' id: pid:
	fi
}

# __cgtrace_instances - the tracing instances, and "top"
__cgtrace_instances()
{
	local t=${CGTRACE_TRACEFS:-/sys/kernel/tracing}
	echo top
	ls "$t/instances" 2>/dev/null
}

_cgtrace()
{
	local cur prev words cword cmd i
	_init_completion -n = || return

	local commands="record run stat reset report export help"
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	cmd=${words[1]}
	# after "--": a command line of its own
	for ((i = 2; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done
	case $cmd in
	help)
		((cword == 2)) && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return
		;;
	record | run | stat | reset | report | export) ;;
	*) return ;;
	esac

	case $prev in
	-G | --cgroup | -X | --notrace-cgroup | --parent)
		COMPREPLY=($(compgen -W "$(__cgtrace_cgroups "$cur")" -- "$cur"))
		return
		;;
	-B | --instance | --buffer)
		if [[ $cmd == report || $cmd == export ]]; then
			COMPREPLY=($(compgen -W "top" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(__cgtrace_instances)" -- "$cur"))
		fi
		return
		;;
	-e | --event)
		COMPREPLY=($(compgen -W "$(trace-cmd list -e 2>/dev/null) user_markers" -- "$cur"))
		return
		;;
	-p | --plugin)
		COMPREPLY=($(compgen -W "$(trace-cmd list -t 2>/dev/null)" -- "$cur"))
		return
		;;
	-C)
		COMPREPLY=($(compgen -W "$(trace-cmd list -C 2>/dev/null | tr -d '[]')" -- "$cur"))
		return
		;;
	-s | --sort | --by)
		COMPREPLY=($(compgen -W "name thread cgroup host" -- "$cur"))
		return
		;;
	--user)
		COMPREPLY=($(compgen -u -- "$cur"))
		return
		;;
	-i | --input)
		_filedir dat
		return
		;;
	-o | --output | -c | --chrome)
		_filedir
		return
		;;
	-P | --pid)
		COMPREPLY=($(compgen -W "$(ls /proc | grep '^[0-9]')" -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(cgtrace __options "$cmd" 2>/dev/null | sed 's/=$//') -h" -- "$cur"))
		return
	fi
	case $cmd in
	stat | reset) COMPREPLY=($(compgen -W "$(__cgtrace_instances)" -- "$cur")) ;;
	record | run) COMPREPLY=($(compgen -W "--" -- "$cur")) ;;
	esac
} &&
	complete -F _cgtrace cgtrace

# ex: filetype=sh
