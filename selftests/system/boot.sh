#!/bin/bash
# description: the system booted as a Debian server boots: from its own
#   disk through GRUB, the kernel of the linux-image-*-cgtrace package
#   that apt installed, with the initramfs Debian's hooks made for it;
#   systemd is PID 1 and reached multi-user.target with no failed unit;
#   the kernel has the project's files and loads only the modules its
#   configuration kept (config/server/modules), or, the CI kernel
#   (CGT_CI), has built in what config/system.config asks; cgtrace and
#   its plugin are the installed package's.
. "$(dirname "$0")/testlib"

rel=$(uname -r)
case "$rel" in
*-cgtrace) ok "the running kernel is $rel" ;;
*) bad "the running kernel is $rel, not the project's" ;;
esac
st=$(dpkg-query -W -f '${Status}' "linux-image-$rel" 2>/dev/null)
[ "$st" = "install ok installed" ] && ok "linux-image-$rel is installed ($st)" ||
	bad "linux-image-$rel: dpkg says '$st'"
grep -q "^Commandline: apt-get install .*linux-image-${rel}_" /var/log/apt/history.log &&
	ok "apt installed it (/var/log/apt/history.log)" || bad "apt's history has no install of linux-image-$rel"
cmd=$(cat /proc/cmdline)
case "$cmd" in
"BOOT_IMAGE=/boot/vmlinuz-$rel root=UUID="*) ok "GRUB booted /boot/vmlinuz-$rel by the entry Debian's hook made ($cmd)" ;;
*) bad "the command line is not GRUB's entry for /boot/vmlinuz-$rel: $cmd" ;;
esac
grep -q "menuentry 'Debian GNU/Linux, with Linux $rel'" /boot/grub/grub.cfg &&
	ok "/boot/grub/grub.cfg has the entry" || bad "/boot/grub/grub.cfg has no entry for $rel"
# the initramfs ran: the kernel unpacked it, and initramfs-tools checked
# the root file system (it leaves /run/initramfs/fsck-root) and mounted it
dmesg >"$work/dmesg"
if [ -s "/boot/initrd.img-$rel" ] && grep -q 'Unpacking initramfs' "$work/dmesg" &&
	[ -e /run/initramfs/fsck-root ] && grep -q 'EXT4-fs (vda1): mounted' "$work/dmesg"; then
	ok "the kernel unpacked /boot/initrd.img-$rel ($(du -m "/boot/initrd.img-$rel" | cut -f1) MB), which checked and mounted vda1"
else
	bad "no sign of the initramfs: 'Unpacking initramfs' and vda1's mount in the kernel log, /run/initramfs/fsck-root"
fi
[ "$(cat /proc/1/comm)" = systemd ] && ok "PID 1 is systemd" || bad "PID 1 is $(cat /proc/1/comm)"
[ "$(systemctl is-active multi-user.target)" = active ] && ok "multi-user.target is active" ||
	bad "multi-user.target is $(systemctl is-active multi-user.target)"
failed=$(systemctl list-units --state=failed --no-legend --plain | awk '{ print $1 }' | paste -sd' ')
[ -z "$failed" ] && ok "no unit failed" || bad "failed units: $failed"
absent=''
for f in set_event_cgroup set_ftrace_cgroup user_events; do
	[ -e /sys/kernel/tracing/$f ] || absent="$absent $f"
done
[ -z "$absent" ] && ok "tracefs has the project's files" || bad "/sys/kernel/tracing lacks:$absent"
if [ -n "${CGT_CI:-}" ]; then
	# The CI kernel: what the image needs, built in.
	missing=$(grep -h '^CONFIG_[A-Z0-9_]*=y$' "$top/config/system.config" | while read -r o; do
		grep -qx "$o" "/boot/config-$rel" || echo "${o%=y}"
	done | paste -sd' ')
	[ -z "$missing" ] && ok "the kernel has config/system.config built in ($(grep -c '^CONFIG_' "$top/config/system.config") options); modules loaded: $(awk '{ print $1 }' /proc/modules | paste -sd' ')" ||
		bad "/boot/config-$rel lacks of config/system.config: $missing"
else
	# Every module loaded is one config/server/modules keeps: the list the
	# configuration was trimmed to is what this system needs.
	keep=$(sed 's/#.*//' "$top/config/server/modules" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u)
	loaded=$(awk '{ print $1 }' /proc/modules | sort -u)
	extra=$(comm -13 <(echo "$keep") <(echo "$loaded") | paste -sd' ')
	[ -n "$loaded" ] && [ -z "$extra" ] && ok "$(echo "$loaded" | wc -l) modules loaded, all of config/server/modules" ||
		bad "modules loaded that config/server/modules does not list: ${extra:-none loaded}"
fi
st=$(dpkg-query -W -f '${Status} ${Version}' cgtrace 2>/dev/null)
case "$st" in
"install ok installed "*) ok "cgtrace ${st##* } is installed" ;;
*) bad "cgtrace: dpkg says '$st'" ;;
esac
[ "$(command -v cgtrace)" = /usr/bin/cgtrace ] && [ "$CGTRACE" = /usr/bin/cgtrace ] &&
	ok "the tests run the package's /usr/bin/cgtrace" || bad "cgtrace is $(command -v cgtrace), the tests run $CGTRACE"
finish
