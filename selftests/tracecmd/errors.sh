#!/bin/bash
# description: trace-cmd's --cgroup errors name the cgroup and the cause
#   and change nothing: a cgroup that does not exist, a directory that is
#   not a cgroup, a systemd unit when systemd cannot be asked (the guest
#   has no systemd); -C still sets the clock; extract refuses --cgroup.
. "$(dirname "$0")/lib"
no_cgroup_filter

mkcg tc-keep
echo /tc-keep >$T/set_event_cgroup || fail "cannot set the top level's list"
trap 'echo > $T/set_event_cgroup; cleanup' EXIT

# expect_fail WANT ARGS... - trace-cmd ARGS fails and prints WANT (fixed string)
expect_fail() {
	local want=$1 out
	shift
	out=$("$TC" "$@" 2>&1) && fail "trace-cmd $* succeeded"
	echo "$out" | grep -qF -- "$want" || fail "trace-cmd $* said '$out', want '$want'"
	[ "$(cat $T/set_event_cgroup)" = /tc-keep ] && [ -z "$(cat $T/set_event_notrace_cgroup)" ] ||
		fail "trace-cmd $* changed the top level's lists"
}

expect_fail "--cgroup /tc-missing: no such cgroup" \
	record --cgroup /tc-keep --cgroup /tc-missing -e sched:sched_switch -o x.dat true
pass "a cgroup that does not exist: named, 'no such cgroup', lists unchanged"
expect_fail "--notrace-cgroup $T: no such cgroup" \
	record --cgroup /tc-keep --notrace-cgroup $T -e sched:sched_switch -o x.dat true
pass "a file system path, which names no cgroup: named, lists unchanged"
expect_fail "--cgroup nginx.service: systemd could not be asked" \
	record --cgroup nginx.service -e sched:sched_switch -o x.dat true
expect_fail "Give the unit's cgroup path instead, for example: --cgroup /system.slice/nginx.service" \
	record --cgroup nginx.service -e sched:sched_switch -o x.dat true
pass "a systemd unit without systemd: names the unit, says systemd could not be asked, suggests its path"
expect_fail "has no effect with the command extract" extract --cgroup /tc-keep -o x.dat
pass "extract refuses --cgroup"

# -C is the clock, as it always was
expect_fail "Clock /tc-keep is not supported" record -C /tc-keep -e sched:sched_switch -o x.dat true
"$TC" record -q -C global -e sched:sched_switch -o "$work/c.dat" true || fail "record -C global failed"
"$TC" report -i "$work/c.dat" --ts-diff >/dev/null 2>&1 || fail "report of the -C global recording failed"
# the clock the file was recorded with: the trace_clock file it saved
clock=$("$TC" dump --clock -i "$work/c.dat" 2>&1 | grep -o '\[[a-z0-9-]*\]')
[ "$clock" = "[global]" ] || fail "record -C global: the file's clock is '$clock', want [global]: $("$TC" dump --clock -i "$work/c.dat" 2>&1)"
pass "-C still takes a clock: the file was recorded with $clock"
