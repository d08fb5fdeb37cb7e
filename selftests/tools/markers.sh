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
echo 0 >"$work/mnoise.ticks"
sh -c "echo \$\$ > $CG/cgt-mnoise/cgroup.procs; n=0; while :; do echo 'I|0|noisemark' > $T/user_events; n=\$((n + 1)); echo \$n > $work/mnoise.ticks; sleep 0.1; done" &
bg_pids+=($!)

# toy_gc, a stray end, and 34 nested spans (past the 32 tracked ones)
deep=$(for i in $(seq 34); do printf 'B|0|d%d\\n' $i; done)
ends=$(for i in $(seq 34); do printf 'E|0\\n'; done)
# (first waiting until the other cgroup wrote a marker while traced)
"$CGTRACE" run -o "$work/gc.dat" -- sh -c "$work/wait-ticks $work/mnoise.ticks 2 || exit 9
	$TOOLS/toy_gc 4 4 6; echo 'E|0|stray' > $T/user_events
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
# without plugins trace-cmd prints the kernel's own format: that must work
# too (a crash here once passed this check), and the marker lines must
# differ from the plugin's: the plugin is what formats them above
TRACEEVENT_PLUGIN_DIR= trace-cmd report -N "$work/gc.dat" >"$work/raw.txt" 2>"$work/raw.err"
rc=$?
[ "$rc" = 0 ] || { tail -3 "$work/raw.err"; fail "trace-cmd report -N (no plugin) failed with status $rc"; }
have 4 'end: +gc depth=0' "$work/raw.txt" || fail "trace-cmd report -N printed no gc end"
um_lines() { grep -E ' (begin|end|counter|instant|async_begin|async_end|lost): ' "$1"; }
cmp -s <(um_lines "$work/gc.txt") <(um_lines "$work/raw.txt") &&
	fail "the marker lines are the same with and without the plugin: it did not format them"
pass "the plugin, not trace-cmd, formats the marker events; trace-cmd without it reads them too"

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
pass "report and export read the markers of the cgtrace run instance"

# --buffer on a trace with two buffers that differ: the run's instance
# (its cgroup only) and an unfiltered one that also has the other cgroup's
# markers; "mine" goes to both.
"$CGTRACE" run -q -o "$work/two.dat" --trace-cmd -B cgt-mall -e user_markers -- \
	sh -c "$work/wait-ticks $work/mnoise.ticks 2 && echo 'I|0|mine' > $T/user_events" ||
	fail "cgtrace run with a second buffer failed"
rows() { # report-file name: the count column of NAME's row, or 0
	awk -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }' "$1"
}
"$CGTRACE" report -i "$work/two.dat" >"$work/two-all.txt" || fail "report of two buffers failed"
inst2=$(sed -n 's/^trace: .*(buffers: .*\(cgtrace-[0-9]*\).*)$/\1/p' "$work/two-all.txt")
[ -n "$inst2" ] || { head -1 "$work/two-all.txt"; fail "report of two buffers: no cgtrace-PID buffer named"; }
"$CGTRACE" report -B "$inst2" -i "$work/two.dat" >"$work/two-run.txt" || fail "report --buffer $inst2 failed"
"$CGTRACE" report -B cgt-mall -i "$work/two.dat" >"$work/two-mall.txt" || fail "report --buffer cgt-mall failed"
for f in two-all two-run two-mall; do
	echo "$f: mine $(rows "$work/$f.txt" mine), noisemark $(rows "$work/$f.txt" noisemark)"
done
[ "$(rows "$work/two-all.txt" mine)" = 2 ] && [ "$(rows "$work/two-all.txt" noisemark)" -gt 0 ] ||
	{ cat "$work/two-all.txt"; fail "report of all buffers: want mine twice and noisemark"; }
[ "$(rows "$work/two-run.txt" mine)" = 1 ] && [ "$(rows "$work/two-run.txt" noisemark)" = 0 ] ||
	{ cat "$work/two-run.txt"; fail "report --buffer $inst2: want mine once and no noisemark"; }
[ "$(rows "$work/two-mall.txt" mine)" = 1 ] && [ "$(rows "$work/two-mall.txt" noisemark)" -gt 0 ] ||
	{ cat "$work/two-mall.txt"; fail "report --buffer cgt-mall: want mine once and noisemark"; }
pass "--buffer selects one of two buffers that differ"

# sweep sleeps 6 ms: a gc span is mostly off the CPU
awk '/end: +sweep/ { split($0, a, "dur="); split(a[2], d, "ms")
	split($0, b, "cpu="); split(b[2], c, "ms"); n++; if (d[1] - c[1] < 3) bad++ }
	END { exit !(n > 0 && bad == 0) }' "$work/gc.txt" ||
	fail "a sweep span (6 ms asleep) shows less than 3 ms off the CPU"
pass "dur - cpu shows the blocked time"

grep -q noisemark "$work/gc.txt" && fail "markers of the other cgroup were recorded"
# the positive control: the other cgroup's markers reached the instance
filtered=$(sed -n 's/^cgtrace: markers:.* filtered \([0-9][0-9]*\).*/\1/p' "$work/err")
[ "${filtered:-0}" -gt 0 ] ||
	{ grep 'cgtrace: markers:' "$work/err"; fail "filtered is ${filtered:-missing}: no marker of the other cgroup reached the instance"; }
grep -q 'cgtrace: markers:.*accepted' "$work/err" || fail "no marker counts in the summary"
grep -qE 'cgtrace: wrote .*(no event lost|events lost)' "$work/err" || fail "no lost-event summary"
pass "no markers from the other cgroup ($filtered filtered); counts printed"
exit 0
