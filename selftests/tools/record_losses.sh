#!/bin/bash
# description: what cgtrace says was lost is what was lost, per CPU: none
#   when every marker the kernel recorded is in the file; the buffer's
#   overwritten and refused events when its readers stall; and events the
#   buffer held that the file lacks (another reader took them, or trace-cmd
#   left them unread), counted from the buffer with tracing off against
#   the file.
# requires: set_event_cgroup, user_markers, trace-cmd, taskset, 2 CPUs
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
[ -d $T/events/user_markers ] && [ -e $T/user_events ] || skip "kernel has no user_markers"
command -v taskset >/dev/null || fail "taskset (util-linux) is not installed"
[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs (scripts/vm-run --smp 2, the default)"

# flood N - a shell loop writing N instant markers on CPU 1 (builtins only)
flood() {
	echo "taskset -c 1 sh -c 'i=0; while [ \$i -lt $1 ]; do echo \"I|0|m\"; i=\$((i + 1)); done >$T/user_events'"
}
# in_file FILE - the instant markers trace-cmd report reads in FILE
in_file() { trace-cmd report -i "$1" 2>/dev/null | grep -c ' instant: '; }

# No loss: every marker the kernel recorded is in the file
taskset -c 0 "$CGTRACE" run -o "$work/ok.dat" -e user_markers -- sh -c "$(flood 2000)" \
	2>"$work/ok.err" || { cat "$work/ok.err"; fail "the recording failed"; }
grep -q "^cgtrace: wrote $work/ok.dat: [0-9]* events, [0-9]* bytes; no event lost$" "$work/ok.err" ||
	{ cat "$work/ok.err"; fail "no 'no event lost' summary"; }
rec=$(marker_count "$work/ok.err" recorded) got=$(in_file "$work/ok.dat")
[ "$rec" = 2000 ] && [ "$got" = 2000 ] ||
	{ cat "$work/ok.err"; fail "'no event lost', but the kernel recorded ${rec:-?} of 2000 markers and the file holds $got"; }
pass "'no event lost': the kernel recorded 2000 markers and the file holds 2000"

# lost_line FILE.err CPU FIELD - a count of cgtrace's line for one CPU
lost_line() {
	sed -n "s/^cgtrace:   cpu$2: \([0-9]*\) overwritten, \([0-9]*\) refused by a full buffer, \([0-9]*\) lost to nested writes, \([0-9]*\) missing from the file$/\\$3/p" "$1"
}
# The readers stalled (SIGSTOP) while CPU 1 writes 3000 markers into a
# buffer of 8 KiB: overwritten (overwrite on), or refused (off)
stall='tc=$(ps -o ppid= -p $PPID | tr -d " "); readers=$(pgrep -P $tc | grep -vx $PPID)
	kill -STOP $readers; '"$(flood 3000)"'; kill -CONT $readers'
for mode in overwrite nooverwrite; do
	taskset -c 0 "$CGTRACE" run -o "$work/$mode.dat" -b 8 -O $mode -e user_markers -- \
		sh -c "$stall" 2>"$work/$mode.err" || { cat "$work/$mode.err"; fail "$mode: the recording failed"; }
	rec=$(marker_count "$work/$mode.err" recorded) dropped=$(marker_count "$work/$mode.err" buffer_dropped)
	got=$(in_file "$work/$mode.dat")
	over=$(lost_line "$work/$mode.err" 1 1) refused=$(lost_line "$work/$mode.err" 1 2)
	nested=$(lost_line "$work/$mode.err" 1 3) missing=$(lost_line "$work/$mode.err" 1 4)
	[ -n "$over" ] || { cat "$work/$mode.err"; fail "$mode: no line of what CPU 1 lost"; }
	echo "$name: $mode: 3000 written, $rec recorded ($dropped refused), $got in the file; cpu1: $over overwritten, $refused refused, $missing missing"
	# markers the kernel refused are not in "recorded": count all 3000
	lost=$((over + refused + nested + missing))
	[ $((got + lost)) = 3000 ] ||
		{ cat "$work/$mode.err"; fail "$mode: $got in the file + $lost lost on CPU 1 is not the 3000 written"; }
	if [ $mode = overwrite ]; then
		[ "$over" -gt 0 ] || fail "overwrite: nothing overwritten: the readers did not stall"
	else
		[ "$refused" -gt 0 ] && [ "$refused" = "$dropped" ] ||
			fail "nooverwrite: $refused refused, the kernel's marker count says $dropped"
	fi
	total=$(sed -n 's/^cgtrace: wrote .*; \([0-9]*\) events lost:$/\1/p' "$work/$mode.err")
	sum=$(sed -n 's/^cgtrace:   cpu[0-9]*: \([0-9]*\) overwritten, \([0-9]*\) refused by a full buffer, \([0-9]*\) lost to nested writes, \([0-9]*\) missing from the file$/\1 \2 \3 \4/p' \
		"$work/$mode.err" | awk '{ s += $1 + $2 + $3 + $4 } END { print s + 0 }')
	[ "$total" = "$sum" ] || fail "$mode: the total lost ($total) is not the sum of the CPUs' ($sum)"
done
pass "stalled readers: every marker is in the file or counted lost on its CPU (overwritten, refused)"

# Events the buffer held that the file lacks: the command takes 3 itself
# (a read of trace_pipe consumes them). The instance exists beforehand
# and trace-cmd keeps its buffer (-k): what trace-cmd left unread stays
# counted there, so the file lacks 3 + that.
mkdir $T/instances/cgt-loss || fail "cannot make an instance"
trap 'rmdir $T/instances/cgt-loss 2>/dev/null; cleanup' EXIT
take='for k in 1 2 3; do read -r line <'$T/instances/cgt-loss/trace_pipe'; echo "$line" >>'$work/taken'; done'
taskset -c 0 "$CGTRACE" run -B cgt-loss -k -o "$work/take.dat" -e user_markers -- \
	sh -c "$(flood 20); $take" 2>"$work/take.err" || { cat "$work/take.err"; fail "the recording failed"; }
[ "$(wc -l <"$work/taken")" = 3 ] || fail "the command took $(wc -l <"$work/taken") events, not 3"
left=$(cat $T/instances/cgt-loss/per_cpu/cpu*/stats | awk '/^entries:/ { s += $2 } END { print s + 0 }')
missing=$(sed -n 's/^cgtrace:   cpu[0-9]*: .*, \([0-9]*\) missing from the file$/\1/p' "$work/take.err" |
	awk '{ s += $1 } END { print s + 0 }')
echo 0 >$T/instances/cgt-loss/events/enable
[ "$missing" = $((3 + left)) ] ||
	{ cat "$work/take.err"; fail "cgtrace says $missing events are missing from the file, want 3 taken + $left left in the buffer"; }
pass "the file lacks $missing events the buffer held: the 3 another reader took, and $left trace-cmd left there"
exit 0
