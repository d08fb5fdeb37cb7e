#!/bin/bash
# end_format - tools that read the event formats without the cgtrace plugin
# print user_markers/end as the kernel's own trace file does: the event's
# print_fmt computes "dur=...ms cpu=...ms" and the flags words.
. "$(dirname "$0")/testlib"

inst=$T/instances/cgt-endfmt-$$
mkdir "$inst" || fail "mkdir $inst"
echo 1 >"$inst/events/user_markers/enable"
printf 'B|0|outer\nB|0|inner\n' >"$inst/user_events"
sleep 0.02
printf 'E|0\nE|0\nE|0|orphan\n' >"$inst/user_events"

# The kernel's lines, and libtraceevent's from the same buffer, no plugin
grep -o 'end: .*' "$inst/trace" | sed 's/^end: *//' >"$work/kernel.txt"
trace-cmd extract -B "cgt-endfmt-$$" -o "$work/t.dat" >"$work/extract.out" 2>&1 ||
	{ cat "$work/extract.out"; rmdir "$inst"; fail "trace-cmd extract"; }
# extract removes an instance it read; remove it here if it did not
[ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
TRACEEVENT_PLUGIN_DIR=$work trace-cmd report -N "$work/t.dat" >"$work/report.txt" 2>"$work/report.err" ||
	{ cat "$work/report.err"; fail "trace-cmd report -N failed on the formats"; }
grep -o 'end: .*' "$work/report.txt" | sed 's/^end: *//' >"$work/raw.txt"

[ "$(wc -l <"$work/kernel.txt")" = 3 ] || fail "the kernel recorded $(wc -l <"$work/kernel.txt") ends, want 3"
have 1 'depth=1 dur=[0-9]+\.[0-9]{3}ms cpu=[0-9]+\.[0-9]{3}ms tgid=' "$work/kernel.txt" ||
	fail "kernel line without dur/cpu: $(cat "$work/kernel.txt")"
have 1 '^orphan depth=0 dur=0\.000ms cpu=0\.000ms unmatched tgid=' "$work/kernel.txt" ||
	fail "unmatched end: $(cat "$work/kernel.txt")"
if ! diff -u "$work/kernel.txt" "$work/raw.txt"; then
	fail "trace-cmd report -N prints the end events differently from the kernel"
fi
pass "trace-cmd report -N prints the 3 end lines as the kernel does"
