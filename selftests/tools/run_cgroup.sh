#!/bin/bash
# description: cgtrace run traces the command and its children from their
#   first instruction, nothing of a concurrent loop in another cgroup, exits
#   with the command's status, and removes its cgroup and instance.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

loop_in_cgroup cgt-noise noisebin
cp /bin/true "$work/childbin"
cp /bin/true "$work/grandchildbin"
# An unfiltered instance records the noise loop's execs meanwhile: the
# positive control for "nothing of the noise cgroup in the run's trace".
all=$T/instances/cgt-noise-all
mkdir $all || fail "cannot make an instance"
trap 'rmdir $all 2>/dev/null; cleanup' EXIT
echo 1 >$all/events/sched/sched_process_exec/enable || fail "cannot enable sched_process_exec"

# The command waits until the noise loop ran once more while it is traced.
"$CGTRACE" run -q -o "$work/run.dat" -e sched:sched_process_exec \
	-e sched:sched_process_fork -e sched:sched_process_exit -- \
	sh -c "$work/wait-ticks $work/noisebin.ticks 2 || exit 9
		$work/childbin; sh -c '$work/grandchildbin; exit 0'; sleep 0.3; exit 7"
rc=$?
echo 0 >$all/tracing_on
[ "$rc" != 9 ] || fail "the noise loop did not run while the command was traced"
[ "$rc" = 7 ] || fail "exit status $rc, want the command's 7"
pass "exit status is the command's"

report "$work/run.dat" >"$work/run.txt"
have 1 'sched_process_exec: +filename=/(usr/)?bin/sh ' "$work/run.txt" ||
	fail "the command's own exec (sh) is missing: not traced from its start"
have 1 "sched_process_exec: +filename=$work/childbin" "$work/run.txt" ||
	fail "the child's exec is missing"
have 1 "sched_process_exec: +filename=$work/grandchildbin" "$work/run.txt" ||
	fail "the grandchild's exec is missing"
have 2 'sched_process_fork' "$work/run.txt" || fail "forks are missing"
pass "command, child and grandchild recorded ($(wc -l <"$work/run.txt") lines)"

n=$(grep -c "sched_process_exec: .*noisebin" $all/trace)
[ "$n" -gt 0 ] || fail "the unfiltered instance recorded no exec of the noise loop"
n=$(grep -c noisebin "$work/run.txt")
[ "$n" = 0 ] || { grep noisebin "$work/run.txt" | head -5; fail "$n events of the noise cgroup were recorded"; }
pass "no event of the concurrent loop in another cgroup (it ran meanwhile: an unfiltered instance saw it)"

ls -d $CG/cgtrace-run-* 2>/dev/null && fail "the run's cgroup was left behind"
ls -d $T/instances/cgtrace-* 2>/dev/null && fail "the run's instance was left behind"
pass "cgroup and instance removed"

exit 0
