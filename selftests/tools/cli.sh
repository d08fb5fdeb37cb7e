#!/bin/bash
# description: cgtrace's command line keeps trace-cmd's habits and says
#   what it does: every option a command parses is in its --help (= cgtrace
#   help CMD), its man page and the bash completion; trace-cmd record's
#   options pass through in their order (-f filters the -e before it),
#   the ones that would undo cgtrace are refused; the exit status is the
#   command's for run and record alike, 126/127 when it cannot run, 129
#   for a usage error; --user runs the command as that user.
# requires: set_event_cgroup, trace-cmd, bash-completion
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
src=$SRC
man=$TOOLS/man

# rst PAGE - a man page's text with its includes
rst() {
	local f
	cat "$src/Documentation/$1.rst"
	for f in $(sed -n 's/^\.\. include:: //p' "$src/Documentation/$1.rst"); do
		cat "$src/Documentation/$f"
	done
}
for cmd in record run stat reset report export; do
	"$CGTRACE" __options $cmd >"$work/opts" || fail "cgtrace __options $cmd failed"
	[ -s "$work/opts" ] || fail "$cmd has no long options"
	"$CGTRACE" $cmd --help >"$work/help" || fail "$cmd --help exited with $?"
	"$CGTRACE" help $cmd | cmp -s - "$work/help" || fail "cgtrace help $cmd differs from $cmd --help"
	[ -f "$man/cgtrace-$cmd.1" ] || fail "no man page cgtrace-$cmd.1 (make tools)"
	sed 's/=$//' "$work/opts" | sort -u >"$work/want"
	grep -oE -- '--[a-z0-9-]+' "$work/help" | sort -u >"$work/in-help"
	rst "cgtrace-$cmd" | grep -oE -- '\*\*--[a-z0-9-]+\*\*' | tr -d '*' | sort -u >"$work/in-man"
	missing=$(comm -23 "$work/want" "$work/in-help" | tr '\n' ' ')
	[ -z "$missing" ] || fail "$cmd --help does not name $missing"
	missing=$(comm -23 "$work/want" "$work/in-man" | tr '\n' ' ')
	[ -z "$missing" ] || fail "man cgtrace-$cmd does not name $missing"
	n=$(wc -l <"$work/want")
	total=$((${total:-0} + n))
done
pass "each of the $total long options of the 6 commands is in their --help and man pages"
# make install puts the man pages and the completion where man and bash
# look (from the build: "make tools" made them)
make -s -C "$src" install OUTPUT="$TOOLS/" DESTDIR="$work/inst" PREFIX=/usr \
	PLUGIN_DIR=/usr/lib/traceevent/plugins >"$work/install.out" 2>&1 ||
	{ cat "$work/install.out"; fail "make install into $work/inst failed (make tools first)"; }
for f in bin/cgtrace include/user_marker.h lib/traceevent/plugins/plugin_user_markers.so \
	share/bash-completion/completions/cgtrace; do
	[ -f "$work/inst/usr/$f" ] || fail "make install did not install /usr/$f"
done
for cmd in "" -record -run -stat -reset -report -export; do
	[ -f "$work/inst/usr/share/man/man1/cgtrace$cmd.1" ] || fail "make install did not install man cgtrace$cmd"
done
MANWIDTH=80 man -l "$work/inst/usr/share/man/man1/cgtrace-record.1" 2>/dev/null |
	grep -q "^ *cgtrace-record - record the tasks of cgroups into a trace.dat" ||
	fail "man cgtrace-record does not render"
pass "make install: the tool, header, plugin, completion and 7 man pages"

# the user's CFLAGS replace only the optimisation, not what the build
# needs: every compile and the link keep the libraries' flags (make -n,
# as the whole build under TCG takes minutes), and a file that includes
# tracefs.h compiles
make -n -C "$src" OUTPUT="$work/o0/" CFLAGS="-O0 -g" "$work/o0/cgtrace" >"$work/o0.n" 2>&1 ||
	{ tail -5 "$work/o0.n"; fail "make -n CFLAGS='-O0 -g' failed"; }
cflags=$(pkg-config --cflags libtracefs) libs=$(pkg-config --libs libtracefs)
n=$(grep -c -- ' -c -o ' "$work/o0.n")
[ "$n" -ge 20 ] || { cat "$work/o0.n"; fail "make -n CFLAGS='-O0 -g' compiles $n files"; }
[ "$(grep -- ' -c -o ' "$work/o0.n" | grep -F -- "-O0 -g" | grep -cF -- "$cflags")" = "$n" ] ||
	{ grep -- ' -c -o ' "$work/o0.n" | head -2; fail "make CFLAGS='-O0 -g': not every compile has -O0 -g and $cflags"; }
grep -F -- "-o $work/o0/cgtrace " "$work/o0.n" | grep -F -- "$libs" | grep -qF -- "-O0 -g" ||
	fail "make CFLAGS='-O0 -g': the link lacks -O0 -g or $libs"
make -s -C "$src" OUTPUT="$work/o0/" CFLAGS="-O0 -g" "$work/o0/obj/buffer_stats.o" >"$work/o0.out" 2>&1 ||
	{ tail -5 "$work/o0.out"; fail "make CFLAGS='-O0 -g' cannot compile buffer_stats.c (tracefs.h)"; }
pass "make CFLAGS=-O0 keeps the libraries' flags in all $n compiles and the link, and compiles"
"$CGTRACE" help >"$work/help" && grep -q '^  record  record the tasks of cgroups' "$work/help" ||
	fail "cgtrace help does not list the commands"
expect 129 "unknown command 'show': it is \"cgtrace stat\" \(as trace-cmd stat\)" "$CGTRACE" show
expect 129 "unknown command 'frobnicate'" "$CGTRACE" help frobnicate
pass "cgtrace help lists the commands; an old name says what it is now"

# bash completion: options from the binary, values where it knows them
[ -f /usr/share/bash-completion/bash_completion ] || fail "bash-completion is not installed"
mkdir $T/instances/cgt-compl || fail "cannot make an instance"
trap 'rmdir $T/instances/cgt-compl 2>/dev/null; cleanup' EXIT
complete_words() { # WORDS... - what completing the last word offers
	PATH=$TOOLS:$PATH bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_cgtrace cgtrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' "$src/cgtrace.bash" "$@"
}
complete_words cgtrace re | sort | tr '\n' ' ' | grep -qx 'record report reset ' ||
	fail "cgtrace re<TAB> offers '$(complete_words cgtrace re | tr '\n' ' ')'"
complete_words cgtrace record --notr | grep -qx -- '--notrace-cgroup' || fail "record --notr<TAB>"
complete_words cgtrace run --pa | grep -qx -- '--parent' || fail "run --pa<TAB>"
complete_words cgtrace report --by c | grep -qx cgroup || fail "report --by c<TAB>"
complete_words cgtrace stat cgt-co | grep -qx cgt-compl || fail "stat cgt-co<TAB> (an instance)"
complete_words cgtrace record -G /cgt-no | grep -q . && fail "record -G /cgt-no<TAB> offers a cgroup that does not exist"
mkdir $CG/cgt-compl-cg && cgroups+=(cgt-compl-cg)
complete_words cgtrace record -G /cgt-compl | grep -qx /cgt-compl-cg || fail "record -G /cgt-compl<TAB>"
pass "bash completion: commands, options, instances, cgroups, report keys"

# trace-cmd's options pass through in their order: -f filters the -e
# before it (the execs of keepbin only), and not the -e after it
cp /bin/true "$work/keepbin"
cp /bin/true "$work/dropbin"
"$CGTRACE" run -q -o "$work/f.dat" -e sched:sched_process_exec -f 'filename ~ "*keepbin"' \
	-e sched:sched_process_exit -- sh -c "$work/keepbin; $work/dropbin" ||
	fail "run with -e -f -e failed"
report "$work/f.dat" >"$work/f.txt"
grep -q "sched_process_exec: .*keepbin" "$work/f.txt" || fail "the -f kept no exec of keepbin"
grep -q "sched_process_exec: .*dropbin" "$work/f.txt" && fail "the -f did not filter dropbin's exec"
have 2 'sched_process_exit:' "$work/f.txt" || fail "the -f filtered the -e after it too"
expect 129 '-F filters by the command.s pid: "cgtrace run -- COMMAND" records a command and all it starts' \
	"$CGTRACE" record -F -- true
expect 129 "--temp: cgtrace keeps trace-cmd's temporary files" "$CGTRACE" run --temp /tmp -- true
expect 129 'unknown option --frob \(neither cgtrace.s nor trace-cmd record.s\)' "$CGTRACE" record --frob
expect 129 'run: -G is record.s: run traces the cgroup it makes for COMMAND' "$CGTRACE" run -G / -- true
expect 129 '-c follows the children of the -P processes' "$CGTRACE" record -c -- true
expect 129 'option -b needs an argument' "$CGTRACE" record -b
no_leftovers "usage errors"
pass "trace-cmd's options pass through in their order; -F --temp and unknown ones are refused (129)"

# the exit status: the command's, for run and record alike
e="-q -e sched:sched_process_exec -o $work/s.dat"
expect 1 "" "$CGTRACE" record $e -- false
expect 7 "" "$CGTRACE" record $e -- sh -c 'exit 7'
expect 1 "" "$CGTRACE" run $e -- false
expect 143 "" "$CGTRACE" run $e -- sh -c 'kill -TERM $$'
expect 127 "cannot run $work/nosuch: No such file or directory" "$CGTRACE" run $e -- "$work/nosuch"
touch "$work/plain"
expect 126 "cannot run $work/plain: Permission denied" "$CGTRACE" run $e -- "$work/plain"
no_leftovers "the exit status runs"
pass "run and record -- COMMAND exit with its status (1 7 143), 127 not found, 126 not executable"

# --user: the command runs as that user, inside the traced cgroup
chmod 711 "$work" && mkdir -m 777 "$work/u" || fail "cannot make a directory for nobody"
"$CGTRACE" run -q --user nobody -o "$work/u.dat" -e sched:sched_process_exec -- \
	sh -c "id -u >$work/u/uid; cat /proc/self/cgroup >$work/u/cg" || fail "run --user nobody failed"
[ "$(cat "$work/u/uid")" = "$(id -u nobody)" ] || fail "--user nobody ran as uid $(cat "$work/u/uid")"
grep -qE '^0::/cgtrace-run-[0-9]+$' "$work/u/cg" || fail "--user: the command ran in $(cat "$work/u/cg")"
grep -q "sched_process_exec: .*filename=/usr/bin/id\|filename=/bin/id" <(report "$work/u.dat") ||
	fail "--user: the command's exec of id is not in the trace"
expect 129 "--user: no user named cgt-nobody-here" "$CGTRACE" run --user cgt-nobody-here -- true
pass "--user runs the command as that user, in the traced cgroup"

# record without -G or -P records every task, and says so; with one it
# does not say it; -q keeps the note back
loop_in_cgroup cgt-cli-other otherbin
"$CGTRACE" record -e sched:sched_process_exec -o "$work/all.dat" -- \
	"$work/wait-ticks" "$work/otherbin.ticks" 2 2>"$work/all.err" ||
	{ cat "$work/all.err"; fail "record without -G or -P exited with $?"; }
grep -q '^cgtrace: note: no -G or -P: recording every task (-G CGROUP or -P PID records only those)$' "$work/all.err" ||
	{ cat "$work/all.err"; fail "record without -G or -P does not say that it records every task"; }
grep -q "sched_process_exec: .*filename=$work/otherbin" <(report "$work/all.dat") ||
	fail "record without -G or -P: the exec of a task in another cgroup is not in the trace"
"$CGTRACE" record -X /cgt-cli-other -e sched:sched_process_exec -o "$work/all.dat" -- true 2>"$work/all.err" ||
	fail "record -X exited with $?"
grep -q '^cgtrace: note: no -G or -P: recording every task but those of the -X cgroups' "$work/all.err" ||
	{ cat "$work/all.err"; fail "record with only -X does not say what it records"; }
for opts in "-G /cgt-cli-other" "-q"; do
	"$CGTRACE" record $opts -e sched:sched_process_exec -o "$work/all.dat" -- true 2>"$work/all.err" ||
		fail "record $opts exited with $?"
	grep -q 'recording every task' "$work/all.err" && fail "record $opts says it records every task"
done
pass "record without -G or -P says it records every task (another cgroup's exec is in the trace); with -G or -q it does not"
exit 0
