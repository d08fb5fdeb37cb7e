#!/bin/bash
# description: an instance cgtrace did not make gets its filter lists back
#   as the kernel printed them, line by line, whatever they hold: a cgroup
#   whose path has a space, one removed meanwhile ("# id:N (removed)"), a pid. A
#   line the kernel does not take back is an error (status 125) naming the
#   file and the line, and the rest is restored. What comes back is the
#   documented listing (Documentation/trace/cgroup-filter.rst): a space
#   escaped as \040, a removed cgroup as the comment "# id:N
#   (removed)", which a write leaves out, so that line is the one named.
# requires: set_event_cgroup, trace-cmd
. "$(dirname "$0")/testlib"
[ -e $T/set_event_cgroup ] || skip "kernel has no set_event_cgroup"

i=$T/instances/cgt-rs
mkdir $i || fail "cannot make an instance"
mkdir "$CG/cgt-rs-a" "$CG/cgt rs sp" "$CG/cgt-rs-gone" "$CG/cgt-rs-b" || fail "cannot make cgroups"
cgroups+=(cgt-rs-a "cgt rs sp" cgt-rs-b)
trap 'for f in set_event_cgroup set_event_notrace_cgroup; do echo >$i/$f; done
	rmdir $i "$CG/cgt rs sp" 2>/dev/null; cleanup' EXIT
echo /cgt-rs-a >$i/set_event_cgroup || fail "cannot list /cgt-rs-a"
echo "id:$(stat -c %i "$CG/cgt rs sp")" >>$i/set_event_cgroup || fail "cannot list '/cgt rs sp'"
echo /cgt-rs-gone >>$i/set_event_cgroup || fail "cannot list /cgt-rs-gone"
gone_id=$(stat -c %i "$CG/cgt-rs-gone")
rmdir "$CG/cgt-rs-gone" || fail "cannot remove /cgt-rs-gone"
echo /cgt-rs-b >$i/set_event_notrace_cgroup || fail "cannot list /cgt-rs-b"
echo $$ >$i/set_event_pid || fail "cannot list pid $$"
before_cg=$(cat $i/set_event_cgroup) before_nt=$(cat $i/set_event_notrace_cgroup)
before_pid=$(cat $i/set_event_pid)
echo "$name: set_event_cgroup before: $(echo "$before_cg" | tr '\n' '|')"

# the listing as documented: the space escaped, the removed cgroup a
# comment; written back, the comment lists nothing
want=$(printf '%s\n' /cgt-rs-a '/cgt\040rs\040sp')
gone="# id:$gone_id (removed)"
[ "$(sort <<<"$before_cg")" = "$(printf '%s\n' "$want" "$gone" | sort)" ] ||
	fail "set_event_cgroup lists '$(echo "$before_cg" | tr '\n' '|')', want /cgt-rs-a, /cgt\\040rs\\040sp and '$gone'"

"$CGTRACE" record -q -B cgt-rs -G /cgt-rs-b -X /cgt-rs-a -o "$work/r.dat" -- \
	sh -c "cat $i/set_event_cgroup $i/set_event_notrace_cgroup >$work/during" 2>"$work/err"
rc=$?
cat "$work/err"
grep -qx /cgt-rs-b "$work/during" && grep -qx /cgt-rs-a "$work/during" ||
	fail "while recording, the lists were not cgtrace's: $(tr '\n' ' ' <"$work/during")"
[ "$(cat $i/set_event_notrace_cgroup)" = "$before_nt" ] || fail "set_event_notrace_cgroup not restored"
[ "$(cat $i/set_event_pid)" = "$before_pid" ] || fail "set_event_pid changed"
[ "$(sort <<<"$(cat $i/set_event_cgroup)")" = "$(sort <<<"$want")" ] ||
	fail "set_event_cgroup is '$(cat $i/set_event_cgroup | tr '\n' '|')', want /cgt-rs-a and /cgt\\040rs\\040sp written back"
[ "$rc" = 125 ] || fail "the removed cgroup's line cannot be written back, yet record exited with $rc, want 125"
grep -qF "cannot restore set_event_cgroup of instance cgt-rs: the kernel did not take back its line '$gone'" "$work/err" ||
	fail "the line '$gone' that could not be restored is not named"
[ "$(grep -c 'did not take back' "$work/err")" = 1 ] || fail "more lines than the removed cgroup's named as not restored"
pass "set_event_cgroup: a path with a space written back, the removed cgroup's comment named, status 125"
exit 0
