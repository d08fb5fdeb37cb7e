#!/bin/bash
# description: cgtrace record -G/-X set set_event_cgroup and
#   set_event_notrace_cgroup on the instance before tracing, the trace.dat
#   holds only those tasks, and an instance made beforehand is kept with
#   its filters cleared.
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
"$CGTRACE" record -q -G /cgt-a -X /cgt-a/sub -B cgt_rec -o "$work/a.dat" \
	-e sched:sched_process_exec --trace-cmd -b 600 -- \
	sh -c "$work/outsidesleep 2; cat $T/instances/cgt_rec/set_event_cgroup >$work/seen
		cat $T/instances/cgt_rec/set_event_notrace_cgroup >>$work/seen
		cat $T/instances/cgt_rec/buffer_size_kb >$work/bufsize"
rc=$?
[ "$rc" = 0 ] || fail "cgtrace record exited with $rc"
[ "$(cat "$work/seen" | tr '\n' ' ')" = "/cgt-a /cgt-a/sub " ] ||
	fail "while recording, set_event_cgroup and set_event_notrace_cgroup were '$(cat "$work/seen")', want /cgt-a, /cgt-a/sub"
pass "the instance's cgroup files are set while recording"
# the kernel rounds the size up to whole pages
awk '{ exit !($1 >= 600 && $1 < 700) }' "$work/bufsize" ||
	fail "--trace-cmd -b 600 did not reach trace-cmd (buffer_size_kb $(cat "$work/bufsize"))"
pass "--trace-cmd passes options through"
grep -q '^[0-9]* /cgt-a$' "$work/a.dat.cgroups" ||
	fail "a.dat.cgroups lists no task of /cgt-a"
pass "a.dat.cgroups maps pids to cgroups ($(wc -l <"$work/a.dat.cgroups") lines)"

report "$work/a.dat" >"$work/a.txt"
counts="$(grep -c abin "$work/a.txt") abin, $(grep -c subbin "$work/a.txt") subbin, $(wc -l <"$work/a.txt") lines"
have 1 "filename=$work/abin" "$work/a.txt" || fail "the cgroup's task is missing ($counts)"
# the loops also run sleep; the recorded command itself runs outsidesleep
# and cat outside /cgt-a, the other loop noisebin
n=$(grep -c 'sched_process_exec' "$work/a.txt")
m=$(grep -cE "filename=($work/abin|/(usr/)?bin/sleep) " "$work/a.txt")
[ "$n" = "$m" ] || { grep -v abin "$work/a.txt" | head; fail "$((n - m)) execs from outside /cgt-a recorded"; }
grep -qE 'outsidesleep|noisebin|bin/cat ' "$work/a.txt" && fail "tasks outside /cgt-a recorded"
grep -q subbin "$work/a.txt" && fail "-X /cgt-a/sub: the excluded sub cgroup was recorded"
pass "only /cgt-a recorded, without its -X sub cgroup ($counts)"

[ -d $T/instances/cgt_rec ] || fail "the existing instance was removed"
for f in set_event_cgroup set_event_notrace_cgroup; do
	[ -z "$(cat $T/instances/cgt_rec/$f)" ] || fail "$f left set on the existing instance"
done
pass "an existing instance is reused and kept, its filters cleared"
exit 0
