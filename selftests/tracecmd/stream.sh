#!/bin/bash
# description: trace-cmd stream --cgroup and trace-cmd profile --cgroup
#   see the listed cgroup only: stream prints its events as they come and
#   none of a neighbour that runs meanwhile; profile reports its tasks
#   and none of the neighbour's.
. "$(dirname "$0")/lib"
no_cgroup_filter

mkcg tc-a tc-b
loop_in tc-a abin
loop_in tc-b bbin

# show_stuck PID - what trace-cmd PID and its recorders are doing: each
# task's state, kernel wait channel and stack, blocked signals (a handler
# runs with its own blocked) and trace_pipe_raw's file flags (O_NONBLOCK
# is 04000), and the output so far (a parent still running, R, is slow;
# one sleeping in the kernel is stuck)
show_stuck() {
	local t
	for t in "$1" $(pgrep -P "$1"); do
		echo "$name: task $t: $(awk '{ print "state", $3 }' /proc/$t/stat 2>/dev/null)" \
			"wchan $(cat /proc/$t/wchan 2>/dev/null): $(tr '\0' ' ' </proc/$t/cmdline 2>/dev/null)"
		sed "s/^/$name:   /" /proc/$t/stack 2>/dev/null
		echo "$name:   $(grep SigBlk /proc/$t/status 2>/dev/null)" \
			"$(for f in /proc/$t/fd/*; do case $(readlink "$f") in *trace_pipe_raw)
				echo "$(readlink "$f") $(grep flags "/proc/$t/fdinfo/${f##*/}")" ;; esac; done)"
	done
	echo "$name: output so far: $(wc -c <"$work/out.txt") bytes; stderr: $(tail -3 "$work/out.err")"
}

# interrupt PID WHAT - SIGINT trace-cmd PID as a user's Ctrl-C does, and
# wait until it ends: 4 to 8 s in a guest with 4 CPUs, idle or with the
# host's other CPU busy; allow 120 s for make check's other guests and
# builds. One that does not end is reported with what its tasks are doing
# (a recorder whose flush blocked in a signal handler: libtracefs before
# its patch 5), and killed with its recorders, which would otherwise keep
# the trace files busy for the tests after this one.
interrupt() {
	local i t0=$SECONDS
	kill -INT "$1"
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		show_stuck "$1"
		pkill -KILL -P "$1"
		kill -KILL "$1"
		fail "$2 did not end 120 s after SIGINT"
	fi
	wait "$1" || fail "$2 exited with $?: $(tail -3 "$work/out.err")"
	echo "$name: $2 ended $((SECONDS - t0)) s after SIGINT"
}

# run_until_both CMD... - run trace-cmd CMD in the background until both
# loops ran 10 more rounds, then interrupt it
run_until_both() {
	local p
	"$TC" "$@" >"$work/out.txt" 2>"$work/out.err" &
	p=$!
	sleep 1
	"$work/wait-ticks" abin 10 && "$work/wait-ticks" bbin 10 ||
		fail "the loops did not run"
	interrupt "$p" "trace-cmd $*"
}

run_until_both stream --cgroup /tc-a -e sched:sched_process_exec
a=$(count "sched_process_exec: +filename=$work/abin " "$work/out.txt")
b=$(count "bbin" "$work/out.txt")
[ "$a" -ge 1 ] && [ "$b" = 0 ] ||
	fail "stream --cgroup /tc-a: $a execs of abin (want some), $b lines of bbin (want 0)"
pass "stream --cgroup /tc-a: $a execs of abin, nothing of /tc-b, which ran 10 rounds meanwhile"

# A cgroup that went quiet: SIGINT must still end stream (the recorders
# flush their last partial pages and exit, and stream reads until their
# pipes close), and every event of the cgroup must have been shown.
# Upstream's last read waited for one more record, which never came.
mkcg tc-q
for i in 1 2 3 4 5; do cp /bin/true "$work/q$i"; done
echo 0 >$T/tracing_on
"$TC" stream --cgroup /tc-q -e sched:sched_process_exec >"$work/out.txt" 2>"$work/out.err" &
p=$!
# tracing_on turns 1 after the recorders started and the events are enabled
for ((i = 0; i < 600; i++)); do
	[ "$(cat $T/events/sched/sched_process_exec/enable)" = 1 ] &&
		[ "$(cat $T/tracing_on)" = 1 ] && break
	sleep 0.1
done
[ "$i" -lt 600 ] || fail "stream --cgroup /tc-q did not start tracing in 60 s"
sh -c "echo \$\$ > $CG/tc-q/cgroup.procs; for i in 1 2 3 4 5; do $work/q\$i; done"
# SIGINT once the recorders took every event from the ring buffer and
# stream had a second to read them: nothing is left in flight
for ((i = 0; i < 600; i++)); do
	[ "$(awk '/^entries:/ { n += $2 } END { print n }' $T/per_cpu/cpu*/stats)" = 0 ] && break
	sleep 0.1
done
sleep 1
interrupt "$p" "trace-cmd stream --cgroup /tc-q (quiet since its 5 execs)"
for i in 1 2 3 4 5; do
	n=$(count "sched_process_exec: +filename=$work/q$i " "$work/out.txt")
	[ "$n" = 1 ] || fail "stream --cgroup /tc-q: $n execs of q$i shown (want 1): $(cat "$work/out.txt")"
done
pass "stream --cgroup /tc-q, quiet after 5 execs: ends on SIGINT and shows each exec once"

# profile: its own events (switches, wakeups, syscalls, function_graph at
# depth 1), by task. Switches are kept when either task is traced (as
# with set_event_pid), so the other task of a kept switch is listed too:
# what shows that profile filters is the filter it set while it ran, and
# the cgroup's tasks in its report; the filtering itself is stream's and
# record's (same code).
while sleep 0.2; do cat $T/set_event_cgroup; done >"$work/seen.txt" 2>/dev/null &
bg_pids+=($!)
run_until_both profile --cgroup /tc-b
kill "${bg_pids[-1]}"
grep -qx /tc-b "$work/seen.txt" ||
	fail "profile --cgroup /tc-b: set_event_cgroup never read /tc-b while it ran"
[ -z "$(cat $T/set_event_cgroup)" ] ||
	fail "profile left set_event_cgroup as $(cat $T/set_event_cgroup)"
b=$(count "^task: bbin-" "$work/out.txt")
[ "$b" -ge 1 ] || fail "profile --cgroup /tc-b: no task named bbin reported"
pass "profile --cgroup /tc-b: the filter set while it ran and cleared after, $b bbin tasks reported"
