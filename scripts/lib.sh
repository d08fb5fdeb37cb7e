# Shared helpers for the project's scripts (sourced, not run).
# shellcheck shell=bash
BUILD=${CGTRACE_BUILD:-$top/build}

# KVER chooses the kernel the project builds and boots: 6.1 (the default,
# Debian's linux-source-6.1), 6.12 (linux-source-6.12) or 7.3
# (linux-source-7.3, from trixie-backports). The new kernel files are
# common to all; each version has its own hook series (HOOKS/series).
# 6.12's and 7.3's trees and objects carry a suffix
# (build/src/vanilla-6.12, build/obj/cgtrace-7.3, ...) so that the
# versions' builds live side by side; 6.1's keep their names.
KVER=${KVER:-6.1}
# The Debian package versions the series is made against: make deps
# installs exactly these linux-source-* packages, as Debian's
# security archive moves on to newer stable releases (6.12.118 replaced
# 6.12.117 as the candidate on 2026-12-02) and keeps the older ones.
KERNEL_DEB_6_1=6.1.192-3
KERNEL_DEB_6_12=6.12.117-1~deb12u1
# 7.3 is not a bookworm package: make deps downloads this version from
# the suite below (through a private apt configuration, never the
# host's own) and unpacks it under KERNEL_FETCHED, without installing it.
KERNEL_DEB_7_3=7.3.4-1~bpo13+1
KERNEL_SUITE_7_3=trixie-backports
KERNEL_FETCHED=${CGTRACE_KSRC:-/usr/src/cgtrace}
case "$KVER" in
6.1)
	KERNEL_VERSION=6.1.192
	KERNEL_PKG_VERSION=6.1.192
	KSUF=''
	;;
6.12)
	KERNEL_VERSION=6.12.117
	KERNEL_PKG_VERSION=6.12.117
	KSUF=-6.12
	;;
7.3)
	KERNEL_VERSION=7.3.4
	KERNEL_PKG_VERSION=7.3.4
	KSUF=-7.3
	;;
*)
	printf '%s: error: KVER=%s: the project knows 6.1, 6.12 and 7.3\n' "${0##*/}" "$KVER" >&2
	exit 1
	;;
esac
# The hooks into upstream files, kept once for both versions
# (scripts/hooks): patches/NAME, what both take, then patches/$KVER/NAME,
# what only this version takes, where there is such a part.
HOOKS=$top/patches
# hook_parts NAME - the files of hook NAME for $KVER, in the order they apply
hook_parts() {
	echo "$HOOKS/$1"
	[ ! -f "$HOOKS/$KVER/$1" ] || echo "$HOOKS/$KVER/$1"
}
# hook_cat NAME - hook NAME for $KVER as one input for patch(1)
hook_cat() {
	local p
	for p in $(hook_parts "$1"); do cat "$p"; done
}
# Every version the project builds, as VERSION=KERNEL_VERSION words: what
# scripts/checkpatch resolves the common files' version tests for.
KVERS_ALL="6.1=6.1.192 6.12=6.12.117 7.3=7.3.4"
KERNEL_PKG=linux-source-$KVER
KERNEL_TARBALL=/usr/src/linux-source-$KVER.tar.xz
# A kernel source fetched from a newer suite (make deps): the package
# unpacked into a directory named after its version, instead of dpkg's.
KERNEL_FETCHED_DIR=
if [ "$KVER" = 7.3 ]; then
	KERNEL_FETCHED_DIR=$KERNEL_FETCHED/${KERNEL_PKG}_$KERNEL_DEB_7_3
	KERNEL_TARBALL=$KERNEL_FETCHED_DIR/usr/src/$KERNEL_PKG.tar.xz
fi
export KVER

# kmake_jobs - the -j option of a kernel build's make: none under a make
# job server (make check, whose guests run beside the builds: the kernel's
# make takes the slots they leave), else one job per CPU.
kmake_jobs() {
	case " ${MAKEFLAGS:-} " in
	*" --jobserver-auth="* | *" --jobserver-fds="*) ;;
	*) echo "-j$(nproc)" ;;
	esac
}

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# Kernel workspaces (scripts/mutants, scripts/marker-budget): a copy of
# the checkout's kernel inputs with its own build/{src,obj} in the same
# relative layout as the checkout's, so that scripts/kernel-build hits the
# same ccache entries (CCACHE_BASEDIR is the workspace).

# ws_check_pristine - the checkout's pristine tree, which workspaces share
ws_check_pristine() {
	[ -f "$BUILD/src/vanilla/.extracted" ] ||
		die "no pristine tree in $BUILD/src/vanilla (make source)"
}

# ws_prepare DIR - a fresh copy of the checkout's kernel inputs in DIR,
# with a build/ that shares the pristine tree (hard links) and the
# selftests
ws_prepare() {
	local ws=$1 d abs_build
	abs_build=$(cd "$BUILD" && pwd -P)
	mkdir -p "$ws/build/src"
	for d in scripts config patches kernel include Documentation; do
		rm -rf "${ws:?}/$d"
		cp -a "$top/$d" "$ws/$d"
	done
	# kernel-build lists the project's files with git ls-files
	[ -d "$ws/.git" ] || git -C "$ws" init -q
	if [ ! -f "$ws/build/src/vanilla/.extracted" ]; then
		rm -rf "$ws/build/src/vanilla" "$ws/build/src/vanilla.tmp"
		cp -al "$abs_build/src/vanilla" "$ws/build/src/vanilla.tmp"
		mv "$ws/build/src/vanilla.tmp" "$ws/build/src/vanilla"
	fi
	ln -sfn "$abs_build/selftests" "$ws/build/selftests"
}

# ws_build DIR LOG - the production kernel of workspace DIR
ws_build() {
	(cd "$1" && env -u CGTRACE_BUILD scripts/kernel-build cgtrace) >"$2" 2>&1
}
