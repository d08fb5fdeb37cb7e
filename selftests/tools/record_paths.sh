#!/bin/bash
# description: the record and run paths no other test takes: -P, a
#   function tracer (-p function) with trace-cmd's -l, -B top (changes only
#   what it was told, restores it), a successful run --name/--parent, and
#   report --by thread (record_signals.sh: stopping without a command,
#   progress).
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

loop_in_cgroup cgt-p1 p1bin
loop_in_cgroup cgt-p2 p2bin
sleep 0.3
p1=$(head -1 $CG/cgt-p1/cgroup.procs)

# -P: set_event_pid, only that task (its forks), nothing of the other
# loop; not its children either (their execs), unless -c
"$CGTRACE" record -q -P "$p1" -e sched:sched_process_fork -e sched:sched_process_exec \
	-o "$work/pid.dat" -- sleep 1.5 || fail "record -P exited with $?"
report "$work/pid.dat" >"$work/pid.txt"
n=$(grep -c "sched_process_fork: .*pid=$p1 " "$work/pid.txt")
m=$(grep -c 'sched_process_fork:' "$work/pid.txt")
[ "$n" -ge 1 ] || fail "record -P $p1: none of its forks recorded"
[ "$n" = "$m" ] || { grep sched_process_fork "$work/pid.txt" | grep -v "pid=$p1 " | head -3
	fail "record -P $p1: $((m - n)) forks of other tasks recorded"; }
grep -q "filename=$work/p1bin" "$work/pid.txt" && fail "record -P without -c recorded its children's execs"
pass "-P $p1 records its $n forks, no other task's, not its children's"
"$CGTRACE" record -q -P "$p1" -c -e sched:sched_process_exec -o "$work/pidc.dat" \
	-- sh -c "cat $T/instances/cgtrace-*[0-9]/options/event-fork >$work/efork; sleep 1.5" ||
	fail "record -P -c exited with $?"
[ "$(cat "$work/efork")" = 1 ] || fail "-c: options/event-fork was $(cat "$work/efork") while recording"
grep -q "filename=$work/p1bin" <(report "$work/pidc.dat") || fail "record -P -c recorded no exec of $p1's children"
pass "-P $p1 -c records its children too (options/event-fork)"

# -P without a command ends when the process does, as trace-cmd -P
sleep 30 &
victim=$!
"$CGTRACE" record -q -P $victim -e sched:sched_process_exit -o "$work/end.dat" &
rec=$!
sleep 3
kill $victim
for i in $(seq 50); do kill -0 $rec 2>/dev/null || break; sleep 0.2; done
kill -0 $rec 2>/dev/null && { kill $rec; fail "record -P did not end when its process exited"; }
wait $rec || fail "record -P ended with status $? when its process exited"
grep -q "sched_process_exit: .*pid=$victim " <(report "$work/end.dat") ||
	fail "the process's exit is not in the trace"
pass "record -P without a command ends when the process exits, with its exit in the trace"

# -p function: set_ftrace_cgroup follows -G; only the cgroup's functions
# (the production kernel has the function tracer: config/base.config)
[ -e $T/set_ftrace_cgroup ] && grep -qw function $T/available_tracers ||
	fail "no function tracer or set_ftrace_cgroup on the patched kernel"
"$CGTRACE" record -q -G /cgt-p1 -p function -o "$work/fn.dat" \
	-l 'ksys_write' -l '__x64_sys_execve' -- \
	sh -c "sleep 1; cat $T/instances/cgtrace-*[0-9]/set_ftrace_cgroup >$work/fseen" ||
	fail "record -p function exited with $?"
grep -qx /cgt-p1 "$work/fseen" || fail "set_ftrace_cgroup was '$(cat "$work/fseen")' while recording, want /cgt-p1"
report "$work/fn.dat" | grep -E 'function: ' >"$work/fn.txt"
[ -s "$work/fn.txt" ] || fail "-p function recorded no function of /cgt-p1"
others=$(grep -vcE '(p1bin|sh|sleep)-[0-9]+ ' "$work/fn.txt")
[ "$others" = 0 ] || { grep -vE '(p1bin|sh|sleep)-[0-9]+ ' "$work/fn.txt" | head -3
	fail "-p function: $others functions of tasks outside /cgt-p1"; }
pass "-p function sets set_ftrace_cgroup; $(wc -l <"$work/fn.txt") functions, all of /cgt-p1"

# -B top: only the files it was told to change, and they are put back
old_cg=$(cat $T/set_event_cgroup)
echo /cgt-p2 >$T/set_event_notrace_cgroup
echo /cgt-p2 >$T/set_event_cgroup
echo 0 >$T/options/user_events_prctl || fail "cannot write the top level's options/user_events_prctl"
trap 'echo >$T/set_event_cgroup; echo >$T/set_event_notrace_cgroup; cleanup' EXIT
"$CGTRACE" record -B top -G /cgt-p1 -e sched:sched_process_exec -o "$work/top.dat" -- \
	sh -c "sleep 1.5; cat $T/set_event_cgroup $T/set_event_notrace_cgroup >$work/tseen
		cat $T/options/user_events_prctl >$work/pseen" \
	2>"$work/top.err" || { cat "$work/top.err"; fail "record -B top exited with $?"; }
tseen=$(tr '\n' ' ' <"$work/tseen")
[[ "$tseen" =~ ^/cgt-p1\ /cgtrace-meta-[0-9]+\ /cgt-p2\ $ ]] ||
	fail "while recording -B top: set_event_cgroup, set_event_notrace_cgroup were '$tseen'"
grep -q 'note: top keeps its set_event_notrace_cgroup: /cgt-p2' "$work/top.err" ||
	{ cat "$work/top.err"; fail "-B top: no note that set_event_notrace_cgroup stays"; }
[ "$(cat $T/set_event_cgroup)" = /cgt-p2 ] || fail "-B top: set_event_cgroup not restored"
[ "$(cat $T/set_event_notrace_cgroup)" = /cgt-p2 ] || fail "-B top: set_event_notrace_cgroup changed"
[ "$(cat "$work/pseen")" = 1 ] || fail "-B top: user_events_prctl was '$(cat "$work/pseen")' while recording, want 1"
[ "$(cat $T/options/user_events_prctl)" = 0 ] || fail "-B top: user_events_prctl left '$(cat $T/options/user_events_prctl)'"
report "$work/top.dat" | grep -q "filename=$work/p1bin" || fail "-B top recorded no exec of /cgt-p1"
echo "$old_cg" >$T/set_event_cgroup
echo >$T/set_event_notrace_cgroup
pass "-B top changes set_event_cgroup only while recording, notes what it keeps, restores"

# run --name/--parent: the new cgroup is PARENT/NAME while CMD runs
mkdir -p $CG/cgt-parent
cgroups+=(cgt-parent)
"$CGTRACE" run -q --name job1 --parent /cgt-parent -o "$work/run.dat" -- \
	sh -c "cat /proc/self/cgroup >$work/rcg; exit 3"
rc=$?
[ "$rc" = 3 ] || fail "run --name --parent exited with $rc, want the command's 3"
grep -qx '0::/cgt-parent/job1' "$work/rcg" || fail "run: the command ran in $(cat "$work/rcg"), want /cgt-parent/job1"
[ -d $CG/cgt-parent/job1 ] && fail "run: cgroup /cgt-parent/job1 left behind"
report "$work/run.dat" | grep -q 'sched_process_exec: .*filename=/bin/sh\|filename=/usr/bin/sh' ||
	fail "run: the command's exec is not in the trace"
pass "run --name job1 --parent /cgt-parent runs CMD in /cgt-parent/job1, exits with its status"

# report --by thread: two writer threads of one cgtrace run, 2 and 3 spans
[ -e $T/user_events ] && [ -d $T/events/user_markers ] || fail "no user_markers on the patched kernel"
"$CGTRACE" run -q -o "$work/thr.dat" -- sh -c "
	sh -c 'echo \$\$ >$work/w1; for i in 1 2; do echo B\|0\|job >$T/user_events; echo E\|0 >$T/user_events; done' &
	sh -c 'echo \$\$ >$work/w2; for i in 1 2 3; do echo B\|0\|job >$T/user_events; echo E\|0 >$T/user_events; done' &
	wait" || fail "run of two writers failed"
"$CGTRACE" report -i "$work/thr.dat" --by thread >"$work/thr.txt" ||
	fail "report --by thread failed"
w1=$(cat "$work/w1") w2=$(cat "$work/w2")
awk -v t="sh-$w1" '$1 == t && $2 == "job" && $3 == 2 { ok = 1 } END { exit !ok }' "$work/thr.txt" ||
	{ cat "$work/thr.txt"; fail "--by thread: no row sh-$w1 job 2"; }
awk -v t="sh-$w2" '$1 == t && $2 == "job" && $3 == 3 { ok = 1 } END { exit !ok }' "$work/thr.txt" ||
	{ cat "$work/thr.txt"; fail "--by thread: no row sh-$w2 job 3"; }
"$CGTRACE" report -i "$work/thr.dat" -s thread >"$work/thr2.txt"
cmp -s "$work/thr.txt" "$work/thr2.txt" || fail "-s thread (perf's letter) differs from --by thread"
pass "report --by thread: sh-$w1 2 spans, sh-$w2 3 spans"
exit 0
