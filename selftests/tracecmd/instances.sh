#!/bin/bash
# description: trace-cmd record -B X --cgroup A -B Y --cgroup B records
#   each cgroup in its own instance only, leaves the top level's filter
#   alone, and trace-cmd report shows both buffers.
. "$(dirname "$0")/lib"
no_cgroup_filter

mkcg tc-a tc-b
loop_in tc-a abin
loop_in tc-b bbin
echo /tc-b >$T/set_event_notrace_cgroup || fail "cannot set the top level's notrace list"
trap 'echo > $T/set_event_notrace_cgroup; cleanup' EXIT

"$TC" record -q -B tc_ia --cgroup /tc-a -e sched:sched_process_exec \
	-B tc_ib --cgroup /tc-b -e sched:sched_process_exec \
	-o "$work/i.dat" sh -c "$work/wait-ticks abin 3 && $work/wait-ticks bbin 3" ||
	fail "record with two instances exited with $?"
"$TC" report -i "$work/i.dat" >"$work/i.txt" 2>/dev/null || fail "report failed"
ia_a=$(count "^ *tc_ia:.*filename=$work/abin " "$work/i.txt")
ia_b=$(count "^ *tc_ia:.*bbin" "$work/i.txt")
ib_b=$(count "^ *tc_ib:.*filename=$work/bbin " "$work/i.txt")
ib_a=$(count "^ *tc_ib:.*abin" "$work/i.txt")
echo "$name: tc_ia: $ia_a execs of abin, $ia_b of bbin; tc_ib: $ib_b of bbin, $ib_a of abin"
[ "$ia_a" -ge 3 ] && [ "$ia_b" = 0 ] || fail "buffer tc_ia (--cgroup /tc-a) is wrong"
[ "$ib_b" -ge 3 ] && [ "$ib_a" = 0 ] || fail "buffer tc_ib (--cgroup /tc-b) is wrong"
pass "two instances, two cgroups: each buffer holds its own cgroup only"
[ "$(cat $T/set_event_notrace_cgroup)" = /tc-b ] && [ -z "$(cat $T/set_event_cgroup)" ] ||
	fail "the top level's cgroup lists changed"
[ ! -d $T/instances/tc_ia ] && [ ! -d $T/instances/tc_ib ] || fail "the instances are left behind"
pass "the top level's lists are untouched, the instances removed"
