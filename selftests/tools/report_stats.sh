#!/bin/bash
# description: what cgtrace report computes, checked against the raw
#   events (trace-cmd report -R): p50 and p99 (nearest rank) over 100
#   durations; ends deeper than the kernel tracks counted as untracked per
#   name, not as spans; --by cgroup from the cgroup notes in the trace; the
#   rate limit's lost records, per process, in the report and the export.
# requires: set_event_cgroup, user_markers, trace-cmd, python3
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"
[ -d $T/events/user_markers ] && [ -e $T/user_events ] || skip "kernel has no user_markers"
command -v python3 >/dev/null || fail "python3 is not installed"
U=$T/user_events

# raw FILE - the events with every field as a number (no plugin, no format)
raw() { trace-cmd report -R -i "$1" 2>/dev/null; }

# 100 spans "s" of varied length, then 34 nested spans (the kernel tracks
# 32: the two deepest ends come untracked, with no times), in /cgt-ra; a
# second writer in /cgt-rb; both noted by cgtrace record (they live long
# enough to be sampled before they write)
mkdir $CG/cgt-ra $CG/cgt-rb && cgroups+=(cgt-ra cgt-rb) || fail "cannot make cgroups"
deep=$(for i in $(seq 34); do printf 'B|0|d%d\\n' $i; done)
ends=$(for i in $(seq 34); do printf 'E|0\\n'; done)
cat >"$work/a.sh" <<EOF
echo \$\$ >$CG/cgt-ra/cgroup.procs; sleep 0.6
i=0; while [ \$i -lt 100 ]; do
	echo 'B|0|s' >$U; [ \$((i % 7)) = 0 ] && sleep 0.01; echo 'E|0' >$U; i=\$((i + 1))
done
printf '$deep' >$U; printf '$ends' >$U
EOF
cat >"$work/b.sh" <<EOF
echo \$\$ >$CG/cgt-rb/cgroup.procs; sleep 0.6
for i in 1 2 3; do echo 'B|0|s' >$U; echo 'E|0' >$U; done
EOF
"$CGTRACE" record -q -G /cgt-ra -G /cgt-rb -e user_markers -o "$work/s.dat" -- \
	sh -c "sh $work/a.sh & sh $work/b.sh & wait" || fail "the recording failed"
"$CGTRACE" report -i "$work/s.dat" >"$work/s.txt" || fail "report failed"
"$CGTRACE" report -i "$work/s.dat" --by cgroup >"$work/cg.txt" 2>"$work/cg.err" ||
	{ cat "$work/cg.err"; fail "report --by cgroup of a cgtrace record trace failed"; }
raw "$work/s.dat" >"$work/s.raw"
cat "$work/s.txt"
python3 - "$work/s.raw" "$work/s.txt" "$work/cg.txt" <<'EOF' || exit 1
import math, re, sys
raw, rep, cg = (open(f).read() for f in sys.argv[1:4])
def fail(what):
    print('report_stats: FAIL: ' + what); sys.exit(1)
# the durations of the ends of "s" that carry times (flags 0), as recorded
durs = sorted(int(m.group(2)) for m in re.finditer(
    r' end: +name=s tgid=\d+ depth=0 flags=(\d+) duration_ns=(\d+)', raw) if m.group(1) == '0')
if len(durs) != 103:
    fail('%d ends of s in the raw events, want 103' % len(durs))
def fmt(ns):   # cgtrace's tr_format_dur()
    if ns >= 10**10: return '%.3fs' % (ns / 1e9)
    if ns >= 10**6: return '%.3fms' % (ns / 1e6)
    if ns >= 1000: return '%.3fus' % (ns / 1e3)
    return '%dns' % ns
def rank(p):   # nearest rank
    return durs[max(1, math.ceil(len(durs) * p / 100)) - 1]
row = [l.split() for l in rep.splitlines() if l.split()[:1] == ['s']][0]
# NAME COUNT TOTAL MIN MEAN P50 P99 MAX ON-CPU BLOCKED EXITED UNMAT UNTRK
want = ['s', '103', fmt(sum(durs)), fmt(durs[0]), fmt(sum(durs) // 103),
        fmt(rank(50)), fmt(rank(99)), fmt(durs[-1])]
if row[:8] != want:
    fail('row s is %s, the raw durations give %s' % (row[:8], want))
if rank(99) == durs[-1] or rank(50) == rank(99):
    fail('the 103 durations do not tell p50, p99 and max apart: %s' % durs[-3:])
print('report_stats: ok: count, total, min, mean, p50, p99, max of 103 spans are those of the raw durations')
# untracked: d33 and d34 have no times; d1..d32 one span each
rows = {l.split()[0]: l.split() for l in rep.splitlines() if re.match(r'd\d+ ', l)}
for i in range(1, 35):
    r = rows.get('d%d' % i)
    if not r: fail('no row d%d' % i)
    if i <= 32 and (r[1] != '1' or r[12] != '0'): fail('d%d: %s, want one span, 0 untracked' % (i, r))
    if i > 32 and (r[1] != '0' or r[2] != '-' or r[12] != '1'): fail('d%d: %s, want no span, 1 untracked' % (i, r))
if '(0 unmatched, 0 exited, 2 untracked)' not in rep:
    fail('the summary does not count 2 untracked ends')
print('report_stats: ok: the 2 untracked ends are counted per name (UNTRK), not as spans of no time')
# --by cgroup: 100 + 34 + ... of /cgt-ra, 3 of /cgt-rb, from the notes
grp = {(l.split()[0], l.split()[1]): l.split()[2] for l in cg.splitlines()
       if l.startswith('/cgt-r')}
if grp.get(('/cgt-ra', 's')) != '100' or grp.get(('/cgt-rb', 's')) != '3':
    fail('--by cgroup: %s, want /cgt-ra s 100 and /cgt-rb s 3' % grp)
if '(cgroups of %s from the trace)' % sys.argv[1].replace('.raw', '.dat') not in cg:
    fail('--by cgroup does not say the cgroups came from the trace')
print('report_stats: ok: --by cgroup from the notes in the trace: /cgt-ra 100 spans, /cgt-rb 3')
EOF

# The rate limit: 5 records a second, a burst of 5, on an instance made
# beforehand; 60 instants: the kernel drops what is over and says so with
# a "lost" event per process, which report and export count
mkdir $T/instances/cgt-rate || fail "cannot make an instance"
trap 'rmdir $T/instances/cgt-rate 2>/dev/null; cleanup' EXIT
echo '5 5' >$T/instances/cgt-rate/user_events_rate || fail "cannot set user_events_rate"
"$CGTRACE" record -B cgt-rate -e user_markers -o "$work/r.dat" -- sh -c "
	for i in \$(seq 60); do echo 'I|0|burst' >$U; done; sleep 1.2; echo 'I|0|after' >$U" \
	2>"$work/r.err" || { cat "$work/r.err"; fail "the rate-limited recording failed"; }
limited=$(marker_count "$work/r.err" rate_limited) reported=$(marker_count "$work/r.err" lost_reported)
lost=$(raw "$work/r.dat" | sed -n 's/.* lost: .*count=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
tgid=$(raw "$work/r.dat" | sed -n 's/.* lost: .*tgid=\([0-9]*\).*/\1/p' | head -1)
echo "$name: rate_limited $limited, lost_reported $reported, lost events count $lost (tgid $tgid)"
[ "${limited:-0}" -gt 0 ] && [ "$lost" = "$reported" ] && [ "$lost" -gt 0 ] ||
	{ cat "$work/r.err"; fail "the kernel's lost events ($lost) are not its lost_reported ($reported)"; }
"$CGTRACE" report -i "$work/r.dat" >"$work/r.txt" || fail "report of the rate-limited trace failed"
grep -qE "^  sh +tgid $tgid +$lost\$" "$work/r.txt" ||
	{ cat "$work/r.txt"; fail "report does not count $lost lost records of tgid $tgid"; }
"$CGTRACE" export --chrome "$work/r.json" -i "$work/r.dat" || fail "export of the rate-limited trace failed"
python3 - "$work/r.json" "$lost" "$tgid" <<'EOF' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
lost = [e for e in ev if e['ph'] == 'i' and e['name'] == 'lost records']
n = sum(e['args']['count'] for e in lost)
if n != int(sys.argv[2]) or any(e['pid'] != int(sys.argv[3]) for e in lost):
    print('report_stats: FAIL: export: %d lost records on %s, want %s of tgid %s' %
          (n, [e['pid'] for e in lost], sys.argv[2], sys.argv[3]))
    sys.exit(1)
EOF
pass "the rate limit's $lost lost records: in the report (tgid $tgid) and the export, as the kernel counted"
exit 0
