#!/bin/bash
# description: a unit restarted while cgtrace records it: systemd removes
#   its cgroup and makes a new one of the same path; cgtrace follows it,
#   so the new main process and its worker are recorded, as the old ones
#   were before the restart, and nothing else.
. "$(dirname "$0")/testlib"

unit=cgt-api.service
dir=$(unit_cgroup "$unit") || { bad "$unit has no main process"; finish; }
id_before=$(stat -c %i "$dir")
# shellcheck disable=SC2046 # pid lists, split on purpose
old=$(alive $(logged_pids api) | paste -sd' ')
forbidden=$(procs_below "$(unit_cgroup cgt-noise.service)" "$(unit_cgroup cgt-worker@1.service)" | paste -sd' ')
f=$out/restart.dat
# the reference follows the path: after the restart, the new cgroup's
# processes (systemd's child moved into it) and their children
ref_start "$dir"
"$CGTRACE" record -G "$unit" -e sched -e user_markers -o "$f" -- \
	sh -c "sleep 3; systemctl restart $unit; sleep 5" >"$work/rec" 2>&1
rc=$?
ref_stop
[ "$rc" = 0 ] || { bad "cgtrace record failed: $(tail -3 "$work/rec")"; finish; }
dir_after=$(unit_cgroup "$unit")
id_after=$(stat -c %i "$dir_after")
# shellcheck disable=SC2046 # pid lists, split on purpose
new=$(alive $(logged_pids api) | paste -sd' ')
if [ "$dir_after" = "$dir" ] && [ "$id_after" != "$id_before" ] && [ -n "$new" ] && [ "$new" != "$old" ]; then
	ok "the restart made a new cgroup of the same path (id $id_before, then $id_after) and new processes ($old, then $new)"
else
	bad "the restart did not re-create the cgroup (${dir#"$CG"} id $id_before, ${dir_after#"$CG"} id $id_after; pids '$old', then '$new'): nothing tested"
fi
grep -q "its cgroup ${dir#"$CG"} was made again (id $id_after" "$work/rec" &&
	ok "cgtrace said it followed the new cgroup" ||
	bad "cgtrace did not say it followed the new cgroup: $(grep -v '^cgtrace: recording' "$work/rec" | tail -3)"
events "$f" >"$work/ev"
# shellcheck disable=SC2086
judge "$work/ev" "$ref_pids" "$old $new" "$forbidden" "$unit restarted while recorded"
finish
