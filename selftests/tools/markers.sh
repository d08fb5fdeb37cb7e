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
# without plugins trace-cmd prints the kernel's own format: unless that
# computes dur=...ms itself (end_format.sh checks it then), the plugin did
if grep -q 'dur=' $T/events/user_markers/end/format; then
	echo "$name: note: the kernel's end format prints dur= itself: the plugin's part is not told apart"
else
	TRACEEVENT_PLUGIN_DIR= trace-cmd report -N "$work/gc.dat" 2>/dev/null >"$work/raw.txt"
	grep -q 'end: .*dur=[0-9.]*ms' "$work/raw.txt" && fail "trace-cmd report -N prints dur=...ms too: the plugin is not what formats it"
	pass "the plugin, not trace-cmd, formats the marker events"
fi

# cgtrace run recorded into an instance (cgtrace-PID), not the top-level
# buffer: report and export must read the instance's buffer of gc.dat
"$CGTRACE" report -i "$work/gc.dat" >"$work/rep.txt" 2>"$work/rep.err" ||
	{ cat "$work/rep.err"; fail "cgtrace report found no markers in the instance buffer"; }
grep -qE '^trace: .*\(buffers: cgtrace-[0-9]+\)$' "$work/rep.txt" ||
	{ head -2 "$work/rep.txt"; fail "report did not read (only) the cgtrace-PID instance"; }
awk '$1 == "gc" && $2 >= 4 { ok = 1 } END { exit !ok }' "$work/rep.txt" ||
	{ cat "$work/rep.txt"; fail "report: no row with the 4 gc spans"; }
grep -q '(1 unmatched' "$work/rep.txt" || fail "report: the stray end is not counted as unmatched"
inst=$(sed -n 's/^trace: .*(buffers: \(cgtrace-[0-9]*\))$/\1/p' "$work/rep.txt")
"$CGTRACE" report -B "$inst" -i "$work/gc.dat" >"$work/rep2.txt" ||
	fail "report --buffer $inst failed"
diff <(sed 1d "$work/rep.txt") <(sed 1d "$work/rep2.txt") >/dev/null ||
	fail "report --buffer $inst differs from reading all buffers"
"$CGTRACE" report --buffer top -i "$work/gc.dat" >/dev/null 2>"$work/rep.err" &&
	fail "report --buffer top found markers in the (unused) top-level buffer"
grep -q 'no user_markers events' "$work/rep.err" || fail "report --buffer top: no 'no user_markers events' message"
"$CGTRACE" report --buffer nosuch -i "$work/gc.dat" >/dev/null 2>"$work/rep.err" &&
	fail "report --buffer nosuch succeeded"
grep -q "no buffer \"nosuch\".*it has: top, $inst" "$work/rep.err" ||
	{ cat "$work/rep.err"; fail "report --buffer nosuch: no list of the buffers"; }
"$CGTRACE" export --chrome "$work/gc.json" -i "$work/gc.dat" 2>"$work/exp.err" ||
	{ cat "$work/exp.err"; fail "cgtrace export found no markers in the instance buffer"; }
n=$(grep -c '"ph":"B","name":"gc"' "$work/gc.json")
[ "$n" -ge 4 ] || fail "export: $n gc spans, expected at least 4"
pass "report and export read the markers of the cgtrace run instance (--buffer selects one)"

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
