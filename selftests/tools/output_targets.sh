#!/bin/bash
# description: -o and export --chrome write into what they name, never
#   replace it: a symbolic link's target is written and the link stays, a
#   FIFO's reader gets the trace, a device stays a device, an existing
#   file keeps its inode, mode and other names, "-" is standard output
#   (COMMAND's and trace-cmd's output go to stderr then). A directory is
#   refused before anything is recorded (no work directory made in "/"
#   for -o /tmp), and when the trace cannot be written where -o says, the
#   only copy is kept and named, not deleted.
# requires: set_event_cgroup, trace-cmd, user_markers (for export)
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
[ -e $T/user_events ] || skip "kernel has no user_events (CONFIG_TRACE_USER_MARKERS)"
command -v python3 >/dev/null || skip "python3 not installed"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"
cd "$work" || fail "cannot enter $work"

# is_trace FILE TAG - FILE is a trace.dat that holds the exec of the
# command that was named TAG (a copy of true)
cp /bin/true "$work/tag1" && cp /bin/true "$work/tag2" && cp /bin/true "$work/tag3" &&
	cp /bin/true "$work/tag4" && cp /bin/true "$work/tag5" || fail "cannot copy /bin/true"
is_trace() {
	trace-cmd report -i "$1" 2>/dev/null | grep -q "sched_process_exec: .*filename=$work/$2 " ||
		fail "$1 is not a trace holding the exec of $2 (size $(stat -Lc %s "$1" 2>&1))"
}
rec() { # OUT TAG [CGTRACE OPTIONS...]
	local out=$1 tag=$2
	shift 2
	"$CGTRACE" run -q "$@" -o "$out" -e sched:sched_process_exec -- "$work/$tag"
}

# a symbolic link: its target gets the trace, the link stays
: >real.dat
ln -s real.dat link.dat
rec link.dat tag1 || fail "run -o link.dat exited with $?"
[ -L link.dat ] || fail "-o link.dat: the link was replaced by a $(stat -c %F link.dat)"
[ "$(readlink link.dat)" = real.dat ] || fail "-o link.dat: the link now points to $(readlink link.dat)"
is_trace real.dat tag1
# a link to a file that does not exist yet: the file is made there
mkdir sub
ln -s sub/made.dat dangling.dat
rec dangling.dat tag1 || fail "run -o dangling.dat exited with $?"
[ -L dangling.dat ] || fail "-o dangling.dat: the link was replaced"
is_trace sub/made.dat tag1
pass "-o LINK writes the link's target (existing or not), the link stays"

# an existing file: written into (same inode, mode, the other name sees it)
echo "an older trace" >old.dat
chmod 640 old.dat
ln old.dat other-name.dat
ino=$(stat -c %i old.dat)
rec old.dat tag2 || fail "run -o old.dat exited with $?"
[ "$(stat -c %i old.dat)" = "$ino" ] || fail "-o old.dat: replaced by another file (inode $ino -> $(stat -c %i old.dat))"
[ "$(stat -c %a old.dat)" = 640 ] || fail "-o old.dat: mode 640 became $(stat -c %a old.dat)"
is_trace other-name.dat tag2
# a new file gets the mode of any new file (umask), not a temp file's 0600
(umask 027 && rec new.dat tag2) || fail "run -o new.dat exited with $?"
[ "$(stat -c %a new.dat)" = 640 ] || fail "-o new.dat under umask 027: mode $(stat -c %a new.dat), want 640"
is_trace new.dat tag2
ls -A | grep '^\.cgtrace' && fail "a work directory was left beside the output"
pass "-o FILE writes into the file (inode, mode, hard links kept); a new one follows the umask"

# a FIFO: its reader gets the trace
mkfifo pipe.dat
cat pipe.dat >from-pipe.dat &
reader=$!
rec pipe.dat tag3 || fail "run -o pipe.dat exited with $?"
wait $reader || fail "the FIFO's reader failed"
[ -p pipe.dat ] || fail "-o pipe.dat: the FIFO was replaced by a $(stat -c %F pipe.dat)"
is_trace from-pipe.dat tag3
pass "-o FIFO: the reader gets the whole trace, the FIFO stays"

# "-": standard output; COMMAND's output goes to stderr, not into the trace
"$CGTRACE" run -o - -e sched:sched_process_exec -- sh -c "echo said-by-command; $work/tag4" \
	>stdout.dat 2>stdout.err || { cat stdout.err; fail "run -o - exited with $?"; }
is_trace stdout.dat tag4
grep -q said-by-command stdout.dat && fail "-o -: COMMAND's output is in the trace"
grep -q said-by-command stdout.err || fail "-o -: COMMAND's output is not on stderr"
grep -q "^cgtrace: wrote standard output: [0-9]* events, $(stat -c %s stdout.dat) bytes" stdout.err ||
	{ cat stdout.err; fail "-o -: the summary does not say what was written to standard output"; }
rec - tag4 | cat >piped.dat || fail "run -o - | cat exited with $?"
is_trace piped.dat tag4
pass "-o -: the trace on standard output (file or pipe), COMMAND's output on stderr"

# a device, directly and through a link: it stays a device
ln -s /dev/null null-link.dat
rec null-link.dat tag5 || fail "run -o null-link.dat exited with $?"
rec /dev/null tag5 || fail "run -o /dev/null exited with $?"
[ -L null-link.dat ] && [ "$(readlink null-link.dat)" = /dev/null ] || fail "-o null-link.dat: the link was replaced"
[ -c /dev/null ] || fail "-o /dev/null replaced the device node by a $(stat -c %F /dev/null)"
ls -a /dev | grep cgtrace && fail "a work directory was left in /dev"
pass "-o /dev/null, and a link to it: the device and the link stay"

# a directory: refused before anything is made or run, wherever it is
mkdir outdir
for d in outdir outdir/ /tmp /tmp/ "$work"; do
	expect 125 "-o $d is a directory: give a file name" \
		"$CGTRACE" run -o "$d" -- touch "$work/ran"
	[ -e "$work/ran" ] && fail "-o $d: the command ran"
	expect 125 "-o $d is a directory" "$CGTRACE" record -G / -o "$d" -- touch "$work/ran"
	[ -e "$work/ran" ] && fail "record -o $d: the command ran"
done
left=$(ls -d /.cgtrace-* /tmp/.cgtrace-* outdir/.cgtrace-* .cgtrace-* 2>/dev/null)
[ -z "$left" ] || fail "-o DIR left work directories: $left"
[ -z "$(ls -A outdir)" ] || fail "-o outdir wrote into it: $(ls -A outdir)"
no_leftovers "-o DIR"
expect 125 "-o nodir/x.dat: the directory nodir does not exist" \
	"$CGTRACE" run -o nodir/x.dat -- touch "$work/ran"
[ -e "$work/ran" ] && fail "-o nodir/x.dat: the command ran"
pass "-o DIR (also /tmp, DIR/) and a missing directory are refused before anything runs"

# the trace cannot be written where -o says: the only copy is kept, named
"$CGTRACE" run -q -o /dev/full -e sched:sched_process_exec -- "$work/tag5" 2>full.err
rc=$?
[ "$rc" = 125 ] || { cat full.err; fail "run -o /dev/full exited with $rc, want 125"; }
grep -q '^cgtrace: cannot write /dev/full: No space left on device' full.err ||
	{ cat full.err; fail "-o /dev/full: the cause is not named"; }
kept=$(sed -n 's/^cgtrace: the trace is kept in \(.*\)$/\1/p' full.err)
[ -n "$kept" ] || { cat full.err; fail "-o /dev/full: no word of where the trace is"; }
is_trace "$kept" tag5
rm -rf "$(dirname "$kept")"
no_leftovers "-o /dev/full"
pass "a trace that cannot be written where -o says is kept, and its place named ($kept)"

# --- export --chrome: the same, for the JSON ---
"$CGTRACE" run -q -o m.dat -- sh -c "echo 'B|0|span' >$T/user_events; echo 'E|0' >$T/user_events" ||
	fail "run of a marker writer failed"
json_ok() { # FILE: JSON with the span
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(e.get("name") == "span" for e in d["traceEvents"]))' "$1" ||
		fail "$1 is not the export's JSON with the span"
}
: >real.json
ln -s real.json link.json
"$CGTRACE" export -i m.dat --chrome link.json || fail "export --chrome link.json exited with $?"
[ -L link.json ] || fail "export --chrome link.json replaced the link"
json_ok real.json
mkfifo pipe.json
cat pipe.json >from-pipe.json &
reader=$!
"$CGTRACE" export -i m.dat --chrome pipe.json || fail "export --chrome pipe.json exited with $?"
wait $reader
[ -p pipe.json ] || fail "export --chrome pipe.json replaced the FIFO"
json_ok from-pipe.json
ln -s /dev/null null.json
"$CGTRACE" export -i m.dat --chrome null.json || fail "export --chrome null.json exited with $?"
[ -L null.json ] || fail "export --chrome null.json replaced the link to /dev/null"
[ -c /dev/null ] || fail "export --chrome null.json replaced /dev/null"
# as a user who cannot write /dev or /proc: /dev/stdout (a file, a pipe)
# and >(...) work
chmod 755 "$work" && chmod 644 m.dat && mkdir -m 777 u || fail "cannot make a directory for nobody"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$1" 2>user.err ||
	{ cat user.err; fail "as nobody: '$1' exited with $?"; }; }
as_nobody "\"$CGTRACE\" export -i m.dat --chrome /dev/stdout >u/file.json"
json_ok u/file.json
as_nobody "\"$CGTRACE\" export -i m.dat --chrome /dev/stdout | cat >u/pipe.json"
json_ok u/pipe.json
as_nobody "\"$CGTRACE\" export -i m.dat --chrome >(cat >u/subst.json); sleep 1"
for i in $(seq 50); do python3 -c 'import json,sys; json.load(open(sys.argv[1]))' u/subst.json 2>/dev/null && break; sleep 0.1; done
json_ok u/subst.json
expect 1 "--chrome outdir is a directory" "$CGTRACE" export -i m.dat --chrome outdir
[ -z "$(ls -A outdir)" ] || fail "export --chrome outdir wrote into it"
ls -A | grep '^\.cgtrace' && fail "export left a temporary file"
pass "export --chrome: a link's target, a FIFO, /dev/null, /dev/stdout and >(...) as a user, a directory refused"
exit 0
