#!/bin/bash
# description: user_marker.h keeps one state per program: in a program of
#   two files (um_two_a.c defines USER_MARKER_IMPLEMENTATION, um_two_b.c
#   only includes the header) a span begun in one file and ended in the
#   other is one span, also when it was begun before recording started
#   (no unmatched end is written), across fork and exec; disabled markers
#   and markers on a kernel without user_events make no system call and
#   leave no span open; the prctl fallback is opt-in (UM_PRCTL), so a
#   seccomp policy that kills at an unknown prctl does not kill a program
#   that did not ask for it. On a kernel without the markers (the vanilla
#   kernel), the parts that need no recording run.
# requires: cc; user_markers for the recorded parts
. "$(dirname "$0")/testlib"
command -v cc >/dev/null || skip "no C compiler in the guest"
cd "$work" || fail "cannot enter $work"

build() { # NAME CFLAGS...
	local n=$1
	shift
	cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$SRC" "$@" -o "$n" \
		"$top/selftests/tools/um_two_a.c" "$top/selftests/tools/um_two_b.c" ||
		fail "cannot build $n from um_two_a.c and um_two_b.c"
}
build um_two
build um_two_nofile -DUM_TRACEFS='"/nonexistent"'
build um_two_prctl -DUM_TRACEFS='"/nonexistent"' -DUM_PRCTL
# a program that includes the header but defines nothing does not link
if cc -std=gnu11 -I"$SRC" -o nodef -x c - "$top/selftests/tools/um_two_b.c" \
	<<<'int b_end(void); int main(void) { return b_end(); }' 2>nodef.err; then
	fail "a program without USER_MARKER_IMPLEMENTATION links: each file would keep its own state"
fi
grep -q 'undefined reference to .um__' nodef.err || { cat nodef.err; fail "no um__ symbol missing at link time"; }
pass "two files build into one program; without USER_MARKER_IMPLEMENTATION it does not link"

# syscalls_ok OUT - "syscalls 0" unless the counter is missing (then said)
syscalls_ok() {
	case $(awk '{ print $5 }' "$1") in
	0) return 0 ;;
	\?) echo "$name: note: no perf counter of raw_syscalls:sys_enter: system calls not counted" ;;
	*) return 1 ;;
	esac
}

# --- without the file (UM_TRACEFS nowhere, or a kernel without markers) ---
./um_two_nofile pair >nofile.out || fail "um_two_nofile pair exited with $?"
grep -qx 'spans 0 0 syscalls [0-9?]* rc -2' nofile.out ||
	fail "without user_events: '$(cat nofile.out)', want no span open in either file and -ENOENT (-2)"
syscalls_ok nofile.out || fail "without user_events: 20 pairs and 40 counters made system calls: $(cat nofile.out)"
./um_two_nofile fork >nofork.out || { cat nofork.out; fail "um_two_nofile fork failed"; }
[ "$(grep -c 'spans 0 0$' nofork.out)" = 3 ] || { cat nofork.out; fail "without user_events, across fork and exec: spans left open"; }
pass "without user_events: spans begun in one file and ended in the other pair up (also across fork and exec), no system call, -ENOENT"

./um_two_nofile seccomp >sandbox.out 2>sandbox.err
rc=$?
[ "$rc" = 0 ] && grep -qx 'survived spans 0 0' sandbox.out ||
	{ cat sandbox.out sandbox.err; fail "under a policy that kills at the marker prctl, a program without UM_PRCTL exited with $rc"; }
policy=$(sed -n 's/^policy: //p' sandbox.err)
echo "$name: note: the policy is $policy"
./um_two_prctl seccomp >sandbox-prctl.out 2>&1
rc=$?
[ "$rc" = $((128 + 31)) ] ||
	{ cat sandbox-prctl.out; fail "the same policy did not kill the UM_PRCTL build (status $rc, want 159, SIGSYS): the policy proves nothing"; }
pass "the prctl fallback is opt-in: a policy killing at the marker prctl ($policy) kills only the UM_PRCTL build (status 159)"

if [ ! -e $T/user_events ] || [ ! -d $T/events/user_markers ]; then
	# a kernel without the markers: the program itself, as it is
	./um_two pair >vanilla.out || fail "um_two pair exited with $?"
	grep -qx 'spans 0 0 syscalls [0-9?]* rc -2' vanilla.out ||
		fail "on $(uname -r) without user_events: '$(cat vanilla.out)', want no span open and -ENOENT"
	syscalls_ok vanilla.out || fail "on $(uname -r) without user_events the markers made system calls: $(cat vanilla.out)"
	./um_two fork >vfork.out || { cat vfork.out; fail "um_two fork failed on $(uname -r)"; }
	[ "$(grep -c 'spans 0 0$' vfork.out)" = 3 ] || { cat vfork.out; fail "on $(uname -r): spans left open across fork and exec"; }
	./um_two seccomp >vsandbox.out 2>&1 || { cat vsandbox.out; fail "um_two seccomp exited with $? on $(uname -r)"; }
	pass "on $(uname -r), a kernel without user_events: spans pair across files, fork and exec; no system call; no prctl"
	echo "$name: note: the kernel has no user_markers: the recorded parts are not run"
	exit 0
fi

# --- the patched kernel: nothing records markers, then recorded ---
for ev in $T/events/user_markers/*/enable; do
	[ "$(cat "$ev")" = 0 ] || fail "$ev is on at the top level: the disabled case would not be disabled"
done
./um_two pair >off.out || fail "um_two pair exited with $?"
grep -qx 'spans 0 0 syscalls [0-9?]* rc 0' off.out || fail "markers off: '$(cat off.out)'"
syscalls_ok off.out || fail "markers off: 20 pairs and 40 counters made system calls: $(cat off.out)"
pass "markers off: no system call, no span left open in either file"

# rows REPORT - the span rows: NAME COUNT ... EXITED UNMAT UNTRK
unmatched() { awk '/^Spans/ { s = 1; next } /^$/ { s = 0 } s && $1 != "NAME" { n += $(NF - 1) + $(NF - 2) } END { print n + 0 }' "$1"; }
count_of() { awk -v n="$2" '/^Spans/ { s = 1; next } /^$/ { s = 0 } s && $1 == n { print $2 }' "$1"; }

"$CGTRACE" run -q -o pair.dat -- ./um_two pair >on.out || fail "cgtrace run um_two pair failed"
grep -qx 'spans 0 0 syscalls [0-9?]* rc 0' on.out || fail "recorded: '$(cat on.out)'"
"$CGTRACE" report -i pair.dat >pair.txt || fail "report of the pair run failed"
for want in across:1 b-side:1 later:20; do
	[ "$(count_of pair.txt "${want%:*}")" = "${want#*:}" ] ||
		{ cat pair.txt; fail "recorded: span ${want%:*} ended $(count_of pair.txt "${want%:*}") times, want ${want#*:}"; }
done
[ "$(unmatched pair.txt)" = 0 ] || { cat pair.txt; fail "recorded: unmatched or exited ends"; }
grep -qE '^from_a +20 ' pair.txt && grep -qE '^from_b +20 ' pair.txt ||
	{ cat pair.txt; fail "recorded: the counters of both files are not 20 each"; }
pass "recorded: spans begun in one file and ended in the other are one span each (across 1, b-side 1, later 20), no unmatched end"

# a span begun while nothing recorded, ended in the other file once a
# recording runs: not written (the kernel never saw it begin)
mkdir -p $CG/cgt-um && cgroups+=(cgt-um)
mkfifo go
sh -c "echo \$\$ >$CG/cgt-um/cgroup.procs && exec ./um_two late <go >late.out" &
bg_pids+=($!)
exec 3>go
for i in $(seq 100); do grep -q ready late.out 2>/dev/null && break; sleep 0.1; done
grep -q ready late.out || fail "um_two late did not start"
"$CGTRACE" record -q -G /cgt-um -e user_markers -o late.dat -- \
	sh -c 'echo go >go; for i in $(seq 100); do grep -q spans late.out && exit 0; sleep 0.1; done; exit 1' ||
	fail "record of the late ends failed (or um_two did not finish)"
exec 3>&-
grep -qx 'spans 0 0' late.out || fail "late: '$(tail -1 late.out)', want no span open"
"$CGTRACE" report -i late.dat >late.txt || fail "report of the late run failed"
[ "$(count_of late.txt after)" = 2 ] || { cat late.txt; fail "late: span 'after' ended $(count_of late.txt after) times, want 2"; }
[ "$(unmatched late.txt)" = 0 ] ||
	{ cat late.txt; fail "late: the end of a span begun before the recording was written (an unmatched end)"; }
pass "a span begun unrecorded in one file and ended recorded in the other writes nothing; the next spans pair"

"$CGTRACE" run -q -o fork.dat -- ./um_two fork >fork.out || { cat fork.out; fail "cgtrace run um_two fork failed"; }
[ "$(grep -c 'spans 0 0$' fork.out)" = 3 ] || { cat fork.out; fail "fork and exec: spans left open"; }
"$CGTRACE" report -i fork.dat >fork.txt || fail "report of the fork run failed"
for s in parent child exec; do
	[ "$(count_of fork.txt $s)" = 1 ] || { cat fork.txt; fail "fork: span $s ended $(count_of fork.txt $s) times, want 1"; }
done
[ "$(unmatched fork.txt)" = 0 ] || { cat fork.txt; fail "fork: unmatched or exited ends"; }
pass "across fork and exec: parent, child and exec'd program each pair their spans across the two files"
exit 0
