#!/bin/bash
# description: cgtrace record with this trace-cmd hands it the cgroups
#   (--cgroup, --notrace-cgroup) instead of writing the filter files
#   itself, and reads the trace it writes: the listed cgroup's events
#   and markers are all there, the neighbour's are not, and the
#   instance's lists are back as they were afterwards.
. "$(dirname "$0")/lib"
no_cgroup_filter
CGTRACE=$top/build/tools/cgtrace
[ -x "$CGTRACE" ] || fail "$CGTRACE is not built (make tools)"

N=20
mkcg tc-cgt tc-cgt/skip tc-cgt-noise
loop_in tc-cgt-noise noisebin
cp /bin/true "$work/jobbin"
cp /bin/true "$work/skipbin"
cat >"$work/job" <<EOT
#!/bin/sh
echo \$\$ > $CG/tc-cgt/cgroup.procs
i=0
while [ \$i -lt $N ]; do
	i=\$((i + 1))
	$work/jobbin
	echo 'I|0|cgt-mark' > $T/user_events
done
sh -c 'echo \$\$ > $CG/tc-cgt/skip/cgroup.procs; exec $work/skipbin'
$work/wait-ticks noisebin 3
EOT
chmod +x "$work/job"

mkdir $T/instances/tc-cgt-inst || fail "cannot make an instance"
trap 'rmdir $T/instances/tc-cgt-inst 2>/dev/null; cleanup' EXIT
echo /tc-cgt-noise > $T/instances/tc-cgt-inst/set_event_cgroup || fail "cannot list /tc-cgt-noise"
CGTRACE_TRACE_CMD=$TC CGTRACE_DEBUG=1 "$CGTRACE" record -B tc-cgt-inst -G /tc-cgt \
	-X /tc-cgt/skip -e sched:sched_process_exec -e user_markers -o "$work/cgt.dat" -- "$work/job" \
	>"$work/out" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$work/out"; fail "cgtrace record exited with $rc"; }
grep -q -- "--file-version 6 -B tc-cgt-inst --cgroup /tc-cgt .*--notrace-cgroup /tc-cgt/skip" "$work/out" ||
	{ grep "running" "$work/out"; fail "cgtrace did not hand trace-cmd the cgroups"; }
pass "cgtrace handed trace-cmd --cgroup /tc-cgt and --notrace-cgroup /tc-cgt/skip"

"$TC" report -i "$work/cgt.dat" >"$work/cgt.txt" 2>/dev/null || fail "trace-cmd report failed"
n=$(count "filename=$work/jobbin " "$work/cgt.txt")
[ "$n" = "$N" ] || fail "$n execs of jobbin in the trace, want $N"
n=$(count "instant: +cgt-mark " "$work/cgt.txt")
[ "$n" = "$N" ] || fail "$n markers in the trace, want $N"
n=$(count "skipbin\|noisebin" "$work/cgt.txt")
[ "$n" = 0 ] || fail "$n events of /tc-cgt/skip or /tc-cgt-noise in the trace"
pass "all $N execs and markers of /tc-cgt, none of /tc-cgt/skip or the neighbour"
grep -q "^cgtrace: wrote $work/cgt.dat" "$work/out" ||
	fail "cgtrace did not say it wrote the trace (it read it back with its libtracecmd)"
[ "$(cat $T/instances/tc-cgt-inst/set_event_cgroup)" = /tc-cgt-noise ] ||
	fail "the instance's set_event_cgroup is '$(cat $T/instances/tc-cgt-inst/set_event_cgroup)' after the recording"
pass "the trace read back by cgtrace; the instance's list restored by trace-cmd"
exit 0
