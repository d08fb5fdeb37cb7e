#!/bin/bash
# description: cgtrace record -G/-X set set_event_cgroup and
#   set_event_notrace_cgroup on the instance before tracing, the trace.dat
#   holds only those tasks and notes their cgroups, and an instance made
#   beforehand is kept with every file cgtrace wrote restored and the ones
#   it was not asked to touch left alone.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

loop_in_cgroup cgt-a abin
loop_in_cgroup cgt-b noisebin
mkdir -p $CG/cgt-a/sub
cgroups=(cgt-a/sub "${cgroups[@]}")
cp /bin/true "$work/subbin"
cp /bin/sleep "$work/outsidesleep"
sh -c "echo \$\$ > $CG/cgt-a/sub/cgroup.procs; while :; do $work/subbin; sleep 0.5; done" &
bg_pids+=($!)
sleep 0.2

# One recording (trace-cmd is slow on the debug kernel): into an instance
# made beforehand, /cgt-a but not its sub cgroup
mkdir $T/instances/cgt_rec || fail "cannot make an instance"
trap 'rmdir $T/instances/cgt_rec 2>/dev/null; cleanup' EXIT
# what the instance held before: cgtrace must give it back
i=$T/instances/cgt_rec
# (the patched kernel has all three files: a missing one fails)
echo /cgt-b >$i/set_event_cgroup
echo /cgt-b >$i/set_ftrace_cgroup || fail "cannot write the instance's set_ftrace_cgroup"
echo 0 >$i/options/user_events_prctl || fail "cannot write the instance's options/user_events_prctl"
"$CGTRACE" record -q -G /cgt-a -X /cgt-a/sub -B cgt_rec -o "$work/a.dat" \
	-e sched:sched_process_exec -b 600 -- \
	sh -c "$work/outsidesleep 2; cat $T/instances/cgt_rec/set_event_cgroup >$work/seen
		cat $T/instances/cgt_rec/set_event_notrace_cgroup >>$work/seen
		cat $T/instances/cgt_rec/buffer_size_kb >$work/bufsize
		cat $T/instances/cgt_rec/set_ftrace_cgroup >$work/seen_ftrace
		cat $T/instances/cgt_rec/options/user_events_prctl >$work/seen_prctl"
rc=$?
[ "$rc" = 0 ] || fail "cgtrace record exited with $rc"
# set_event_cgroup also lists the cgroup of cgtrace's note writer
seen=$(cat "$work/seen" | tr '\n' ' ')
[[ "$seen" =~ ^/cgt-a\ /cgtrace-meta-[0-9]+\ /cgt-a/sub\ $ ]] ||
	fail "while recording, set_event_cgroup and set_event_notrace_cgroup were '$seen', want /cgt-a (and /cgtrace-meta-PID), /cgt-a/sub"
pass "the instance's cgroup files are set while recording"
# the kernel rounds the size up to whole pages
awk '{ exit !($1 >= 600 && $1 < 700) }' "$work/bufsize" ||
	fail "-b 600 did not reach trace-cmd (buffer_size_kb $(cat "$work/bufsize"))"
pass "trace-cmd's -b passes through"
report "$work/a.dat" >"$work/a.txt"
# the cgroup of each task is noted inside the trace, in the companion buffer
[ ! -e "$work/a.dat.cgroups" ] || fail "a.dat.cgroups written beside the trace"
n=$(grep -cE 'cgtrace-meta cgroup [0-9]+ /cgt-a$' "$work/a.txt")
[ "$n" -ge 1 ] || { grep cgtrace-meta "$work/a.txt" | head; fail "the trace notes no task of /cgt-a"; }
grep -qE 'cgtrace-meta cgroup [0-9]+ /cgt-a/sub$' "$work/a.txt" &&
	fail "a task of the -X cgroup is noted as traced"
grep -qE 'cgtrace-meta host .' "$work/a.txt" || fail "the trace does not name its host"
have 1 'cgtrace-meta clock [0-9]{19}' "$work/a.txt" || fail "the trace holds no clock sample"
pass "the trace notes its host, clock samples and $n tasks of /cgt-a"
counts="$(grep -c abin "$work/a.txt") abin, $(grep -c subbin "$work/a.txt") subbin, $(wc -l <"$work/a.txt") lines"
have 1 "filename=$work/abin" "$work/a.txt" || fail "the cgroup's task is missing ($counts)"
# the loops also run sleep; the recorded command itself runs outsidesleep
# and cat outside /cgt-a, the other loop noisebin
n=$(grep -c 'sched_process_exec' "$work/a.txt")
m=$(grep -cE "filename=($work/abin|/(usr/)?bin/sleep) " "$work/a.txt")
[ "$n" = "$m" ] || { grep -v abin "$work/a.txt" | head; fail "$((n - m)) execs from outside /cgt-a recorded"; }
grep -v cgtrace-meta "$work/a.txt" | grep -qE 'outsidesleep|noisebin|bin/cat ' &&
	fail "tasks outside /cgt-a recorded"
grep -q subbin "$work/a.txt" && fail "-X /cgt-a/sub: the excluded sub cgroup was recorded"
pass "only /cgt-a recorded, without its -X sub cgroup ($counts)"

[ -d $i ] || fail "the existing instance was removed"
[ "$(cat $i/set_event_cgroup)" = /cgt-b ] ||
	fail "set_event_cgroup is '$(cat $i/set_event_cgroup)' after the recording, want /cgt-b back"
[ -z "$(cat $i/set_event_notrace_cgroup)" ] || fail "set_event_notrace_cgroup left set"
[ "$(cat "$work/seen_ftrace")" = /cgt-b ] ||
	fail "set_ftrace_cgroup was '$(cat "$work/seen_ftrace")' while recording without a function tracer, want /cgt-b untouched"
[ "$(cat $i/set_ftrace_cgroup)" = /cgt-b ] || fail "set_ftrace_cgroup changed: '$(cat $i/set_ftrace_cgroup)'"
[ "$(cat "$work/seen_prctl")" = 1 ] || fail "user_events_prctl was '$(cat "$work/seen_prctl")' while recording, want 1"
[ "$(cat $i/options/user_events_prctl)" = 0 ] || fail "user_events_prctl left '$(cat $i/options/user_events_prctl)'"
ls -d $CG/cgtrace-meta-* 2>/dev/null && fail "the notes writer's cgroup was left behind"
ls -d $T/instances/cgtrace-* 2>/dev/null && fail "an instance cgtrace-PID was made, though -B names one"
pass "an existing instance is kept, what cgtrace wrote restored, the rest untouched"
exit 0
