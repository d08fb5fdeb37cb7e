#!/bin/bash
# description: -G and run --parent take what an SRE knows: a systemd unit
#   (nginx.service, user@1000.service, a-b.slice, a unit outside
#   system.slice) or a container id, full or the 12-digit short form
#   (docker, podman, containerd, cgroupfs drivers), resolved by those
#   managers' naming conventions in a layout made by hand; no match, or
#   several, is an error that lists what was looked for, or found.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

hex() { echo "$1" | sha256sum | cut -c1-64; }
docker=$(hex docker) podman=$(hex podman) cri=$(hex cri) kube=$(hex kube)
# two docker containers whose ids share their first 12 digits
twin1=abcdef012345$(hex twin1 | cut -c13-64) twin2=abcdef012345$(hex twin2 | cut -c13-64)
made=(
	system.slice system.slice/nginx.service
	system.slice/docker-$docker.scope
	system.slice/docker-$twin1.scope system.slice/docker-$twin2.scope
	machine.slice machine.slice/libpod-conmon-$podman.scope machine.slice/libpod-$podman.scope
	kubepods.slice kubepods.slice/kubepods-pod1.slice
	kubepods.slice/kubepods-pod1.slice/cri-containerd-$cri.scope
	kubepods kubepods/burstable kubepods/burstable/pod2 kubepods/burstable/pod2/$kube
	user.slice user.slice/user-1000.slice user.slice/user-1000.slice/user@1000.service
	user.slice/user-1000.slice/user@1000.service/app.slice
	user.slice/user-1000.slice/user@1000.service/app.slice/app.service
	user.slice/user-1000.slice/user@1000.service/app.slice/dup.service
	user.slice/user-1000.slice/user@1000.service/dup.service
	a.slice a.slice/a-b.slice
	machine.slice/libpod-conmon-$(hex onlyconmon).scope
)
for d in "${made[@]}"; do
	[ -e $CG/$d ] && skip "$CG/$d exists already: not a hand-made layout"
	mkdir $CG/$d || fail "cannot make $CG/$d"
done
cleanup_layout() {
	local i
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		rmdir $CG/${made[i]}/cgtrace-run-* 2>/dev/null
		rmdir $CG/${made[i]} 2>/dev/null
	done
	cleanup
}
trap cleanup_layout EXIT
cp /bin/true "$work/nginxbin"
sh -c "echo \$\$ >$CG/system.slice/nginx.service/cgroup.procs; while :; do $work/nginxbin; sleep 0.3; done" &
bg_pids+=($!)
sleep 0.3

# every form at once, in one recording; the kernel lists each cgroup once
"$CGTRACE" record -G nginx.service -G ${docker:0:12} -G $docker -G ${podman:0:12} \
	-G $cri -G ${kube:0:12} -G user@1000.service -G app.service -G a-b.slice \
	-e sched:sched_process_exec -o "$work/names.dat" -- \
	sh -c "sleep 1; cat $T/instances/cgtrace-*[0-9]/set_event_cgroup >$work/seen" \
	2>"$work/names.err" || { cat "$work/names.err"; fail "record with names exited with $?"; }
want=(
	/system.slice/nginx.service /system.slice/docker-$docker.scope
	/machine.slice/libpod-$podman.scope
	/kubepods.slice/kubepods-pod1.slice/cri-containerd-$cri.scope
	/kubepods/burstable/pod2/$kube /user.slice/user-1000.slice/user@1000.service
	/user.slice/user-1000.slice/user@1000.service/app.slice/app.service
	/a.slice/a-b.slice
)
for w in "${want[@]}"; do
	grep -qx "$w" "$work/seen" || { cat "$work/seen"; fail "set_event_cgroup lacks $w"; }
done
n=$(grep -vc '^/cgtrace-meta-' "$work/seen")
[ "$n" = ${#want[@]} ] || { cat "$work/seen"; fail "set_event_cgroup holds $n cgroups, want ${#want[@]}"; }
grep -q "^cgtrace: nginx.service is cgroup /system.slice/nginx.service$" "$work/names.err" ||
	{ cat "$work/names.err"; fail "no line saying what nginx.service resolved to"; }
report "$work/names.dat" | grep -q "filename=$work/nginxbin" ||
	fail "nginx.service's task is not in the trace"
pass "units, short and full container ids of 4 managers resolve (${#want[@]} cgroups), the unit's task recorded"

expect_error() { # message-regex command...
	local re=$1 rc
	shift
	"$@" >"$work/out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || { cat "$work/out"; fail "'$*' exited $rc, want 1"; }
	grep -qE -- "$re" "$work/out" || { cat "$work/out"; fail "'$*': no message /$re/"; }
	ls -d $T/instances/cgtrace-* $CG/cgtrace-meta-* 2>/dev/null && fail "'$*' left something behind"
	return 0
}
expect_error "nosuch.service: no such cgroup: looked for $CG/system.slice/nosuch.service, then any cgroup named nosuch.service below $CG" \
	"$CGTRACE" record -q -G nosuch.service -- true
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
expect_error "dup.service matches 2 cgroups" "$CGTRACE" record -q -G dup.service -- true
grep -q "user@1000.service/app.slice/dup.service" "$work/out" || fail "dup.service: a match is not listed"
"$CGTRACE" record -q -G ${twin1:0:13} -e sched:sched_process_exec -o "$work/t.dat" -- true ||
	fail "13 digits of twin1 (unique) did not resolve"
pass "several matches are an error listing them; a longer prefix picks one"

# run --parent takes the same names: CMD runs in the unit's cgroup
"$CGTRACE" run -q --parent nginx.service -n job -o "$work/run.dat" -- \
	sh -c "cat /proc/self/cgroup >$work/rcg" || fail "run --parent nginx.service failed"
grep -qx '0::/system.slice/nginx.service/job' "$work/rcg" ||
	fail "run --parent nginx.service ran in $(cat "$work/rcg")"
"$CGTRACE" run -q --parent ${docker:0:12} -o "$work/run2.dat" -- \
	sh -c "cat /proc/self/cgroup >$work/rcg2" || fail "run --parent CONTAINER failed"
grep -qE "^0::/system.slice/docker-$docker.scope/cgtrace-run-[0-9]+$" "$work/rcg2" ||
	fail "run --parent ${docker:0:12} ran in $(cat "$work/rcg2")"
expect_error "nosuch.service: no such cgroup" "$CGTRACE" run -q --parent nosuch.service -- true
pass "run --parent takes a unit or a container id"
exit 0
