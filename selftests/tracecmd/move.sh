#!/bin/bash
# description: a task that moves into the recorded cgroup while trace-cmd
#   records is recorded from its next event on (an exec and a marker), and
#   one that moves out is not recorded from its next event on.
. "$(dirname "$0")/lib"
no_cgroup_filter

mkcg tc-in
for b in beforebin insidebin afterbin; do cp /bin/true "$work/$b"; done
cat >"$work/mover" <<EOT
#!/bin/sh
i=0
while [ \$i -lt 5 ]; do
	i=\$((i + 1))
	$work/beforebin
	echo before \$i > $T/trace_marker
done
echo \$\$ > $CG/tc-in/cgroup.procs
echo moved-in > $T/trace_marker
$work/insidebin
echo inside > $T/trace_marker
echo \$\$ > $CG/cgroup.procs
echo moved-out > $T/trace_marker
$work/afterbin
EOT
chmod +x "$work/mover"

"$TC" record -q --cgroup /tc-in -e sched:sched_process_exec -o "$work/m.dat" "$work/mover" ||
	fail "record exited with $?"
"$TC" report -i "$work/m.dat" >"$work/m.txt" 2>/dev/null || fail "report failed"
n=$(count "beforebin|: before [0-9]" "$work/m.txt")
[ "$n" = 0 ] || fail "$n events of the task recorded before it moved in"
[ "$(count ': moved-in$' "$work/m.txt")" = 1 ] ||
	{ cat "$work/m.txt"; fail "the marker written right after the move in is not recorded"; }
[ "$(count "filename=$work/insidebin " "$work/m.txt")" = 1 ] &&
	[ "$(count ': inside$' "$work/m.txt")" = 1 ] ||
	fail "the exec and marker inside the cgroup are not recorded"
pass "a task moving in is recorded from its next event (marker, exec, marker)"
n=$(count "afterbin|: moved-out$" "$work/m.txt")
[ "$n" = 0 ] || fail "$n events recorded after the task moved out"
pass "a task moving out is not recorded from its next event"
