#!/bin/bash
# description: an instance cgtrace did not make gets its filter lists back
#   as the kernel printed them, line by line, whatever they hold: a cgroup
#   whose path has a space, one removed meanwhile ("# id:N (removed)"), a pid. A
#   line the kernel does not take back is an error (status 125) naming the
#   file and the line, and the rest is restored. Whether the kernel takes a
#   line back is asked of the kernel itself, on a scratch instance.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

i=$T/instances/cgt-rs
s=$T/instances/cgt-rs-scratch
mkdir $i $s || fail "cannot make instances"
mkdir "$CG/cgt-rs-a" "$CG/cgt rs sp" "$CG/cgt-rs-gone" "$CG/cgt-rs-b" || fail "cannot make cgroups"
cgroups+=(cgt-rs-a "cgt rs sp" cgt-rs-b)
trap 'for f in set_event_cgroup set_event_notrace_cgroup; do echo >$i/$f; done
	rmdir $i $s "$CG/cgt rs sp" 2>/dev/null; cleanup' EXIT
echo /cgt-rs-a >$i/set_event_cgroup || fail "cannot list /cgt-rs-a"
echo "id:$(stat -c %i "$CG/cgt rs sp")" >>$i/set_event_cgroup || fail "cannot list '/cgt rs sp'"
echo /cgt-rs-gone >>$i/set_event_cgroup || fail "cannot list /cgt-rs-gone"
rmdir "$CG/cgt-rs-gone" || fail "cannot remove /cgt-rs-gone"
echo /cgt-rs-b >$i/set_event_notrace_cgroup || fail "cannot list /cgt-rs-b"
echo $$ >$i/set_event_pid || fail "cannot list pid $$"
before_cg=$(cat $i/set_event_cgroup) before_nt=$(cat $i/set_event_notrace_cgroup)
before_pid=$(cat $i/set_event_pid)
echo "$name: set_event_cgroup before: $(echo "$before_cg" | tr '\n' '|')"

# what the kernel makes of the lines written back, asked of a scratch
# instance: the lines it lists again, and those it does not
while read -r line; do
	echo "$line" >>$s/set_event_cgroup 2>/dev/null
done <<<"$before_cg"
want=$(cat $s/set_event_cgroup)
echo >$s/set_event_cgroup
lost=()
while read -r line; do
	grep -qxF -- "$line" <<<"$want" || lost+=("$line")
done <<<"$before_cg"
echo "$name: the kernel takes back: $(echo "$want" | tr '\n' '|'); not: ${lost[*]}"

"$CGTRACE" record -q -B cgt-rs -G /cgt-rs-b -X /cgt-rs-a -o "$work/r.dat" -- \
	sh -c "cat $i/set_event_cgroup $i/set_event_notrace_cgroup >$work/during" 2>"$work/err"
rc=$?
cat "$work/err"
grep -qx /cgt-rs-b "$work/during" && grep -qx /cgt-rs-a "$work/during" ||
	fail "while recording, the lists were not cgtrace's: $(tr '\n' ' ' <"$work/during")"
[ "$(cat $i/set_event_notrace_cgroup)" = "$before_nt" ] || fail "set_event_notrace_cgroup not restored"
[ "$(cat $i/set_event_pid)" = "$before_pid" ] || fail "set_event_pid changed"
[ "$(cat $i/set_event_cgroup)" = "$want" ] ||
	fail "set_event_cgroup is '$(cat $i/set_event_cgroup)', want '$want': its lines written back"
if [ ${#lost[@]} = 0 ]; then
	[ "$rc" = 0 ] || fail "every line can be written back, yet record exited with $rc"
	pass "set_event_cgroup restored as printed (a path with a space, a removed cgroup)"
else
	[ "$rc" = 125 ] || fail "${#lost[@]} lines cannot be written back, yet record exited with $rc"
	for line in "${lost[@]}"; do
		grep -qF "cannot restore set_event_cgroup of instance cgt-rs: the kernel did not take back its line '$line'" "$work/err" ||
			fail "the line '$line' that could not be restored is not named"
	done
	pass "set_event_cgroup: its lines written back as printed, the ${#lost[@]} the kernel did not take named, status 125"
fi
exit 0
