#!/bin/bash
# description: cgtrace record -G CONTAINER on rootful podman: by name, by
#   full id and by the 12-digit short id, each resolves to podman's scope
#   for it, and the recording holds exactly the container's tasks and
#   all of them (its main process, the worker it forked, their
#   children), nothing of the neighbouring container in the same
#   machine.slice nor of the noisy service. A name that names
#   nothing, an id prefix that matches two cgroups, and a name that two
#   of podman's stores hold are errors that say what was looked for.
. "$(dirname "$0")/testlib"

id=$(container_id cgt-box)
[ -n "$id" ] || { bad "no container cgt-box"; finish; }
dir=$(container_cgroup cgt-box) || { bad "cgt-box has no main process"; finish; }
case "$dir" in
*/libpod-$id.scope | */libpod-$id.scope/*) ok "podman runs cgt-box in ${dir#"$CG"}" ;;
*) bad "cgt-box's main process is in ${dir#"$CG"}, not in a libpod-$id.scope" ;;
esac
scope=${dir%%/libpod-$id.scope*}/libpod-$id.scope
forbidden_dirs="$(container_cgroup cgt-box2) $(unit_cgroup cgt-noise.service)"
# One recording, the container named three ways: each must resolve to
# podman's scope (a wrong one would add its cgroup to the recording).
f=$out/container.dat
# its marker writers: the processes running the workload in it
wanted=$(for p in $(procs_below "$scope"); do grep -qs workload "/proc/$p/cmdline" && echo "$p"; done | paste -sd' ')
# shellcheck disable=SC2086
forbidden=$(procs_below $forbidden_dirs | paste -sd' ')
ref_start "$scope"
"$CGTRACE" record -G cgt-box -G "$id" -G "${id:0:12}" -e sched -e user_markers -o "$f" -- \
	sleep 4 >"$work/rec" 2>&1
rc=$?
ref_stop
[ "$rc" = 0 ] || { bad "cgtrace record -G cgt-box -G ID -G SHORT-ID failed: $(tail -3 "$work/rec")"; finish; }
for arg in cgt-box "$id" "${id:0:12}"; do
	said=$(sed -n "s/^cgtrace: $arg is cgroup //p" "$work/rec")
	[ "$CG$said" = "$scope" ] && ok "-G $arg is cgroup $said" ||
		bad "-G $arg: cgtrace said cgroup '$said', podman's is ${scope#"$CG"}"
done
wanted=$(alive $wanted | paste -sd' ')
events "$f" >"$work/ev"
judge "$work/ev" "$ref_pids" "$wanted" "$forbidden" "-G cgt-box (name, id, short id)"
tags=$(marker_tags "$work/ev")
[ "$tags" = box ] && ok "-G cgt-box: the container's markers only, none of cgt-box2's or the noisy service's" ||
	bad "-G cgt-box: markers of '$tags' in the trace, want only 'box'"

# Errors: nothing made, the message says what was searched.
instances() {
	local n=0 d
	for d in /sys/kernel/tracing/instances/cgtrace-*; do [ -e "$d" ] && n=$((n + 1)); done
	echo "$n"
}
before=$(instances)
expect_error() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	if "$CGTRACE" record "$@" -o "$work/x.dat" -- true >"$work/err" 2>&1; then
		bad "$what: cgtrace record succeeded"
	elif ! grep -qE -- "$pattern" "$work/err"; then
		bad "$what: the message does not say /$pattern/: $(cat "$work/err")"
	elif [ "$(instances)" != "$before" ] || [ -e "$work/x.dat" ]; then
		bad "$what: an instance or a trace was left behind"
	else
		ok "$what: $(head -1 "$work/err")"
	fi
}
expect_error "a name that names nothing" \
	'cgt-nothing: .*no container is named so in /var/lib/containers/storage/overlay-containers/containers.json' \
	-G cgt-nothing
# Another cgroup named as podman names its containers, whose id has the
# same first 12 digits as cgt-box's: the short id is ambiguous.
twin=${id:0:12}$(echo twin | sha256sum | cut -c13-64)
twin_dir=$CG/machine.slice/libpod-$twin.scope
mkdir "$twin_dir"
expect_error "a short id that two cgroups have" "${id:0:12} matches 2 cgroups" -G "${id:0:12}"
grep -q "libpod-$twin.scope" "$work/err" && grep -q "libpod-$id.scope" "$work/err" &&
	ok "the ambiguous id's error lists both cgroups" || bad "the ambiguous id's error does not list both: $(cat "$work/err")"
rmdir "$twin_dir"
# A second store of containers/storage (another driver's) that names a
# container cgt-box too.
vfs=/var/lib/containers/storage/vfs-containers
mkdir -p "$vfs"
printf '[{"id":"%s","names":["cgt-box"]}]\n' "$(echo other | sha256sum | cut -c1-64)" >"$vfs/containers.json"
expect_error "a name that two stores hold" "cgt-box names 2 containers" -G cgt-box
rm -rf "$vfs"
finish
