#!/bin/bash
# description: cgtrace record -G sets set_event_cgroup on its instance
#   before tracing, and the trace.dat holds only that cgroup's tasks; -X
#   excludes a cgroup; a reused instance keeps existing, filters cleared.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

loop_in_cgroup cgt-a abin
loop_in_cgroup cgt-b noisebin
mkdir -p $CG/cgt-a/sub
cgroups=(cgt-a/sub "${cgroups[@]}")
cp /bin/true "$work/subbin"
cp /bin/sleep "$work/outsidesleep"
sh -c "echo \$\$ > $CG/cgt-a/sub/cgroup.procs; while :; do $work/subbin; sleep 0.05; done" &
bg_pids+=($!)
sleep 0.2

"$CGTRACE" record -q -G /cgt-a -B cgt_rec -o "$work/a.dat" \
	-e sched:sched_process_exec -- \
	sh -c "$work/outsidesleep 0.5; cat $T/instances/cgt_rec/set_event_cgroup >$work/seen"
rc=$?
[ "$rc" = 0 ] || fail "cgtrace record exited with $rc"
[ "$(cat "$work/seen")" = /cgt-a ] ||
	fail "instance set_event_cgroup was '$(cat "$work/seen")' while recording, want /cgt-a"
pass "set_event_cgroup of the instance is /cgt-a while recording"

report "$work/a.dat" >"$work/a.txt"
have 3 "filename=$work/abin" "$work/a.txt" || fail "the cgroup's task is missing"
have 1 "filename=$work/subbin" "$work/a.txt" || fail "the descendant cgroup's task is missing"
# the sub cgroup's loop also runs sleep; the recorded command itself runs
# outsidesleep and cat outside /cgt-a, the other loop noisebin
n=$(grep -c 'sched_process_exec' "$work/a.txt")
m=$(grep -cE "filename=($work/(abin|subbin)|/(usr/)?bin/sleep) " "$work/a.txt")
[ "$n" = "$m" ] || { grep -vE "abin|subbin" "$work/a.txt" | head; fail "$((n - m)) execs from outside /cgt-a recorded"; }
grep -qE 'outsidesleep|noisebin|bin/cat ' "$work/a.txt" && fail "tasks outside /cgt-a recorded"
pass "only /cgt-a and its descendants recorded ($m execs)"
[ -d $T/instances/cgt_rec ] && fail "instance cgt_rec left behind"

# -X: the whole of cgt-a but its sub cgroup
"$CGTRACE" record -q -G /cgt-a -X /cgt-a/sub -B cgt_rec -o "$work/x.dat" \
	-e sched:sched_process_exec -- sleep 0.4 || fail "record -X failed"
report "$work/x.dat" >"$work/x.txt"
have 1 "filename=$work/abin" "$work/x.txt" || fail "-X dropped the parent cgroup"
grep -q subbin "$work/x.txt" && fail "-X /cgt-a/sub: sub cgroup still recorded"
pass "-X excludes a descendant cgroup"

# an instance that exists beforehand is reused and kept, our filters cleared
mkdir $T/instances/cgt_keep
"$CGTRACE" record -q -G /cgt-b -B cgt_keep -o "$work/k.dat" \
	-e sched:sched_process_exec -- sleep 0.3 || fail "record into an existing instance failed"
report "$work/k.dat" | grep -q "filename=$work/noisebin" || fail "nothing recorded into the existing instance"
[ -d $T/instances/cgt_keep ] || fail "the existing instance was removed"
[ -z "$(cat $T/instances/cgt_keep/set_event_cgroup)" ] || fail "filters left on the existing instance"
rmdir $T/instances/cgt_keep
pass "an existing instance is reused and kept"
exit 0
