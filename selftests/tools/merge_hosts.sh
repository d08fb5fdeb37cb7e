#!/bin/bash
# description: report and export merge several trace.dat files (one per
#   host) in wall-clock time: two recordings made at once under two host
#   names (the host name is taken when a recording starts), one of them
#   sent to a "trace-cmd listen" on the loopback (-N), a request handed
#   from one to the other over a fifo; each host is one process of the Chrome JSON, named by the host,
#   report --by host groups by it, the handed-over request keeps its order,
#   and the report says how far apart the clocks may be.
# requires: set_event_cgroup, user_markers, trace-cmd, python3
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
[ -e $T/user_events ] && [ -d $T/events/user_markers ] || skip "kernel has no user_markers"
command -v python3 >/dev/null || skip "no python3"

loop_in_cgroup cgt-bystander bystanderbin
U=$T/user_events
mkfifo "$work/pipe"
# host-a: 3 requests, each begun here ("S") and handed over the fifo;
# host-b: takes each and ends it there ("F"), inside a "serve" span
cat >"$work/a.sh" <<EOF
for i in 1 2 3; do
	echo 'B|0|client' >$U
	echo "S|0|req|\$i" >$U
	echo \$i >&3
	echo 'E|0' >$U
	sleep 0.2
done
EOF
cat >"$work/b.sh" <<EOF
while read i; do
	echo 'B|0|serve' >$U
	echo "F|0|req|\$i" >$U
	echo 'E|0' >$U
done
EOF
set_host() { echo "$1" >/proc/sys/kernel/hostname; }
old_host=$(cat /proc/sys/kernel/hostname)
trap 'set_host "$old_host"; cleanup' EXIT
mkdir "$work/coll"
trace-cmd listen -p 12345 -d "$work/coll" -l "$work/listen.log" &
bg_pids+=($!)
sleep 0.5
set_host host-b
"$CGTRACE" run -q -N 127.0.0.1:12345 -- sh -c "sh $work/b.sh <$work/pipe" &
b=$!
# its instance exists: it has taken the host name
for i in $(seq 100); do [ -d $T/instances/cgtrace-$b ] && break; sleep 0.1; done
set_host host-a
"$CGTRACE" run -q -o "$work/a.dat" -- sh -c "exec 3>$work/pipe; sh $work/a.sh" ||
	fail "the recording of host-a failed"
wait $b || fail "the recording of host-b failed"
set_host "$old_host"
sleep 0.5
mv "$work"/coll/*.dat "$work/b.dat" || { cat "$work/listen.log"; fail "the collector has no trace of host-b"; }

"$CGTRACE" report -i "$work/a.dat" -i "$work/b.dat" --by host >"$work/rep.txt" 2>&1 ||
	{ cat "$work/rep.txt"; fail "report of two files failed"; }
cat "$work/rep.txt"
awk '$1 == "host-a" && $2 == "client" && $3 == 3 { a = 1 }
     $1 == "host-b" && $2 == "serve" && $3 == 3 { b = 1 }
     END { exit !(a && b) }' "$work/rep.txt" || fail "--by host: no host-a client x3 and host-b serve x3"
grep -qE '^host-a +req +3 ' "$work/rep.txt" || fail "the 3 requests are not paired across the hosts"
grep -q 'bystander' "$work/rep.txt" && fail "the bystander is in the report"
grep -qE '^clock: host-a: wall = trace clock \+ offset from cgtrace clock samples \([0-9]+ samples; it strayed by up to [0-9.]+[mun]?s while recording\)' "$work/rep.txt" ||
	fail "the report does not say where host-a's wall clock came from"
grep -q "^clock: 3 async spans host-a -> host-b, 0 host-b -> host-a: clock(host-b) - clock(host-a) is <= " "$work/rep.txt" ||
	fail "the report does not bound the clocks by the handed-over requests"
# whether the clock is synchronized is asked of the kernel here, not
# taken from the report: adjtimex() returns TIME_ERROR (5) while it is not
# (both hosts are this guest, whose clock no NTP disciplines)
unsync=$(python3 -c 'import ctypes
buf = ctypes.create_string_buffer(512)	# struct timex, modes 0: only read
print(int(ctypes.CDLL(None, use_errno=True).adjtimex(buf) == 5))') ||
	fail "cannot ask adjtimex() whether the clock is synchronized"
if [ "$unsync" = 1 ]; then
	grep -q 'clock NOT synchronized (adjtimex: STA_UNSYNC)' "$work/rep.txt" ||
		fail "adjtimex() says the clock is not synchronized, the report does not"
	grep -q "the hosts' clocks may be apart by any amount" "$work/rep.txt" ||
		fail "unsynchronized clocks, but the report does not say they may be apart by any amount"
	grep -q "the hosts' clocks were at most .* apart" "$work/rep.txt" &&
		fail "unsynchronized clocks, but the report states a bound"
else
	grep -q 'clock NOT synchronized' "$work/rep.txt" &&
		fail "adjtimex() says the clock is synchronized, the report says it is not"
	grep -q "the hosts' clocks were at most .* apart" "$work/rep.txt" || fail "synchronized clocks, but no bound on them"
fi
echo "$name: adjtimex: the clock is $([ "$unsync" = 1 ] && echo not) synchronized"
pass "report merges two hosts: --by host, requests paired across hosts, the clock bound stated"

"$CGTRACE" export --chrome "$work/m.json" -i "$work/a.dat" -i "$work/b.dat" ||
	fail "export of two files failed"
python3 - "$work/m.json" <<'EOF' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
def check(ok, what):
    if not ok:
        print('FAIL: export:', what); sys.exit(1)
procs = {e['pid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'}
check('host-a' in procs.values() and 'host-b' in procs.values(), 'processes named host-a and host-b: %s' % procs)
host = {v: k for k, v in procs.items()}
def spans(pid, name):
    return [e for e in ev if e['ph'] == 'B' and e['name'] == name and e['pid'] == pid]
check(len(spans(host['host-a'], 'client')) == 3, 'host-a has 3 client spans')
check(len(spans(host['host-b'], 'serve')) == 3, 'host-b has 3 serve spans')
check(not any('bystander' in json.dumps(e) for e in ev), 'nothing of the bystander')
b = {e['id2']['global']: e for e in ev if e['ph'] == 'b' and e['name'] == 'req'}
f = {e['id2']['global']: e for e in ev if e['ph'] == 'e' and e['name'] == 'req'}
check(sorted(b) == sorted(f) == ['1', '2', '3'], 'requests 1-3 begun and ended: %s %s' % (sorted(b), sorted(f)))
for i in b:
    check(b[i]['pid'] == host['host-a'] and f[i]['pid'] == host['host-b'], 'req %s goes from host-a to host-b' % i)
    check(b[i]['ts'] <= f[i]['ts'], 'req %s ends on host-b (%.3f) before it begins on host-a (%.3f)' % (i, f[i]['ts'], b[i]['ts']))
ts = [e['ts'] for e in ev if e['ph'] != 'M']
check(min(ts) > 1e15, 'timestamps are wall-clock microseconds: %s' % min(ts))
EOF
pass "export: one process per host, named by it, requests in order across hosts"

# a file without a wall-clock reference cannot be merged: said, exit 1
trace-cmd record -q -e sched:sched_process_exec -o "$work/plain.dat" true >/dev/null 2>&1
"$CGTRACE" report -i "$work/a.dat" -i "$work/plain.dat" >"$work/err.txt" 2>&1 &&
	fail "report merged a file without a wall-clock reference"
grep -q "plain.dat: no wall-clock reference" "$work/err.txt" || { cat "$work/err.txt"; fail "no message for the file"; }
pass "a file without a wall-clock reference is named"
exit 0
