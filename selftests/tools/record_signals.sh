#!/bin/bash
# description: a recording without a command ends on SIGINT (sent to
#   cgtrace, or to its whole process group as a terminal's Ctrl-C does)
#   and on SIGTERM, writes its trace and leaves nothing behind; progress
#   lines go to stderr off a terminal at the pace asked; -q prints nothing.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

loop_in_cgroup cgt-p1 p1bin
sleep 0.3

# no command: SIGINT (kill, and Ctrl-C to the whole process group) and
# SIGTERM stop the recording, which is written out; nothing is left
for how in INT INT-group TERM; do
	setsid "$CGTRACE" record -G /cgt-p1 -e sched:sched_process_exec \
		-o "$work/sig.dat" --progress 1 2>"$work/sig.err" &
	rec=$!
	# once events come in (trace-cmd started: slow after a function
	# tracer run), 3 s more: several rounds of the loop
	for i in $(seq 60); do
		grep -q 'recording .*: [1-9][0-9]* events' "$work/sig.err" && break
		sleep 0.5
	done
	sleep 3
	case $how in
	INT-group) kill -INT -- -$rec ;;
	*) kill -$how $rec ;;
	esac
	wait $rec
	rc=$?
	[ "$rc" = 0 ] || { cat "$work/sig.err"; fail "SIG$how: record exited with $rc"; }
	report "$work/sig.dat" | grep -q "filename=$work/p1bin" ||
		{ cat "$work/sig.err"; report "$work/sig.dat" | head; echo "in /cgt-p1: $(cat $CG/cgt-p1/cgroup.procs)"
		  ps -eo pid,pgid,sid,stat,args | grep -v '\[' | tail -20
		  fail "SIG$how: the trace holds no exec of /cgt-p1"; }
	ls -d $T/instances/cgtrace-* $CG/cgtrace-meta-* 2>/dev/null &&
		fail "SIG$how: an instance or cgroup was left behind"
	# progress goes to stderr off a terminal too, at the pace asked
	n=$(grep -c '^cgtrace: recording [0-9]*s: [0-9]* events, [0-9]* lost$' "$work/sig.err")
	[ "$n" -ge 3 ] || { cat "$work/sig.err"; fail "SIG$how: $n progress lines in 3 s or more with --progress 1"; }
done
pass "SIGINT, a process group's SIGINT and SIGTERM end a recording without a command; progress lines on a log"

# -q: no progress, no summary
"$CGTRACE" record -q -G /cgt-p1 -e sched:sched_process_exec -o "$work/q.dat" \
	--progress 1 -- sleep 2 2>"$work/q.err"
[ ! -s "$work/q.err" ] || { cat "$work/q.err"; fail "-q printed something"; }
pass "-q prints nothing"

exit 0
