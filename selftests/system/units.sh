#!/bin/bash
# description: cgtrace record -G UNIT on a real systemd: a unit in a slice
#   of its own (Slice=cgt-apps.slice: /cgt.slice/cgt-apps.slice/...), a
#   template's instance (/system.slice/system-cgt\x2dworker.slice/...)
#   and a transient unit (systemd-run). Each resolves to the cgroup the
#   kernel shows for the unit's main process, and a recording holds
#   exactly the unit's tasks (its main process, the worker it forked,
#   their children) and all of them, and nothing of the noisy neighbour
#   or of the other instance of the template.
. "$(dirname "$0")/testlib"

noise=$(unit_cgroup cgt-noise.service) || bad "cgt-noise.service has no main process"
for unit in cgt-api.service cgt-worker@1.service cgt-batch.service; do
	tag=${unit%.service}
	tag=${tag#cgt-}
	tag=${tag/@/}
	dir=$(unit_cgroup "$unit") || { bad "$unit has no main process"; continue; }
	# The neighbours: the noisy one, and every other workload service.
	others=""
	for u in cgt-api.service cgt-worker@1.service cgt-worker@2.service cgt-batch.service cgt-noise.service; do
		[ "$u" = "$unit" ] || others="$others $(unit_cgroup "$u")"
	done
	f=$out/unit-$tag.dat
	# shellcheck disable=SC2046 # pid lists, split on purpose
	wanted=$(alive $(logged_pids "$tag") | paste -sd' ')
	# shellcheck disable=SC2086
	forbidden=$(procs_below $others | paste -sd' ')
	ref_start "$dir"
	"$CGTRACE" record -G "$unit" -e sched -e user_markers -o "$f" -- sleep 4 >"$work/rec" 2>&1
	rc=$?
	ref_stop
	[ "$rc" = 0 ] || { bad "$unit: cgtrace record failed: $(tail -3 "$work/rec")"; continue; }
	# what cgtrace says it resolved, against the kernel's own answer
	said=$(sed -n "s/^cgtrace: $unit is cgroup //p" "$work/rec")
	if [ "$CG$said" = "$dir" ]; then
		ok "$unit is cgroup $said, where the kernel shows its main process"
	else
		bad "$unit: cgtrace said cgroup '$said', its main process is in ${dir#"$CG"}"
	fi
	wanted=$(alive $wanted | paste -sd' ')
	events "$f" >"$work/ev"
	judge "$work/ev" "$ref_pids" "$wanted" "$forbidden" "$unit"
	tags=$(marker_tags "$work/ev")
	if [ "$tags" = "$tag" ]; then
		ok "$unit: its markers only ($tag), none of the noisy neighbour's"
	else
		bad "$unit: markers of '$tags' in the trace, want only '$tag'"
	fi
done
# shellcheck disable=SC2046 # pid lists, split on purpose
[ -n "$noise" ] && [ -n "$(alive $(logged_pids noise))" ] &&
	ok "the noisy neighbour ran all along (${noise#"$CG"})" ||
	bad "the noisy neighbour did not run: its absence from the traces proves nothing"
finish
