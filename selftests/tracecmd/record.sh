#!/bin/bash
# description: trace-cmd record --cgroup records every event and marker of
#   the listed cgroup and its descendants, and nothing of a noisy
#   neighbour running at the same time; --notrace-cgroup wins; trace-cmd
#   report shows the result.
. "$(dirname "$0")/lib"
no_cgroup_filter

N=40
mkcg tc-job tc-job/helper tc-noise
loop_in tc-noise noisebin
cp /bin/true "$work/jobbin"
cp /bin/true "$work/helperbin"
# The job: moves itself into /tc-job, then N times runs jobbin and writes
# a numbered marker, and once starts a helper in /tc-job/helper; it waits
# until the noise ran meanwhile.
cat >"$work/job" <<EOT
#!/bin/sh
echo \$\$ > $CG/tc-job/cgroup.procs
i=0
while [ \$i -lt $N ]; do
	i=\$((i + 1))
	$work/jobbin
	echo job \$i > $T/trace_marker
	[ \$i = 1 ] && sh -c 'echo \$\$ > $CG/tc-job/helper/cgroup.procs; exec $work/helperbin'
done
$work/wait-ticks noisebin 3
EOT
chmod +x "$work/job"

"$TC" record -q --cgroup /tc-job -e sched:sched_process_exec -o "$work/job.dat" "$work/job" ||
	fail "trace-cmd record --cgroup exited with $?"
"$TC" report -i "$work/job.dat" >"$work/job.txt" 2>"$work/report.err" ||
	fail "trace-cmd report failed: $(cat "$work/report.err")"
execs=$(count "sched_process_exec: +filename=$work/jobbin " "$work/job.txt")
markers=0
for ((i = 1; i <= N; i++)); do
	n=$(count ": job $i\$" "$work/job.txt")
	[ "$n" = 1 ] || fail "marker 'job $i' is in the trace $n times, want 1"
	markers=$((markers + 1))
done
[ "$execs" = "$N" ] || fail "$execs execs of jobbin in the trace, want all $N"
count "filename=$work/helperbin " "$work/job.txt" >/dev/null ||
	fail "the exec in the descendant cgroup /tc-job/helper is not in the trace"
pass "all $N execs and $markers markers of /tc-job and its descendant's exec recorded"
n=$(count "noisebin" "$work/job.txt")
[ "$n" = 0 ] || { grep noisebin "$work/job.txt" | head -3; fail "$n events or markers of /tc-noise in the trace"; }
pass "nothing of the noisy neighbour /tc-noise, which ran meanwhile"

# notrace wins over the trace list: the helper is left out
"$TC" record -q --cgroup tc-job --notrace-cgroup /tc-job/helper -e sched:sched_process_exec \
	-o "$work/nohelper.dat" "$work/job" || fail "record --notrace-cgroup exited with $?"
"$TC" report -i "$work/nohelper.dat" >"$work/nohelper.txt" 2>/dev/null || fail "report failed"
execs=$(count "filename=$work/jobbin " "$work/nohelper.txt")
[ "$execs" = "$N" ] || fail "--notrace-cgroup: $execs execs of jobbin, want $N"
n=$(count "helperbin" "$work/nohelper.txt")
[ "$n" = 0 ] || fail "--notrace-cgroup /tc-job/helper: $n of its events recorded"
pass "--notrace-cgroup /tc-job/helper wins over --cgroup tc-job (given without its '/')"

# Without a filter, the same recording holds the noise: the checks above
# are not empty because nothing was recorded
"$TC" record -q -e sched:sched_process_exec -o "$work/all.dat" "$work/job" ||
	fail "record without --cgroup exited with $?"
"$TC" report -i "$work/all.dat" >"$work/all.txt" 2>/dev/null || fail "report failed"
count "filename=$work/noisebin " "$work/all.txt" >/dev/null ||
	fail "without --cgroup the noise is not recorded either"
pass "without --cgroup the noise is recorded"

# The filter is gone afterwards
[ -z "$(cat $T/set_event_cgroup $T/set_event_notrace_cgroup)" ] ||
	fail "the top level's cgroup lists are not empty after the recordings"
pass "the top level's cgroup lists are empty again"
