#!/bin/bash
# description: cgtrace finds cgroup2 through libmount: a cgroup2 mount
#   whose path holds a space (mountinfo writes it "\040") works for run and
#   record -G, and so does a cgroup whose name holds a space (written to
#   the kernel as id:N, which the white-space separated files need).
# requires: set_event_cgroup, trace-cmd, unshare
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
command -v unshare >/dev/null || skip "no unshare (util-linux)"

cp /bin/true "$work/spacebin"
# in a mount namespace of its own: cgroup2 only at "$work/cg root"
unshare -m --propagation private bash -s "$CGTRACE" "$work" "$T" <<'EOF' >"$work/out" 2>&1
CGTRACE=$1 work=$2 T=$3
fail() { echo "FAIL: $*"; exit 1; }
umount /sys/fs/cgroup || fail "cannot unmount /sys/fs/cgroup"
root="$work/cg root"
mkdir -p "$root"
mount -t cgroup2 none "$root" || fail "cannot mount cgroup2 at $root"
grep -q 'cg\\040root ' /proc/self/mountinfo || fail "mountinfo does not escape the space"

"$CGTRACE" run -q --name spaced -o "$work/run.dat" -- sh -c "cat /proc/self/cgroup >$work/rcg" ||
	fail "run under a cgroup2 mount with a space failed"
grep -qx '0::/spaced' "$work/rcg" || fail "run: the command ran in $(cat "$work/rcg"), want /spaced"
[ -d "$root/spaced" ] && fail "run left $root/spaced"
echo "ok: run makes and removes its cgroup below \"$root\""

mkdir "$root/cgt sp" || fail "cannot make a cgroup named with a space"
sh -c "echo \$\$ >'$root/cgt sp/cgroup.procs'; while :; do $work/spacebin; sleep 0.3; done" &
loop=$!
"$CGTRACE" record -q -G "$root/cgt sp" -e sched:sched_process_exec -o "$work/rec.dat" -- \
	sh -c "sleep 1.5; cat $T/instances/cgtrace-*[0-9]/set_event_cgroup >$work/seen"
rc=$?
kill $loop
wait $loop 2>/dev/null
sleep 0.1
rmdir "$root/cgt sp"
[ "$rc" = 0 ] || fail "record -G '$root/cgt sp' exited with $rc"
# the kernel prints the space as it is, or escaped as mountinfo does
grep -qx '/cgt sp\|/cgt\\040sp' "$work/seen" || fail "set_event_cgroup was '$(cat "$work/seen")', want '/cgt sp'"
trace-cmd report "$work/rec.dat" 2>/dev/null | grep -q "filename=$work/spacebin" ||
	fail "the task of '/cgt sp' is not in the trace"
trace-cmd report "$work/rec.dat" 2>/dev/null | grep -q "cgtrace-meta cgroup [0-9]* /cgt sp$" ||
	fail "the trace does not note the task's cgroup '/cgt sp'"
echo "ok: record -G \"$root/cgt sp\" filters the cgroup named with a space"
EOF
rc=$?
sed "s/^/$name: /" "$work/out"
[ "$rc" = 0 ] || fail "in the mount namespace (status $rc)"
pass "a cgroup2 mount and a cgroup whose paths hold a space"
exit 0
