#!/bin/bash
# description: the patched trace-cmd as its package installed it
#   (/opt/cgtrace-trace-cmd): record --cgroup UNIT resolves the unit
#   through systemd and records exactly its tasks and all of them.
#   Without the package the script says so and fails: the image is built
#   with it (scripts/tracecmd-deb). Across a restart of the unit it
#   follows the new cgroup: the old and the new processes are recorded.
. "$(dirname "$0")/testlib"

if [ ! -x "$PATCHED_TRACE_CMD" ]; then
	bad "no $PATCHED_TRACE_CMD: the image was built without the cgtrace-trace-cmd package (scripts/tracecmd-deb)"
	finish
fi
unit=cgt-worker@1.service
dir=$(unit_cgroup "$unit") || { bad "$unit has no main process"; finish; }
# shellcheck disable=SC2046 # pid lists, split on purpose
wanted=$(alive $(logged_pids worker1) | paste -sd' ')
forbidden=$(procs_below "$(unit_cgroup cgt-worker@2.service)" "$(unit_cgroup cgt-noise.service)" | paste -sd' ')
f=$out/tracecmd-worker1.dat
ref_start "$dir"
(cd "$work" && "$PATCHED_TRACE_CMD" record --cgroup "$unit" -e sched -e user_markers -o "$f" sleep 4) >"$work/rec" 2>&1
rc=$?
ref_stop
[ "$rc" = 0 ] || { bad "trace-cmd record --cgroup $unit failed: $(tail -3 "$work/rec")"; finish; }
wanted=$(alive $wanted | paste -sd' ')
events "$f" "$PATCHED_TRACE_CMD" >"$work/ev"
judge "$work/ev" "$ref_pids" "$wanted" "$forbidden" "trace-cmd record --cgroup $unit"
tags=$(marker_tags "$work/ev")
[ "$tags" = worker1 ] && ok "trace-cmd --cgroup $unit: its markers only" ||
	bad "trace-cmd --cgroup $unit: markers of '$tags', want only 'worker1'"

# A restart while trace-cmd records: systemd removes the unit's cgroup
# and makes a new one of the same path; trace-cmd follows it (its series'
# cgroup follower), so the new processes are recorded as the old ones
# were, and nothing else. The reference follows the path (restart.sh).
# shellcheck disable=SC2046 # pid lists, split on purpose
old=$(alive $(logged_pids worker1) | paste -sd' ')
f=$out/tracecmd-restart.dat
ref_start "$dir"
(cd "$work" && "$PATCHED_TRACE_CMD" record --cgroup "$unit" -e sched -e user_markers -o "$f" \
	sh -c "sleep 3; systemctl restart $unit; sleep 5") >"$work/rec" 2>&1
rc=$?
ref_stop
[ "$rc" = 0 ] || { bad "trace-cmd record --cgroup $unit across a restart failed: $(tail -3 "$work/rec")"; finish; }
# shellcheck disable=SC2046 # pid lists, split on purpose
new=$(alive $(logged_pids worker1) | paste -sd' ')
id_after=$(stat -c %i "$(unit_cgroup "$unit")")
# (grep -F: a unit's cgroup path holds systemd's \x2d escapes)
grep -qF "trace-cmd: --cgroup ${dir#"$CG"}: its cgroup was made again (id $id_after); its tasks are recorded" "$work/rec" &&
	ok "trace-cmd said it followed the unit's new cgroup (id $id_after)" ||
	bad "trace-cmd did not say it followed the new cgroup (id $id_after): $(tail -3 "$work/rec")"
events "$f" "$PATCHED_TRACE_CMD" >"$work/ev"
judge "$work/ev" "$ref_pids" "$old $new" "$forbidden" "trace-cmd record --cgroup $unit restarted while recorded"
finish
