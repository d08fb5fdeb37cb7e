#!/bin/bash
# description: cgtrace stat prints every pid and cgroup filter, the fork
#   options and the marker settings of an instance, needing read access
#   only (a member of tracefs's gid= group); cgtrace reset clears them all
#   and writes the documented user_events_rate default. Every one of those
#   files must exist: the patched kernel has them all (a missing one fails,
#   it is not passed over).
# requires: set_event_cgroup, user_markers, the function tracer, setpriv
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"

i=$T/instances/cgt_stat
mkdir $i || fail "cannot make an instance"
trap 'rmdir $i 2>/dev/null; cleanup' EXIT
mkdir -p $CG/cgt-s1 $CG/cgt-s2
cgroups+=(cgt-s1 cgt-s2)

# set everything: each file is one the patched kernel makes in an instance
files=()
set_file() { # file value
	[ -e "$i/$1" ] || fail "the instance has no $1: the patched kernel makes it"
	echo "$2" >"$i/$1" || fail "cannot write $1"
	files+=("$1")
}
set_file set_event_pid $$
set_file set_event_notrace_pid 1
set_file set_ftrace_pid $$
set_file set_ftrace_notrace_pid 1
set_file set_event_cgroup "/cgt-s1 /cgt-s2"
set_file set_event_notrace_cgroup /cgt-s2
set_file set_ftrace_cgroup /cgt-s1
set_file set_ftrace_notrace_cgroup /cgt-s2
set_file options/event-fork 1
set_file options/function-fork 1
set_file user_events_rate "5 7"
set_file options/user_events_prctl 1

"$CGTRACE" stat cgt_stat >"$work/stat" || fail "stat exited with $?"
cat "$work/stat"
for f in "${files[@]}"; do
	grep -q "^$f " "$work/stat" || fail "stat does not print $f"
done
grep -qE "^set_event_pid +$$\$" "$work/stat" || fail "stat: set_event_pid is not $$"
grep -qE '^set_event_cgroup +/cgt-s1$' "$work/stat" || fail "stat: set_event_cgroup first line"
grep -qE '^ +/cgt-s2$' "$work/stat" || fail "stat: set_event_cgroup second line"
grep -qE '^options/event-fork +1$' "$work/stat" || fail "stat: event-fork"
grep -qE '^options/function-fork +1$' "$work/stat" || fail "stat: function-fork"
grep -qE '^options/user_events_prctl +1$' "$work/stat" || fail "stat: user_events_prctl"
grep -qE '^set_ftrace_notrace_cgroup +/cgt-s2$' "$work/stat" || fail "stat: set_ftrace_notrace_cgroup"
grep -qE '^user_events_rate +5 7$' "$work/stat" || fail "stat: user_events_rate"
grep -q '^user_events_stats' "$work/stat" || fail "stat: user_events_stats"
grep -q 'not in this kernel' "$work/stat" && fail "stat says a file is not in this kernel"
[ ${#files[@]} = 12 ] || fail "set ${#files[@]} settings, want 12"
pass "stat prints the ${#files[@]} settings"

# read access is enough: a member of the group tracefs is mounted with
opts=$(awk '$2 == "/sys/kernel/tracing" { print $4 }' /proc/mounts)
gid=$(echo "$opts" | tr , '\n' | sed -n 's/^gid=//p')
mode=$(echo "$opts" | tr , '\n' | sed -n 's/^mode=//p')
trap 'mount -o remount,gid=${gid:-0},mode=${mode:-700} $T; rmdir $i 2>/dev/null; cleanup' EXIT
as_member() {
	setpriv --reuid=65534 --regid=65534 --groups=4242 --inh-caps=-all "$@"
}
as_member "$CGTRACE" stat cgt_stat >"$work/stat_ro" 2>&1 &&
	fail "stat succeeded for a user outside tracefs's group"
mount -o remount,gid=4242,mode=0750 $T || fail "cannot remount tracefs with gid=4242"
as_member "$CGTRACE" stat cgt_stat >"$work/stat_ro" 2>&1 ||
	{ cat "$work/stat_ro"; fail "stat failed for a member of tracefs's group"; }
grep -qE '^set_event_cgroup +/cgt-s1$' "$work/stat_ro" ||
	{ cat "$work/stat_ro"; fail "stat as a group member: set_event_cgroup not read"; }
as_member "$CGTRACE" reset cgt_stat >"$work/reset_ro" 2>&1 &&
	fail "reset succeeded for a group member (it must need write access)"
grep -q 'no permission' "$work/reset_ro" || { cat "$work/reset_ro"; fail "reset: no permission message"; }
[ -n "$(cat $i/set_event_cgroup)" ] || fail "a refused reset changed set_event_cgroup"
mount -o remount,gid=${gid:-0},mode=${mode:-700} $T
pass "stat needs read access only (group gid=4242), reset refuses and changes nothing"

"$CGTRACE" reset cgt_stat || fail "reset exited with $?"
for f in set_event_pid set_event_notrace_pid set_ftrace_pid set_ftrace_notrace_pid \
	 set_event_cgroup set_event_notrace_cgroup set_ftrace_cgroup set_ftrace_notrace_cgroup; do
	[ -e $i/$f ] || fail "the instance has no $f after reset"
	[ -z "$(grep -v '^#\|^no pid$' $i/$f)" ] || fail "reset left $f = $(cat $i/$f)"
done
for f in options/event-fork options/function-fork options/user_events_prctl; do
	[ "$(cat $i/$f)" = 0 ] || fail "reset left $f on ('$(cat $i/$f)')"
done
[ "$(cat $i/user_events_rate)" = "100000 10000" ] ||
	fail "reset: user_events_rate is '$(cat $i/user_events_rate)'"
"$CGTRACE" stat cgt_stat >"$work/stat2"
grep -qE '^set_event_cgroup +\(empty\)$' "$work/stat2" || fail "stat after reset"
pass "reset clears every filter and option"

"$CGTRACE" stat | grep -q '^instance: top' || fail "stat without argument is not the top level"
"$CGTRACE" stat -B cgt_stat | grep -q '^instance: cgt_stat' || fail "stat -B NAME (trace-cmd's way)"
"$CGTRACE" stat no_such_instance 2>"$work/err" && fail "stat of a missing instance succeeded"
grep -q 'no tracing instance named no_such_instance' "$work/err" || fail "missing instance message"
pass "top level by default; a missing instance is an error"
exit 0
