#!/bin/bash
# description: -G and run --parent take a container id, full or the
#   12-digit short form (docker, podman, containerd, cgroupfs drivers),
#   resolved by those managers' naming conventions in a layout made by
#   hand, and pid:PID (the cgroup a process is in); no match, or several,
#   is an error that lists what was looked for, or found. (Systemd units
#   are asked of systemd: errors.sh checks the message where it does not
#   run.)
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

hex() { echo "$1" | sha256sum | cut -c1-64; }
docker=$(hex docker) podman=$(hex podman) cri=$(hex cri) kube=$(hex kube)
# two docker containers whose ids share their first 12 digits
twin1=abcdef012345$(hex twin1 | cut -c13-64) twin2=abcdef012345$(hex twin2 | cut -c13-64)
made=(
	system.slice system.slice/docker-$docker.scope
	system.slice/docker-$twin1.scope system.slice/docker-$twin2.scope
	machine.slice machine.slice/libpod-conmon-$podman.scope machine.slice/libpod-$podman.scope
	kubepods.slice kubepods.slice/kubepods-pod1.slice
	kubepods.slice/kubepods-pod1.slice/cri-containerd-$cri.scope
	kubepods kubepods/burstable kubepods/burstable/pod2 kubepods/burstable/pod2/$kube
	machine.slice/libpod-conmon-$(hex onlyconmon).scope
	cgt-bypid
)
for d in "${made[@]}"; do
	[ -e $CG/$d ] && skip "$CG/$d exists already: not a hand-made layout"
	mkdir $CG/$d || fail "cannot make $CG/$d"
done
cleanup_layout() {
	local i
	for i in "${bg_pids[@]}"; do kill "$i" 2>/dev/null; wait "$i" 2>/dev/null; done
	bg_pids=()
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		rmdir $CG/${made[i]}/cgtrace-run-* 2>/dev/null
		rmdir $CG/${made[i]} 2>/dev/null
	done
	cleanup
}
trap cleanup_layout EXIT
cp /bin/true "$work/dockerbin"
sh -c "echo \$\$ >$CG/system.slice/docker-$docker.scope/cgroup.procs; while :; do $work/dockerbin; sleep 0.3; done" &
bg_pids+=($!)
sh -c "echo \$\$ >$CG/cgt-bypid/cgroup.procs; exec sleep 60" &
bypid=$!
bg_pids+=($bypid)
sleep 0.3

# every form at once, in one recording; the kernel lists each cgroup once
"$CGTRACE" record -G ${docker:0:12} -G $docker -G ${podman:0:12} -G $cri -G ${kube:0:12} \
	-G pid:$bypid -e sched:sched_process_exec -o "$work/names.dat" -- \
	sh -c "sleep 1; cat $T/instances/cgtrace-*[0-9]/set_event_cgroup >$work/seen" \
	2>"$work/names.err" || { cat "$work/names.err"; fail "record with names exited with $?"; }
want=(
	/system.slice/docker-$docker.scope /machine.slice/libpod-$podman.scope
	/kubepods.slice/kubepods-pod1.slice/cri-containerd-$cri.scope
	/kubepods/burstable/pod2/$kube /cgt-bypid
)
for w in "${want[@]}"; do
	grep -qx "$w" "$work/seen" || { cat "$work/seen"; fail "set_event_cgroup lacks $w"; }
done
n=$(grep -vc '^/cgtrace-meta-' "$work/seen")
[ "$n" = ${#want[@]} ] || { cat "$work/seen"; fail "set_event_cgroup holds $n cgroups, want ${#want[@]}"; }
grep -q "^cgtrace: ${docker:0:12} is cgroup /system.slice/docker-$docker.scope$" "$work/names.err" &&
	grep -q "^cgtrace: pid:$bypid is cgroup /cgt-bypid$" "$work/names.err" ||
	{ cat "$work/names.err"; fail "no line saying what a name resolved to"; }
report "$work/names.dat" | grep -q "filename=$work/dockerbin" ||
	fail "the container's task is not in the trace"
pass "short and full container ids of 4 managers and pid:PID resolve (${#want[@]} cgroups), the container's task recorded"

expect_error() { # message-regex command...
	expect 125 "$@"
	no_leftovers "'$*'"
}
expect_error "0123456789ab: no such cgroup: looked for a cgroup below $CG named docker-0123456789ab\*.scope \(docker\), libpod-0123456789ab\*.scope \(podman\)" \
	"$CGTRACE" record -q -G 0123456789ab -- true
grep -q 'cri-containerd-0123456789ab\*.scope (containerd), crio-0123456789ab\*.scope (CRI-O)' "$work/out" ||
	{ cat "$work/out"; fail "the containerd and CRI-O names are not listed"; }
c=$(hex onlyconmon)
expect_error "${c:0:12}: no such cgroup" "$CGTRACE" record -q -G ${c:0:12} -- true
pass "no match names what was looked for (podman's conmon scope is not the container)"

expect_error "abcdef012345 matches 2 cgroups; name one by its path" \
	"$CGTRACE" record -q -G abcdef012345 -- true
grep -q "$CG/system.slice/docker-$twin1.scope" "$work/out" &&
	grep -q "$CG/system.slice/docker-$twin2.scope" "$work/out" ||
	{ cat "$work/out"; fail "the two matching containers are not listed"; }
"$CGTRACE" record -q -G ${twin1:0:13} -e sched:sched_process_exec -o "$work/t.dat" -- true ||
	fail "13 digits of twin1 (unique) did not resolve"
pass "several matches are an error listing them; a longer prefix picks one"

# run --parent takes the same names: CMD runs below the container's cgroup
"$CGTRACE" run -q --parent ${docker:0:12} --name job -o "$work/run.dat" -- \
	sh -c "cat /proc/self/cgroup >$work/rcg" || fail "run --parent CONTAINER failed"
grep -qx "0::/system.slice/docker-$docker.scope/job" "$work/rcg" ||
	fail "run --parent ${docker:0:12} ran in $(cat "$work/rcg")"
expect_error "0123456789ab: no such cgroup" "$CGTRACE" run -q --parent 0123456789ab -- true
pass "run --parent takes a container id"
exit 0
