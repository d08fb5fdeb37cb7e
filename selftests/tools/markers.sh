#!/bin/bash
# description: user markers of a cgtrace run are recorded, only from the
#   traced cgroup, and the plugin makes trace-cmd report print them as
#   "end: gc depth=0 dur=12.345ms cpu=3.210ms"; unmatched ends are flagged.
# requires: events/user_markers, user_events
. "$(dirname "$0")/testlib"
[ -d $T/events/user_markers ] && [ -e $T/user_events ] ||
	skip "kernel has no user_markers events"
[ -x "$TOOLS/toy_gc" ] && [ -f "$TOOLS/plugin_user_markers.so" ] || fail "make tools first"

# a second toy_gc in another cgroup writes markers too
mkdir -p $CG/cgt-mnoise
cgroups+=(cgt-mnoise)
sh -c "echo \$\$ > $CG/cgt-mnoise/cgroup.procs; while :; do echo 'I|0|noisemark' > $T/user_events; sleep 0.1; done" &
bg_pids+=($!)

# toy_gc, a stray end, and 34 nested spans (past the 32 tracked ones)
deep=$(for i in $(seq 34); do printf 'B|0|d%d\\n' $i; done)
ends=$(for i in $(seq 34); do printf 'E|0\\n'; done)
"$CGTRACE" run -o "$work/gc.dat" -- sh -c "$TOOLS/toy_gc 4 4 6; echo 'E|0|stray' > $T/user_events
	printf '$deep' > $T/user_events; printf '$ends' > $T/user_events" \
	2>"$work/err" || { cat "$work/err"; fail "cgtrace run toy_gc failed"; }
report "$work/gc.dat" >"$work/gc.txt"
grep 'user_markers\|begin:\|end:\|counter:' "$work/gc.txt" | head -12
have 4 'end: +gc depth=0 dur=[0-9]+\.[0-9]{3}ms cpu=[0-9]+\.[0-9]{3}ms' "$work/gc.txt" ||
	fail "no 'end: gc depth=0 dur=...ms cpu=...ms' lines from the plugin"
have 4 'end: +mark depth=1 dur=' "$work/gc.txt" || fail "nested mark spans missing"
have 4 'begin: +sweep depth=1' "$work/gc.txt" || fail "sweep begins missing"
have 4 'counter: +heap_kb=[0-9]+' "$work/gc.txt" || fail "heap counter missing"
have 1 'end: +stray depth=0 unmatched' "$work/gc.txt" || fail "unmatched end not flagged"
have 1 'end: +d1 depth=0 dur=' "$work/gc.txt" || fail "the outermost of 34 nested spans has no end"
have 1 'end: .*untracked' "$work/gc.txt" || fail "no untracked end past 32 nested spans"
pass "plugin prints spans, counters and flags"
# without plugins trace-cmd prints the kernel's raw format: the plugin did it
TRACEEVENT_PLUGIN_DIR= trace-cmd report -N "$work/gc.dat" 2>/dev/null >"$work/raw.txt"
grep -q 'end: .*dur=[0-9.]*ms' "$work/raw.txt" && fail "trace-cmd report -N prints dur=...ms too: the plugin is not what formats it"
pass "the plugin, not trace-cmd, formats the marker events"

# sweep sleeps 6 ms: a gc span is mostly off the CPU
awk '/end: +sweep/ { split($0, a, "dur="); split(a[2], d, "ms")
	split($0, b, "cpu="); split(b[2], c, "ms"); n++; if (d[1] - c[1] < 3) bad++ }
	END { exit !(n > 0 && bad == 0) }' "$work/gc.txt" ||
	fail "a sweep span (6 ms asleep) shows less than 3 ms off the CPU"
pass "dur - cpu shows the blocked time"

grep -q noisemark "$work/gc.txt" && fail "markers of the other cgroup were recorded"
grep -q 'cgtrace: markers:.*accepted' "$work/err" || fail "no marker counts in the summary"
grep -qE 'cgtrace: wrote .*(no event lost|events lost)' "$work/err" || fail "no lost-event summary"
pass "no markers from the other cgroup; counts printed"
exit 0
