#!/bin/bash
# description: a write that fails fails the command, with the cause named:
#   report, stat and export onto /dev/full (a full disk); export --chrome -
#   writes nothing at all when its input is bad (no partial JSON header);
#   report, export, stat and reset name a bad option in cgtrace's words
#   (not getopt's) and exit 129.
# requires: set_event_cgroup, trace-cmd, user_markers
. "$(dirname "$0")/testlib"
[ -e $T/user_events ] || skip "kernel has no user_events (CONFIG_TRACE_USER_MARKERS)"
cd "$work" || fail "cannot enter $work"

"$CGTRACE" run -q -o m.dat -- sh -c "echo 'B|0|span' >$T/user_events; echo 'E|0' >$T/user_events" ||
	fail "run of a marker writer failed"
# positive controls: the same commands succeed onto a file
"$CGTRACE" report -i m.dat >report.txt || fail "report -i m.dat exited with $?"
grep -q '^span ' report.txt || { cat report.txt; fail "report shows no span"; }
"$CGTRACE" export -i m.dat --chrome - >m.json || fail "export --chrome - exited with $?"
[ -s m.json ] || fail "export --chrome - wrote nothing"

# onto /dev/full: status 1 and the cause, however small the output
expect 1 '^cgtrace: cannot write standard output: No space left on device$' \
	sh -c "\"$CGTRACE\" report -i m.dat >/dev/full"
expect 1 '^cgtrace: cannot write standard output: No space left on device$' \
	sh -c "\"$CGTRACE\" stat >/dev/full"
expect 1 '^cgtrace: cannot write standard output: No space left on device$' \
	sh -c "\"$CGTRACE\" export -i m.dat --chrome - >/dev/full"
expect 1 '^cgtrace: cannot write /dev/full: No space left on device$' \
	"$CGTRACE" export -i m.dat --chrome /dev/full
expect 1 '^cgtrace: cannot write standard output: No space left on device$' \
	sh -c "\"$CGTRACE\" help record >/dev/full"
pass "report, stat, export (- and a file) and help onto /dev/full: status 1, 'No space left on device'"

# bad input: export --chrome - writes nothing, not even the JSON's head
echo "not a trace" >bad.dat
"$CGTRACE" run -q -o nomarkers.dat -e sched:sched_process_exec -- true || fail "run without markers failed"
for f in bad.dat nomarkers.dat missing.dat; do
	"$CGTRACE" export -i $f --chrome - >bad.json 2>bad.err
	rc=$?
	[ "$rc" = 1 ] || { cat bad.err; fail "export -i $f --chrome - exited with $rc, want 1"; }
	[ -s bad.err ] || fail "export -i $f: no message"
	[ -s bad.json ] && fail "export -i $f --chrome - wrote $(wc -c <bad.json) bytes: $(head -c 60 bad.json)"
	# and an older file is left as it was
	echo old >old.json
	"$CGTRACE" export -i $f --chrome old.json 2>/dev/null && fail "export -i $f --chrome old.json succeeded"
	[ "$(cat old.json)" = old ] || fail "export -i $f --chrome old.json changed the older file"
done
ls -A | grep '\.cgtrace-export' && fail "a failed export left its temporary file"
pass "export --chrome - of a bad, marker-less or missing input writes nothing; an older OUT stays"

# bad options: named in cgtrace's style, status 129, no getopt words
badopt() { # WANT COMMAND...
	local want=$1
	shift
	expect 129 "^cgtrace: $want$" "$CGTRACE" "$@"
	grep -qE 'unrecognized option|invalid option|requires an argument' "$work/out" &&
		{ cat "$work/out"; fail "'$*': getopt's own message"; }
	grep -q "^(cgtrace $1 --help lists the options)$" "$work/out" ||
		{ cat "$work/out"; fail "'$*': no pointer to --help"; }
}
badopt "report: unknown option --nosuch" report --nosuch -i m.dat
badopt "report: unknown option -x" report -x
badopt "report: option -i needs an argument" report -i
badopt "report: option --wall takes no argument" report --wall=yes
badopt "export: option --chrome needs an argument" export --chrome
badopt "export: unknown option --json" export --json=x.json -i m.dat
badopt "stat: unknown option -Z" stat -Z
badopt "reset: option --instance needs an argument" reset --instance
pass "report, export, stat and reset name a bad option (unknown, missing or extra argument): 129"
exit 0
