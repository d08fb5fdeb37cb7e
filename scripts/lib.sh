# Shared helpers for the project's scripts (sourced, not run).
# shellcheck shell=bash
KERNEL_VERSION=6.1.192
KERNEL_PKG_VERSION=6.1.192
BUILD=${CGTRACE_BUILD:-$top/build}

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}
