#!/bin/bash
# description: cgtrace fails with a message that names the cause and the
#   fix, a status that says what failed (125 recording, 1 the other
#   commands, 129 usage), and leaves nothing behind: a missing cgroup, a
#   kernel without the cgroup files, a missing trace-cmd, a user without
#   permission, a systemd unit where systemd does not run, a bad pid:, the
#   65th instance that would filter by cgroup.
# requires: set_event_cgroup
. "$(dirname "$0")/testlib"

# No block of this test is left out silently: what it needs is there.
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"

expect 125 'cgroup /cgt-no-such does not exist' \
	"$CGTRACE" record -q -G /cgt-no-such -o "$work/x.dat" -- true
expect 125 'cgroup /cgt-no-such does not exist' \
	"$CGTRACE" run -q --parent /cgt-no-such -o "$work/x.dat" -- true
no_leftovers "a missing cgroup"
pass "a missing cgroup is named, nothing is left behind"

# a tracing directory without the cgroup files: a kernel built without them
fake=$work/tracefs
mkdir -p $fake/instances $fake/events
touch $fake/set_event_pid $fake/trace
nokernel="this kernel, $(uname -r) \(uname -r\), has no set_event_cgroup: it was built without CONFIG_TRACE_CGROUP_FILTER"
expect 125 "$nokernel" env CGTRACE_TRACEFS=$fake "$CGTRACE" record -q -G / -o "$work/x.dat" -- true
grep -q 'package linux-image-\*-cgtrace, built by "make deb"' "$work/out" ||
	{ cat "$work/out"; fail "a kernel without the cgroup files: no word of the package to install"; }
expect 125 "$nokernel" env CGTRACE_TRACEFS=$fake "$CGTRACE" run -q -- true
grep -q '(README.md, Install; docs/packaging.md)' "$work/out" ||
	{ cat "$work/out"; fail "a kernel without the cgroup files: no pointer to README's Install"; }
[ -z "$(ls $fake/instances)" ] || fail "an instance was left in the fake tracefs"
CGTRACE_TRACEFS=$fake "$CGTRACE" stat >"$work/out" || fail "stat on the fake tracefs failed"
grep -qE '^set_event_cgroup +\(not in this kernel\)' "$work/out" || fail "stat of a missing file"
pass "a kernel without the cgroup files: the running kernel, its missing option and the package to install"

expect 125 'trace-cmd is not installed or not in PATH: install it \(apt install trace-cmd\), or name it with CGTRACE_TRACE_CMD=PATH' \
	env PATH=/nonexistent "$CGTRACE" run -q -- true
no_leftovers "a run without trace-cmd"
pass "a missing trace-cmd is reported with what to do, nothing is left behind"

expect 1 'no permission to read .*: run cgtrace as root' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CGTRACE" stat
expect 125 'no permission to write .*: run cgtrace as root' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CGTRACE" run -- true
pass "a user without permission is told to run as root"

# systemd units are asked of systemd: where it does not run, say so
if [ -S /run/dbus/system_bus_socket ]; then
	echo "$name: note: a system bus runs here: the unit errors are those of a systemd system"
	expect 125 'nosuch-cgt.service: systemd has no such unit loaded \(systemctl status nosuch-cgt.service\)' \
		"$CGTRACE" record -q -G nosuch-cgt.service -- true
else
	expect 125 "nginx.service: cannot ask systemd for the unit's cgroup \(the system bus: No such file or directory; is systemd running here\?\);" \
		"$CGTRACE" record -q -G nginx.service -- true
	grep -q 'give its cgroup path instead, e.g. -G /system.slice/nginx.service' "$work/out" ||
		{ cat "$work/out"; fail "the unit error does not suggest a cgroup path"; }
fi
no_leftovers "an unresolved unit"
expect 125 'pid:999999: no cgroup of process 999999: no such process' \
	"$CGTRACE" record -q -G pid:999999 -- true
expect 125 'pid:x: pid:PID takes a process id' "$CGTRACE" record -q -G pid:x -- true
pass "a unit without systemd, and a pid that does not exist, are named"

# The 65th instance to filter by cgroup gets ENOSPC from the kernel. 64
# real instances take two minutes to make under TCG: the kernel's refusal
# is faked by a tracing directory on a full tmpfs (a write there fails
# with ENOSPC too), where one instance filters already.
full=$work/full
mkdir "$full" && mount -t tmpfs -o size=64k tmpfs "$full" || fail "cannot mount a tmpfs"
trap 'umount "$full"; cleanup' EXIT
mkdir -p "$full/instances/cgt-filters" "$full/instances/cgt-not" "$full/events"
touch "$full/set_event_pid" "$full/set_event_cgroup" "$full/trace" \
	"$full/instances/cgt-not/set_event_cgroup"
echo /cgt-a >"$full/instances/cgt-filters/set_event_cgroup"
dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null
echo x 2>/dev/null >"$full/set_event_cgroup" && fail "the tmpfs is not full"
: >"$full/set_event_cgroup"
CGTRACE_TRACEFS=$full expect 125 'set_event_cgroup: at most 64 instances can filter by cgroup at once, and that many do:' \
	"$CGTRACE" record -q -B top -G / -o "$work/x.dat" -- true
grep -q 'clear the filters of one (cgtrace reset INSTANCE) or remove it;' "$work/out" &&
	grep -qE 'filtering now: cgt-filters$' "$work/out" ||
	{ cat "$work/out"; fail "ENOSPC: no fix, or not the one instance that filters"; }
no_leftovers "ENOSPC"
pass "ENOSPC on a filter is explained: the limit, what to do, and which instances filter"
exit 0
