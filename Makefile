# cgtrace: cgroup filters and user-space markers for Linux ftrace (6.1).
#
# make demo            trace one command in its own cgroup inside the VM
# make check           build everything, boot the debug kernel, run the tests
# make check-upstream  upstream's ftracetest on vanilla vs patched (long)
# make bench           benchmark patched vs vanilla: bench/results.md
# make cost-check      cost regression check (instruction counts, bounds)
# make kernel          patched production kernel   (build/obj/cgtrace)
# make kernel-debug    patched debug kernel        (build/obj/debug)
# make kernel-vanilla  Debian's 6.1, same config   (build/obj/vanilla)
# make kernel-nofilter patched, cgroup filter off   (build/obj/nofilter)
# make selftests       build the C kselftests      (build/selftests)
# make tools           cgtrace, its plugin, man pages, toy_gc (build/tools)
# make tools-deps      install only what make tools needs (Debian packages)
# make tools-deb       the tool as a Debian package (build/tools/deb)
# make tools-multihost two guests, one trace-cmd listen, merged report
# make tracecmd        libtraceevent, libtracefs, trace-cmd with the project's
#                      series (patches/libtracefs, patches/trace-cmd): build/tracecmd
# make tracecmd-install  the same, installed into PREFIX (default /usr/local)
# make tools-rss       export's peak memory against trace size
# make series          kernel changes as patches for upstream, every step built
#                      and checked (build/series/out)
# make deb             Debian packages of the patched kernel (build/deb/FLAVOUR)
# make system-image    a Debian 12 system with systemd, podman and the packages
#                      installed by apt (build/system/system.raw; root)
# make check-system    the system tests in full: services and containers traced
#                      in it, on the server kernel (make check: their CI form)
# make mutants         break the code on purpose, the tests must fail (build/mutants)
# make deps            install the Debian packages the project needs
#
# KVER=6.12 (e.g. "make kernel KVER=6.12", "make check KVER=6.12") builds
# and boots 6.12 LTS instead of 6.1 (scripts/lib.sh): the same hooks with
# 6.12's own hunks (patches/6.12/), its trees and objects named *-6.12
# under build/.
#
# Everything built goes to build/ (ignored by git).

BUILD     := build
# The kernel version the kernel targets build and boot (scripts/lib.sh).
KVER      ?= 6.1
export KVER
# The C tests and the tools are user space, the same on every kernel
# version: they build against 6.1's tree (kselftest_harness.h).
KSRC      := $(BUILD)/src/vanilla
CC        := gcc
CFLAGS    := -O2 -g -Wall -Wno-format-truncation
# The kselftests of the series live at their upstream path
# (tools/testing/selftests/tracing, ftrace/test.d/{cgroup,user-markers});
# selftests/ keeps what only this project's VM runs.
KTESTS    := tools/testing/selftests/tracing
SELFTESTS := $(patsubst %.c,$(BUILD)/selftests/%,$(notdir $(wildcard $(KTESTS)/*_test.c selftests/c/*_test.c)))

.PHONY: all deps kernel compat-test kernel-debug kernel-vanilla kernel-nofilter source selftests tools checkpatch \
	series check check-upstream demo clean help

all: kernel selftests

help:
	@sed -n '3,/^#$$/s/^# //p' Makefile

deps:
	@scripts/deps

kernel: deps
	@scripts/kernel-build cgtrace

kernel-debug: deps
	@scripts/kernel-build debug

kernel-vanilla: deps
	@scripts/kernel-build vanilla

kernel-nofilter: deps
	@scripts/kernel-build nofilter

source: deps
	@KVER=6.1 scripts/kernel-build source
	@KVER=7.3 scripts/kernel-build source
	@[ "$(KVER)" = 6.1 ] || [ "$(KVER)" = 7.3 ] || scripts/kernel-build source

selftests: source
	@$(MAKE) --no-print-directory $(SELFTESTS)

$(BUILD)/selftests/%: $(KTESTS)/%.c $(KTESTS)/*.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(KSRC)/tools/testing/selftests -I$(KTESTS) -idirafter include/uapi -o $@ $< -lpthread

$(BUILD)/selftests/%: selftests/c/%.c $(KTESTS)/*.h tools/tracing/cgtrace/user_marker.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(KSRC)/tools/testing/selftests -I$(KTESTS) -Itools/tracing/cgtrace -o $@ $< -lpthread

# A 32-bit program (gcc-multilib), static so that the guest needs no
# 32-bit loader: the prctl's compat path. It needs a kernel with
# CONFIG_IA32_EMULATION, which the test kernels do not have yet (adding it
# to config/base.config rebuilds every kernel cold), so make check does
# not run it: make compat-test builds it, scripts/vm-run runs it.
compat-test: $(BUILD)/compat/prctl_compat_test
$(BUILD)/compat/prctl_compat_test: selftests/compat/prctl_compat_test.c $(KTESTS)/*.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -m32 -static -I$(KSRC)/tools/testing/selftests -I$(KTESTS) -o $@ $< -lpthread

# tools: cgtrace, its trace-cmd plugin, man pages, bash completion and the
# toy_gc example, into build/tools. It needs only the tool's own libraries
# (make tools-deps installs them), no kernel source: "make tools && sudo
# make install" is what a machine that only uses the tool runs.
# tools-deb: the tool as a Debian package (build/tools/deb).
.PHONY: tools-deps tools-deb
tools:
	@$(MAKE) --no-print-directory -C tools/tracing/cgtrace OUTPUT=$(CURDIR)/$(BUILD)/tools/

# tracecmd: the trace-cmd stack from the pinned upstream sources (the
# tarballs of shared/vendor, or TRACECMD_SRC=DIR holding git clones of
# libtraceevent, libtracefs and trace-cmd at the pinned commits) with the
# project's series applied by git am, into build/tracecmd: usr/bin/trace-cmd
# and its libraries, and their unit tests. Cached: rebuilt only when the
# sources, the series or scripts/tracecmd-build change (scripts/tracecmd-build).
# tracecmd-install: the same built for PREFIX (default /usr/local) and
# copied there (DESTDIR= to stage), nothing outside it touched.
.PHONY: tracecmd tracecmd-install
tracecmd: deps
	@scripts/tracecmd-build $(if $(TRACECMD_SRC),--src $(TRACECMD_SRC))

tracecmd-install: deps
	scripts/tracecmd-build $(if $(TRACECMD_SRC),--src $(TRACECMD_SRC)) \
		--prefix $(or $(PREFIX),/usr/local) --install $(if $(DESTDIR),--destdir $(DESTDIR))

tools-deps:
	@scripts/deps --tools

tools-deb:
	@$(MAKE) --no-print-directory -C tools/tracing/cgtrace OUTPUT=$(CURDIR)/$(BUILD)/tools/ deb

# tools-multihost: two guests (vm-run --net) send their recordings to a
# trace-cmd listen on this host, in a network namespace of its own; the
# merged report must hold both, in order (root). tools-rss: the export's
# peak memory on a 10 s and a 150 s (about 1 GB) marker flood.
.PHONY: tools-multihost tools-rss
tools-multihost: tools
	selftests/tools/multihost

tools-rss: tools
	selftests/tools/export-rss

# install: make install [PREFIX=/usr/local] [DESTDIR=] [PLUGIN_DIR=...]
# (see tools/tracing/cgtrace/Makefile): cgtrace, its man pages, bash
# completion and user_marker.h; the plugin goes to libtraceevent's own
# plugin directory, which trace-cmd searches by default.
.PHONY: install
install:
	@$(MAKE) --no-print-directory -C tools/tracing/cgtrace OUTPUT=$(CURDIR)/$(BUILD)/tools/ install

# check: every part runs even when another one failed, each keeps its log
# and counts in build/check (scripts/check-part), and scripts/check-total
# ends the run with the parts and one total "N passed, N failed, N
# skipped"; it fails if any part failed (or could not run: a build it
# needs failed).
#
# The parts run beside the kernel builds, on a make job server of one
# slot per CPU (CHECK_JOBS): a guest runs on one host thread (TCG
# single-threaded) and holds one slot, the kernel build takes what is
# left (the kernel's make joins the job server), and the kernels are
# built one at a time, in the order the parts need them (the chain of
# order-only prerequisites below). On 2 CPUs the guests' 40 CPU-minutes
# overlap the builds' 50 instead of following them. Each line a part
# prints comes to the terminal as "[PART] line" (CHECK_PREFIX).
#
# CHECK_KVERS: the other kernel versions whose project selftests make
# check runs on their patched production kernel (part selftests-KVER):
# none, within CI's minutes; EXTRA_KVERS: those whose selftests and
# upstream suites make check-extra runs.
CHECK_JOBS  ?= $(shell nproc)
CHECK_KVERS ?=
EXTRA_KVERS ?= 6.12
# In the order make starts them: the debug kernel's long guest first.
CHECK_PARTS := selftests vm-run checkpatch series-check mutants parser rate i386 lkmm tools tools-tracefs18 tracecmd multihost \
	system cost-check upstream-suites $(patsubst %,selftests-%,$(CHECK_KVERS))
# check-extra: the parts that make check leaves out to stay within CI's
# minutes, each repeating on another kernel what a part of make check
# proves (HACKING.md): trace-cmd's series and tests on vanilla 6.1,
# upstream's suites on the other versions, the nofilter kernel, and the
# system package outside the image. Same logs and table as make check.
CHECK_EXTRA_PARTS := tracecmd-vanilla $(patsubst %,selftests-%,$(EXTRA_KVERS)) \
	$(patsubst %,upstream-suites-%,$(EXTRA_KVERS)) nofilter deb
ifneq ($(KVER),6.1)
check: check-kver
else
check: deps selftests tools
	@rm -rf $(BUILD)/check && mkdir -p $(BUILD)/check
	-@CHECK_PREFIX=1 $(MAKE) --no-print-directory -k -j$(CHECK_JOBS) check-parts
	@scripts/check-total $(CHECK_PARTS)
endif
.PHONY: check-extra check-extra-parts $(patsubst %,part-%,$(CHECK_EXTRA_PARTS))
check-extra: deps selftests tools
	@mkdir -p $(BUILD)/check
	-@CHECK_PREFIX=1 $(MAKE) --no-print-directory -k -j$(CHECK_JOBS) check-extra-parts
	@scripts/check-total $(CHECK_EXTRA_PARTS)
check-extra-parts: $(patsubst %,part-%,$(CHECK_EXTRA_PARTS))

# The parts (part-NAME) and the kernel builds they need (build-VARIANT);
# only make check's parallel run uses these targets. A "+" gives the
# recipe the job server (a script in it runs make).
.PHONY: check-parts $(patsubst %,part-%,$(CHECK_PARTS)) build-debug build-cgtrace \
	build-vanilla build-nofilter build-system $(patsubst %,build-cgtrace-%,$(sort $(CHECK_KVERS) $(EXTRA_KVERS))) build-tracecmd
check-parts: $(patsubst %,part-%,$(CHECK_PARTS))

build-debug:
	+@scripts/check-time build-debug -- scripts/kernel-build debug
build-cgtrace: | build-debug
	+@scripts/check-time build-cgtrace -- scripts/kernel-build cgtrace
# The packaged kernel of the parts system and deb (deb-build --config
# system: the test kernel's configuration with what the system image
# needs built in, config/system.config; minutes where the image's server
# kernel takes 40), right after the production kernel, so that the
# system part's long guest runs beside the builds after it.
build-system: | build-cgtrace
	+@scripts/check-time build-system -- scripts/deb-build --config system
build-vanilla: | build-system
	+@scripts/check-time build-vanilla -- scripts/kernel-build vanilla
build-nofilter: | build-vanilla $(patsubst %,build-cgtrace-%,$(sort $(CHECK_KVERS) $(EXTRA_KVERS)))
	+@scripts/check-time build-nofilter -- scripts/kernel-build nofilter

part-checkpatch:
	-@scripts/check-part --single checkpatch -- scripts/checkpatch
part-series-check:
	+-@scripts/check-part --single series-check -- scripts/series
# Each known breakage still applies to the code it breaks (make mutants
# builds and runs them; this only tries their diffs, in seconds).
part-mutants:
	-@scripts/check-part mutants -- scripts/mutants --check
# The marker parser on the host under MemorySanitizer and AddressSanitizer
# (selftests/parser: seconds, no kernel).
part-parser:
	-@scripts/check-part parser -- scripts/parser-check
# The rate limits' token bucket on the host at 32 and 64 bits, its clock
# moved past 2^31 jiffies (selftests/rate: seconds, no kernel)
part-rate:
	-@scripts/check-part rate -- scripts/rate-check
# The project's kernel files compiled for i386 with W=1 (objects only,
# in build/obj/i386: scripts/i386-check), after the debug kernel's build
# has made the patched tree it compiles
part-i386: build-debug
	+-@scripts/check-part i386 -- scripts/i386-check
# The litmus tests of selftests/lkmm under the kernel's memory model
# (herd7, in a sid chroot cached in build/lkmm: scripts/lkmm-check)
part-lkmm:
	-@scripts/check-part lkmm -- scripts/lkmm-check
# The kernel's tests on the debug kernel (KASAN, lockdep), the tools'
# (user space, 3 times faster there) on the production kernel.
part-selftests: build-debug
	-@scripts/check-part selftests -- scripts/vm-run --debug --timeout 3000 -- scripts/run-selftests --kinds tc,c
part-tools: build-cgtrace
	-@scripts/check-part tools -- scripts/vm-run --timeout 1800 -- scripts/run-selftests --kinds tools
# The tool's other stats path: built against libtracefs 1.8 (make
# tracecmd's), whose tracefs_instance_get_stat() it calls, and its loss
# counts tested with it (Debian 12 has 1.6: the part tools tests the
# parser cgtrace keeps for it)
part-tools-tracefs18: build-cgtrace build-tracecmd
	-@scripts/check-part tools-tracefs18 -- scripts/tools-tracefs18-check
# The trace-cmd stack with the project's series (make tracecmd, cached),
# built once for both parts; each counts the series check, then runs
# libtracefs's and trace-cmd's unit tests and selftests/tracecmd in a
# guest with 4 CPUs: on the patched kernel, and on vanilla, where the
# cgroup cases check that the missing files are reported.
build-tracecmd:
	@scripts/check-time build-tracecmd -- scripts/tracecmd-build
part-tracecmd: build-cgtrace build-tracecmd
	-@scripts/check-part tracecmd -- scripts/tracecmd-check
part-tracecmd-vanilla: build-vanilla build-tracecmd
	-@scripts/check-part tracecmd-vanilla -- scripts/tracecmd-check --vanilla
part-vm-run: build-debug
	-@scripts/check-part vm-run -- scripts/test-vm-run
part-cost-check: build-cgtrace build-vanilla
	-@scripts/check-part --single cost-check -- scripts/cost-check
part-multihost: build-cgtrace
	-@scripts/check-part --single multihost -- selftests/tools/multihost
# Upstream's tests of what the hooks touch, on the patched production
# kernel, against the committed results of vanilla (scripts/upstream-suites)
part-upstream-suites: build-cgtrace
	-@scripts/check-part upstream-suites -- scripts/upstream-suites
part-nofilter: build-nofilter
	-@scripts/check-part nofilter -- scripts/vm-run --kernel nofilter --timeout 900 -- scripts/nofilter-checks
# the package of build-system, looked into and booted
part-deb: build-system | build-nofilter
	+-@scripts/check-part deb -- scripts/deb-check --no-kernel-build
# The system image (its base from Debian's archive, the packages
# installed with apt) and the system tests in it, their CI form: the
# image with the packaged kernel of build-system, services and a podman
# container traced (scripts/system-check --ci; make check-system runs
# them all on the server kernel)
part-system: build-system build-tracecmd
	+-@scripts/check-part system -- scripts/system-check --ci --no-kernel-build
# Another version's production kernel (after 6.1's, before nofilter) and
# its selftests part.
define check_kver_rules
build-cgtrace-$(1): | build-vanilla
	+@KVER=$(1) scripts/check-time build-cgtrace-$(1) -- scripts/kernel-build cgtrace
part-selftests-$(1): build-cgtrace-$(1)
	-@KVER=$(1) scripts/check-part selftests-$(1) -- scripts/vm-run --timeout 1800 -- scripts/run-selftests --kinds tc,c
part-upstream-suites-$(1): build-cgtrace-$(1)
	-@KVER=$(1) scripts/check-part upstream-suites-$(1) -- scripts/upstream-suites
endef
$(foreach v,$(sort $(CHECK_KVERS) $(EXTRA_KVERS)),$(eval $(call check_kver_rules,$(v))))

# check KVER=6.12: the reduced check of another kernel version alone, its
# parts named NAME-KVER in build/check (6.1's stay): every selftest on
# that version's patched production kernel (make check runs the same as
# its part selftests-KVER), then (CHECK_KVER_UPSTREAM=1, about 20 more
# minutes and the vanilla kernel's build) upstream's ftracetest on its
# vanilla and patched kernels, 0 regressions.
CHECK_KVER_PARTS := selftests-$(KVER) $(if $(CHECK_KVER_UPSTREAM),upstream-$(KVER))
.PHONY: check-kver
check-kver: selftests tools kernel $(if $(CHECK_KVER_UPSTREAM),kernel-vanilla)
	@mkdir -p $(BUILD)/check && rm -f $(patsubst %,$(BUILD)/check/%.*,$(CHECK_KVER_PARTS))
	-scripts/check-part selftests-$(KVER) -- scripts/vm-run --timeout 2400 -- scripts/run-selftests
	$(if $(CHECK_KVER_UPSTREAM),-scripts/check-part --single upstream-$(KVER) -- scripts/check-upstream)
	@scripts/check-total $(CHECK_KVER_PARTS)

# deb: linux-image and linux-headers packages of the patched kernel, by
# the kernel's bindeb-pkg, into build/deb/FLAVOUR. DEB_CONFIG: debian
# (Debian's amd64 configuration, the default; hours on 2 cores), running
# (/boot/config-$(uname -r)), small (the test kernel's, minutes) or a file;
# DEB_LSMOD=FILE trims it to the modules lsmod listed (localmodconfig).
# make check installs the small one's system form with apt and boots it
# (part system); deb-check looks into the packages and runs the smoke
# tests on the kernel taken out of them (scripts/deb-check).
DEB_CONFIG ?= debian
.PHONY: deb deb-check
deb: deps
	scripts/deb-build --config $(DEB_CONFIG) $(if $(DEB_LSMOD),--localmod $(DEB_LSMOD))
deb-check: deps
	scripts/deb-check

# system-image: a Debian 12 server on a disk of its own (build/system/
# system.raw; docs/system-image.md): mmdebstrap from Debian's archive
# (cached), GRUB, and installed with apt inside it the server kernel
# (make deb DEB_CONFIG=server: config/server), the cgtrace package and the
# patched trace-cmd's (scripts/tracecmd-deb). scripts/vm-run --system --
# CMD boots it. check-system: the system tests in it (selftests/system),
# in full, on the server kernel (make check's part system runs their CI
# form: scripts/system-check --ci). Root.
.PHONY: system-image check-system
system-image: deps tools-deb
	scripts/deb-build --config server
	scripts/tracecmd-deb
	scripts/system-image

check-system: deps
	@mkdir -p $(BUILD)/check
	-scripts/check-part system -- scripts/system-check
	@scripts/check-total system

# mutants: known breakages (selftests/mutants/*.mutant) built under
# build/mutants, each must make the tests it names fail (scripts/mutants).
.PHONY: mutants
mutants: source selftests tools
	scripts/mutants

check-upstream: kernel kernel-vanilla
	scripts/check-upstream

# upstream-suites: upstream's kselftests (timers, cgroup, prctl, sched,
# proc; user_events on 6.12) and ftracetest cases of what the hooks touch,
# patched against vanilla (make check runs it against the committed
# vanilla results). upstream-suites-baseline: run them on vanilla and
# write selftests/upstream/vanilla-KVER.results, to commit when the
# suites, the vanilla kernel or its config change.
.PHONY: upstream-suites upstream-suites-baseline
upstream-suites: kernel
	scripts/upstream-suites

upstream-suites-baseline: kernel-vanilla
	scripts/upstream-suites --baseline

.PHONY: bench
bench: kernel kernel-vanilla
	BENCH_NO_BUILD=1 scripts/bench

# cost-check: instruction counts (vm-run --icount) of both production
# kernels against the bounds in bench/cost-bounds; a regression test.
.PHONY: cost-check
cost-check: kernel kernel-vanilla
	scripts/cost-check

# stress: scripts/stress on the debug kernel with 4 CPUs (STRESS_SECONDS,
# default 600); its C helper is built here, into build/stress.
.PHONY: stress
stress: kernel-debug selftests
	@mkdir -p $(BUILD)/stress
	$(CC) $(CFLAGS) -I$(KTESTS) -o $(BUILD)/stress/stress_helper selftests/c/stress_helper.c -lpthread
	scripts/vm-run --debug --smp 4 --timeout $$(( $${STRESS_SECONDS:-600} + 900 )) -- \
		env STRESS_SECONDS=$${STRESS_SECONDS:-600} scripts/stress

demo: kernel tools tracecmd
	scripts/vm-run -- scripts/demo

clean:
	rm -rf $(BUILD)/obj $(BUILD)/selftests $(BUILD)/vm

checkpatch: source
	@scripts/checkpatch

# series: the kernel changes as git format-patch output with a cover letter,
# regrouped by patches/upstream-series, and every check a maintainer runs on
# it: checkpatch --strict on every patch, git am on 6.1.192, MAINTAINERS
# sections for the new files, the rst rendered, the kselftests built with
# kselftest's make, and each step built with the project's options on and
# off with no new W=1 or sparse warning in the files it touches, then
# booted both ways to run the tests that exist at that step (about an
# hour cold, half of it with ccache warm). series-check: all but the
# builds and boots (make check runs it).
.PHONY: series-check
series: source
	@scripts/series --build --test

series-check: source
	@scripts/series
