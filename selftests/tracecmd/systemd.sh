#!/bin/bash
# description: --cgroup UNIT asks systemd for the unit's cgroup (here a
#   stand-in for systemd's manager on a private bus, mock-systemd, as the
#   guest has no systemd): the recording holds that cgroup's tasks only;
#   a unit systemd does not know, or one that does not run, fails with a
#   message naming it.
. "$(dirname "$0")/lib"
no_cgroup_filter

command -v dbus-daemon >/dev/null || fail "no dbus-daemon (make deps: dbus)"
/usr/bin/python3 -c 'import dbus, gi' 2>/dev/null || fail "no python3-dbus or python3-gi (make deps)"
mkcg tc-svc.slice tc-svc.slice/web.service tc-other
loop_in tc-svc.slice/web.service webbin
loop_in tc-other otherbin

dbus-daemon --session --nofork --address="unix:path=$work/bus" >"$work/dbus.log" 2>&1 &
bg_pids+=($!)
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus
for ((i = 0; i < 50; i++)); do [ -S "$work/bus" ] && break; sleep 0.1; done
"$(dirname "$0")/mock-systemd" web.service=/tc-svc.slice/web.service \
	tc-svc.slice=/tc-svc.slice idle.service= >"$work/mock.log" 2>&1 &
bg_pids+=($!)
for ((i = 0; i < 100; i++)); do grep -q ready "$work/mock.log" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$work/mock.log" || { cat "$work/dbus.log" "$work/mock.log"; fail "mock-systemd did not start"; }

"$TC" record -q --cgroup web.service -e sched:sched_process_exec -o "$work/u.dat" \
	sh -c "$work/wait-ticks webbin 3 && $work/wait-ticks otherbin 3" 2>"$work/u.err" ||
	fail "record --cgroup web.service exited with $?: $(tail -3 "$work/u.err")"
"$TC" report -i "$work/u.dat" >"$work/u.txt" 2>/dev/null || fail "report failed"
w=$(count "filename=$work/webbin " "$work/u.txt") o=$(count otherbin "$work/u.txt")
[ "$w" -ge 3 ] && [ "$o" = 0 ] || fail "--cgroup web.service: $w execs of webbin, $o events of otherbin"
pass "--cgroup web.service records the unit's cgroup /tc-svc.slice/web.service ($w execs), nothing else"

"$TC" record -q --cgroup tc-svc.slice -e sched:sched_process_exec -o "$work/s.dat" \
	sh -c "$work/wait-ticks webbin 3" 2>"$work/s.err" ||
	fail "record --cgroup tc-svc.slice exited with $?: $(tail -3 "$work/s.err")"
"$TC" report -i "$work/s.dat" >"$work/s.txt" 2>/dev/null || fail "report failed"
w=$(count "filename=$work/webbin " "$work/s.txt")
[ "$w" -ge 3 ] && [ "$(count otherbin "$work/s.txt")" = 0 ] || fail "--cgroup tc-svc.slice: wrong tasks"
pass "a slice is asked of its own interface and includes its services"

out=$("$TC" record --cgroup nosuch.service -e sched:sched_switch -o x.dat true 2>&1) &&
	fail "record --cgroup nosuch.service succeeded"
echo "$out" | grep -qF -- "--cgroup nosuch.service: systemd has no unit nosuch.service loaded" ||
	fail "record --cgroup nosuch.service said: $out"
out=$("$TC" record --notrace-cgroup idle.service -e sched:sched_switch -o x.dat true 2>&1) &&
	fail "record --notrace-cgroup idle.service succeeded"
echo "$out" | grep -qF -- "--notrace-cgroup idle.service: unit idle.service has no cgroup (it is not running)" ||
	fail "record --notrace-cgroup idle.service said: $out"
pass "a unit systemd does not know, or one that does not run, fails naming it"
