#!/bin/bash
# description: cgtrace fails with a clear message and a non-zero status for
#   a missing cgroup, a kernel without the cgroup files, a missing trace-cmd
#   and a user without permission.
. "$(dirname "$0")/testlib"

expect_error() { # message-regex command...
	local re=$1
	shift
	"$@" >"$work/out" 2>&1 && fail "'$*' succeeded"
	grep -qE -- "$re" "$work/out" || { cat "$work/out"; fail "'$*': no message /$re/"; }
}

# No block of this test is left out silently: what it needs is there.
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"

expect_error 'cgroup /cgt-no-such does not exist' \
	"$CGTRACE" record -q -G /cgt-no-such -o "$work/x.dat" -- true
expect_error 'cgroup /cgt-no-such does not exist' \
	"$CGTRACE" run -q --parent /cgt-no-such -o "$work/x.dat" -- true
ls -d $T/instances/cgtrace-* 2>/dev/null && fail "a failed record left its instance"
pass "a missing cgroup is named, nothing is left behind"

# a tracing directory without the cgroup files: a kernel built without them
fake=$work/tracefs
mkdir -p $fake/instances $fake/events
touch $fake/set_event_pid $fake/trace
expect_error 'this kernel has no set_event_cgroup: it was built without CONFIG_TRACE_CGROUP_FILTER' \
	env CGTRACE_TRACEFS=$fake "$CGTRACE" record -q -G / -o "$work/x.dat" -- true
expect_error 'this kernel has no set_event_cgroup: it was built without CONFIG_TRACE_CGROUP_FILTER' \
	env CGTRACE_TRACEFS=$fake "$CGTRACE" run -q -- true
[ -z "$(ls $fake/instances)" ] || fail "an instance was left in the fake tracefs"
CGTRACE_TRACEFS=$fake "$CGTRACE" show >"$work/out" || fail "show on the fake tracefs failed"
grep -qE '^set_event_cgroup +\(not in this kernel\)' "$work/out" || fail "show of a missing file"
pass "a kernel without the cgroup files is named with its config option"

expect_error 'trace-cmd is not installed' env PATH=/nonexistent "$CGTRACE" run -q -- true
ls -d $T/instances/cgtrace-* $CG/cgtrace-run-* 2>/dev/null && fail "a run without trace-cmd left an instance or cgroup"
pass "a missing trace-cmd is reported, nothing is left behind"

expect_error 'no permission' setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$CGTRACE" show
pass "a user without permission is told to run as root"

# one convention: usage errors exit 2, other errors 1
expect_status() { # status command...
	local want=$1 rc
	shift
	"$@" >"$work/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { cat "$work/out"; fail "'$*' exited $rc, want $want"; }
}
expect_status 2 "$CGTRACE"
expect_status 2 "$CGTRACE" frobnicate
grep -q 'unknown command' "$work/out" || fail "no 'unknown command' message"
expect_status 2 "$CGTRACE" record --no-such-option
expect_status 2 "$CGTRACE" record -P notapid
expect_status 2 "$CGTRACE" run
expect_status 2 "$CGTRACE" run --cgroup x -- true
grep -q -- '--name' "$work/out" || fail "run --cgroup: no hint at --name"
expect_status 2 "$CGTRACE" show -x
expect_status 2 "$CGTRACE" reset a b
expect_status 2 "$CGTRACE" report --by nope
expect_status 2 "$CGTRACE" export -i x.dat
expect_status 1 "$CGTRACE" show no_such_instance
expect_status 1 "$CGTRACE" report -i "$work/none.dat"
"$CGTRACE" record --help | grep -q '^usage: cgtrace record' || fail "record --help"
"$CGTRACE" --help | grep -q 'exit status: 0 success, 1 error, 2 usage error' ||
	fail "the convention is not in cgtrace --help"
pass "usage errors exit 2, other errors 1"
exit 0
