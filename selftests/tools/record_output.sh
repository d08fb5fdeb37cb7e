#!/bin/bash
# description: cgtrace never says it wrote a trace it did not write: from
#   a directory it cannot write it records anyway (COMMAND runs there), and
#   a trace-cmd that fails, writes nothing, or writes what libtracecmd
#   cannot read is an error (status 125) that keeps an older output as it
#   was and leaves nothing behind; "wrote F: N events" counts what the file
#   holds.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

# a directory nobody can write, even root: a read-only tmpfs
mkdir "$work/ro" && mount -t tmpfs -o ro,size=64k tmpfs "$work/ro" || fail "cannot mount a read-only tmpfs"
trap 'umount "$work/ro" 2>/dev/null; cleanup' EXIT
touch "$work/ro/x" 2>/dev/null && fail "$work/ro is writable: no read-only directory to test from"

(cd "$work/ro" && "$CGTRACE" run -o "$work/a.dat" -e sched:sched_process_exec -- \
	sh -c "pwd >$work/cmd.cwd") 2>"$work/a.err" ||
	{ cat "$work/a.err"; fail "run from a read-only directory exited with $?"; }
[ "$(cat "$work/cmd.cwd")" = "$work/ro" ] ||
	fail "COMMAND ran in $(cat "$work/cmd.cwd"), want the caller's $work/ro"
n=$(summary_events "$work/a.err")
m=$(trace-cmd report -i "$work/a.dat" 2>/dev/null | grep -cE '^ *cgtrace-[0-9]+: ')
[ -n "$n" ] && [ "$n" = "$m" ] ||
	{ cat "$work/a.err"; fail "cgtrace says it wrote ${n:-no} events, trace-cmd report reads $m"; }
grep -q "sched_process_exec: .*filename=/bin/sh\|filename=/usr/bin/sh" <(trace-cmd report -i "$work/a.dat" 2>/dev/null) ||
	fail "the command's exec is not in the trace"
ls -A "$work" | grep -q '^\.cgtrace' && fail "trace-cmd's work directory was left beside the output"
no_leftovers "a run from a read-only directory"
pass "from a read-only directory: COMMAND runs there, the trace ($n events, as trace-cmd reads it) is written"

# -o in a directory it cannot write: said before anything is made
expect 125 "cannot make $work/ro/b.dat \(Read-only file system\): give -o a file in a directory you can write" \
	"$CGTRACE" run -o "$work/ro/b.dat" -- true
no_leftovers "-o in a read-only directory"
pass "an output directory it cannot write is named before anything is made"

# trace-cmd that fails in every way; an older output stays as it was
echo "an older trace" >"$work/keep.dat"
cp "$work/keep.dat" "$work/keep.orig"
real=$(command -v trace-cmd)
cat >"$work/fake-tc" <<EOF
#!/bin/sh
# run the real trace-cmd, then break what it did (FAKE_TC says how)
[ "\$FAKE_TC" = early ] && { echo "fake-tc: refusing" >&2; exit 1; }
[ "\$FAKE_TC" = hang ] && exec sleep 60
out=; prev=
for a; do [ "\$prev" = -o ] && out=\$a; prev=\$a; done
"$real" "\$@"; rc=\$?
case \$FAKE_TC in
delete) rm -f "\$out" ;;
garbage) echo "not a trace" >"\$out" ;;
status) exit 3 ;;
esac
exit \$rc
EOF
chmod +x "$work/fake-tc"
try() { # FAKE_TC-mode regex
	FAKE_TC=$1 CGTRACE_TRACE_CMD=$work/fake-tc expect 125 "$2" \
		"$CGTRACE" run -o "$work/keep.dat" -- sh -c 'exit 4'
	grep -q 'cgtrace: wrote' "$work/out" && { cat "$work/out"; fail "$1: cgtrace says it wrote the trace"; }
	cmp -s "$work/keep.dat" "$work/keep.orig" || fail "$1: the older output was changed"
	ls -A "$work" | grep -q '^\.cgtrace' && fail "$1: trace-cmd's work directory was left"
	no_leftovers "a failed trace-cmd ($1)"
}
try early "fake-tc record ended with status 1 before it recorded anything"
try status "fake-tc record failed with status 3 .*: no trace was written"
grep -q '(the command ran and exited with status 4)' "$work/out" ||
	{ cat "$work/out"; fail "status: the command's status is not told"; }
try delete "trace-cmd ended with status 0 but wrote no trace"
try garbage "trace-cmd wrote a trace that libtracecmd cannot read"
# a trace-cmd that never starts recording: a Ctrl-C still ends cgtrace
FAKE_TC=hang CGTRACE_TRACE_CMD=$work/fake-tc "$CGTRACE" run -o "$work/keep.dat" -- true 2>"$work/hang.err" &
pid=$!
sleep 2
kill -INT $pid
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "SIGINT did not end cgtrace while trace-cmd hung"; }
wait $pid
rc=$?
[ "$rc" = 125 ] && grep -q "fake-tc record ended with status 143 before it recorded anything" "$work/hang.err" ||
	{ cat "$work/hang.err"; fail "SIGINT while trace-cmd hung: status $rc, not 125 with the reason"; }
no_leftovers "a hung trace-cmd"
CGTRACE_TRACE_CMD=$work/no-such-tc expect 125 "cannot run $work/no-such-tc in .*: No such file or directory" \
	"$CGTRACE" record -G / -o "$work/keep.dat" -- true
cmp -s "$work/keep.dat" "$work/keep.orig" || fail "a trace-cmd not found changed the older output"
pass "a trace-cmd that fails early or late, writes nothing or garbage, hangs, or is not there: status 125, the older output kept"
exit 0
