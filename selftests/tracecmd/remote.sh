#!/bin/bash
# description: --cgroup reaches the machine that records: with -N the
#   local recording sent to a trace-cmd listen holds only the cgroup, and
#   with -A the agent (here on the loopback, as a guest's would) sets the
#   filter it was given on its own tracing directory.
. "$(dirname "$0")/lib"
no_cgroup_filter

ip link set lo up 2>/dev/null
mkcg tc-a tc-b
loop_in tc-a abin
loop_in tc-b bbin

# -N: the recording is local, sent over the network
mkdir "$work/coll"
"$TC" listen -p 12351 -d "$work/coll" -l "$work/listen.log" &
bg_pids+=($!)
sleep 1
"$TC" record -q --notimeout -N 127.0.0.1:12351 --cgroup /tc-a -e sched:sched_process_exec \
	sh -c "$work/wait-ticks abin 3 && $work/wait-ticks bbin 3" ||
	fail "record -N exited with $?"
sleep 1
f=$(ls "$work"/coll/*.dat 2>/dev/null | head -1)
[ -n "$f" ] || { cat "$work/listen.log"; fail "trace-cmd listen wrote no trace"; }
"$TC" report -i "$f" >"$work/n.txt" 2>/dev/null || fail "report of the listened trace failed"
a=$(count "filename=$work/abin " "$work/n.txt") b=$(count bbin "$work/n.txt")
[ "$a" -ge 3 ] && [ "$b" = 0 ] || fail "-N --cgroup /tc-a: $a execs of abin, $b events of bbin"
pass "-N: the trace sent to listen holds /tc-a only ($a execs)"

# -A: the options after -A go to the agent, which records
# (no message time-outs: under a loaded host TCG guest a reply took
# longer than trace-cmd's default wait)
"$TC" agent --notimeout -N 127.0.0.1 -p 12352 >"$work/agent.log" 2>&1 &
bg_pids+=($!)
sleep 1
"$TC" record -q --notimeout -o "$work/ag.dat" --tsync-interval -1 \
	-A 127.0.0.1:12352 --cgroup /tc-b -e sched:sched_process_exec \
	sh -c "$work/wait-ticks abin 3 && $work/wait-ticks bbin 3" >"$work/rec.log" 2>&1
rc=$?
[ "$rc" = 0 ] || { tail -20 "$work/rec.log" "$work/agent.log"; fail "record -A exited with $rc"; }
# record names the agent's file after it: ag-127.0.0.1.dat
"$TC" report -i "$work/ag-127.0.0.1.dat" >"$work/ag.txt" 2>"$work/ag.err" ||
	{ cat "$work/ag.err" "$work/rec.log" "$work/agent.log"; fail "report of the agent's trace failed"; }
a=$(count abin "$work/ag.txt") b=$(count "filename=$work/bbin " "$work/ag.txt")
[ "$b" -ge 3 ] && [ "$a" = 0 ] || { head "$work/ag.txt"; fail "-A --cgroup /tc-b: $b execs of bbin, $a events of abin"; }
pass "-A: the agent recorded /tc-b only ($b execs)"
