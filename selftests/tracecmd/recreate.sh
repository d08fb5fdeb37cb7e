#!/bin/bash
# description: a cgroup removed and made again while trace-cmd records
#   (systemd does that when it restarts a unit) is followed: trace-cmd
#   says so, the new --cgroup's tasks are recorded as the old one's were,
#   and the new --notrace-cgroup's tasks are left out as the old one's
#   were.
. "$(dirname "$0")/lib"
no_cgroup_filter

mkcg tc-r tc-o tc-o/x
for b in oldbin newbin xoldbin xnewbin obin; do cp /bin/true "$work/$b"; done
cat >"$work/restarter" <<EOT
#!/bin/sh
# run_in CGROUP PROG - run PROG as a task of CGROUP
run_in() { sh -c "echo \\\$\\\$ > $CG/\$1/cgroup.procs; $work/\$2"; }
# live FILE CGROUP - the filter FILE lists CGROUP as a live cgroup
live() { grep -qx "\$2" $T/\$1; }
run_in tc-r oldbin
run_in tc-o/x xoldbin
rmdir $CG/tc-r $CG/tc-o/x && mkdir $CG/tc-r $CG/tc-o/x || exit 1
i=0
until live set_event_cgroup /tc-r && live set_event_notrace_cgroup /tc-o/x; do
	i=\$((i + 1))
	[ \$i -lt 100 ] || { echo "restarter: not followed in 10 s" >&2; break; }
	sleep 0.1
done
run_in tc-r newbin
run_in tc-o/x xnewbin
run_in tc-o obin
EOT
chmod +x "$work/restarter"

"$TC" record -q --cgroup /tc-r --cgroup /tc-o --notrace-cgroup /tc-o/x \
	-e sched:sched_process_exec -o "$work/r.dat" "$work/restarter" \
	>"$work/out.txt" 2>"$work/out.err" ||
	fail "record exited with $?: $(tail -3 "$work/out.err")"
"$TC" report -i "$work/r.dat" >"$work/r.txt" 2>/dev/null || fail "report failed"
execs() { count "sched_process_exec: +filename=$work/$1 " "$work/r.txt"; }
[ "$(execs oldbin)" = 1 ] && [ "$(execs obin)" = 1 ] && [ "$(execs xoldbin)" = 0 ] ||
	fail "before the re-creation: oldbin $(execs oldbin) (want 1), obin $(execs obin) (want 1), xoldbin $(execs xoldbin) (want 0)"
id=$(stat -c %i "$CG/tc-r")
grep -q "^trace-cmd: --cgroup /tc-r: its cgroup was made again (id $id); its tasks are recorded$" "$work/out.err" ||
	fail "trace-cmd did not say it followed /tc-r (id $id): $(cat "$work/out.err")"
[ "$(execs newbin)" = 1 ] ||
	fail "the exec in the re-made /tc-r is not recorded ($(execs newbin)): $(cat "$work/out.err")"
pass "--cgroup /tc-r removed and made again: followed (id $id), its new task recorded"
id=$(stat -c %i "$CG/tc-o/x")
grep -q "^trace-cmd: --notrace-cgroup /tc-o/x: its cgroup was made again (id $id); its tasks are left out$" "$work/out.err" ||
	fail "trace-cmd did not say it followed /tc-o/x (id $id): $(cat "$work/out.err")"
[ "$(execs xnewbin)" = 0 ] ||
	fail "the exec in the re-made --notrace-cgroup /tc-o/x is recorded"
pass "--notrace-cgroup /tc-o/x removed and made again: followed (id $id), its new task left out"
