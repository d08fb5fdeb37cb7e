#!/bin/bash
# description: what user_marker.h and toy_gc promise: they build as C99,
#   C11 and C17 under -pedantic -Werror and as C++, and the header's
#   descriptor does not leak into programs a marker writer executes
#   (strict C11 hides O_CLOEXEC: fcntl() marks it there); without the
#   user_events file, spans go through prctl(PR_TRACE_USER_MARKER) and are
#   recorded (cgtrace sets options/user_events_prctl), while the async
#   calls, which the prctl has no kinds for, return -EOPNOTSUPP instead of
#   doing nothing silently; toy_gc sleeps for sweeps of a second or more
#   (a tv_nsec of 1e9 or more is EINVAL, and it used to build one).
# requires: user_markers, prctl fallback, trace-cmd, cc
. "$(dirname "$0")/testlib"
[ -d $T/events/user_markers ] && [ -e $T/user_events ] || skip "kernel has no user_markers"
[ -e $T/options/user_events_prctl ] || skip "kernel has no prctl marker fallback"
command -v cc >/dev/null || skip "no C compiler in the guest"

hdr=$SRC
for std in c99 c11 c17 gnu11; do
	cc -std=$std -pedantic -Wall -Wextra -Werror -I"$hdr" -o "$work/toy_$std" \
		"$hdr/examples/toy_gc.c" || fail "toy_gc does not build with -std=$std -pedantic -Werror"
	cc -std=$std -pedantic -Wall -Wextra -Werror -I"$hdr" -o "$work/cloexec_$std" \
		"$top/selftests/tools/um_cloexec.c" || fail "user_marker.h does not build with -std=$std"
	"$work/cloexec_$std" sh -c 'ls -l /proc/$$/fd' >"$work/fds_$std" ||
		fail "-std=$std: the marker was not written, or the program not executed"
	grep -q ' 1 -> ' "$work/fds_$std" || fail "-std=$std: no descriptor list from the executed program"
	grep -q user_events "$work/fds_$std" &&
		{ cat "$work/fds_$std"; fail "-std=$std: the executed program has user_events open"; }
done
if command -v c++ >/dev/null; then
	c++ -std=c++11 -Wall -Werror -I"$hdr" -x c++ -c -o "$work/cxx.o" "$top/selftests/tools/um_cloexec.c" ||
		fail "user_marker.h does not build as C++11"
	cxx=", C++11"
fi
pass "toy_gc and user_marker.h build as C99, C11, C17, gnu11$cxx; the marker descriptor is close-on-exec"

cc -std=c11 -pedantic -O2 -Wall -I"$SRC" -DUM_TRACEFS='"/nonexistent"' \
	-o "$work/um_fallback" "$top/selftests/tools/um_fallback.c" || fail "cannot build um_fallback"
"$CGTRACE" run -q -o "$work/fb.dat" -- "$work/um_fallback" >"$work/fb.out" ||
	fail "cgtrace run um_fallback failed"
grep -qx 'begin 0 end 0 async_begin -95 async_end -95' "$work/fb.out" ||
	fail "um_fallback printed '$(cat "$work/fb.out")', want begin/end 0, async -95 (EOPNOTSUPP)"
"$CGTRACE" report -i "$work/fb.dat" >"$work/fb.txt" || fail "report of the fallback run failed"
awk '$1 == "fallback" && $2 == 1 { ok = 1 } END { exit !ok }' "$work/fb.txt" ||
	{ cat "$work/fb.txt"; fail "the span written through prctl is not in the trace"; }
grep -q 'fallback-req' "$work/fb.txt" && fail "an async span was recorded through the fallback"
pass "prctl fallback: spans recorded, async calls return -EOPNOTSUPP"

# toy_gc CYCLES MARK_MS SWEEP_MS: a 1200 ms sweep must sleep 1.2 s
"$CGTRACE" run -q -o "$work/gc.dat" -- "$TOOLS/toy_gc" 1 1 1200 >/dev/null ||
	fail "cgtrace run toy_gc failed"
"$CGTRACE" report -i "$work/gc.dat" >"$work/gc.txt" || fail "report of toy_gc failed"
awk '$1 == "sweep" { v = $3; if (v ~ /ms$/) v /= 1000; else if (v ~ /us$|ns$/) v = 0; else sub(/s$/, "", v)
	ok = v >= 1.19 } END { exit !ok }' "$work/gc.txt" ||
	{ cat "$work/gc.txt"; fail "toy_gc's 1200 ms sweep did not last 1.2 s"; }
pass "toy_gc sleeps 1.2 s for a 1200 ms sweep"
exit 0
