# usercopy-hardening: top-level build, demo and tests.
#
#   make          build the admin tool (tools/usercopyctl)
#   make demo     build, boot the patched kernel in QEMU, show an attack
#   make check    every test: static checks, kernel builds, guest boots
#   make stress   the long stress-ng sweep: no false positives (not in check)
#   make bench    instruction counts of the usercopy paths (QEMU -icount)
#   make bench-trace  the same for one system call, function by function
#
# Kernel trees and builds live in build/ (see README.md for the layout).

# One series per kernel: patches/KVER on Debian's linux-source-KVER.  The
# test kernels, the demo and the benchmarks use 6.1 (build/src/patched,
# vanilla, patched-rt) and 6.12 (build/src/patched-6.12); KVER chooses the
# series that dev-tree, export-patches and bisect-check work on, and the
# guests that check boots by default.
KVERS     := 6.1 6.12
KVER      ?= 6.1
ktar       = /usr/src/linux-source-$(1).tar.xz
series_of  = patches/$(1)/series $(shell sed -n 's|^\([^\#].*\)|patches/$(1)/\1|p' patches/$(1)/series 2>/dev/null)
KTAR      ?= $(call ktar,$(KVER))
PATCHDIR  := patches/$(KVER)
B         := build
SRC       := $(B)/src/patched
VSRC      := $(B)/src/vanilla
TREE_6.1  := $(SRC)
TREE_6.12 := $(B)/src/patched-6.12
DEVTREE   ?= $(B)/dev/$(KVER)
VARIANTS_6.1  := orc rt slab orc612
VARIANTS_6.12 := orc612 fp612
VARIANTS  ?= $(VARIANTS_$(KVER))
JOBS      ?= $(shell nproc)
export JOBS
export CCACHE_DIR ?= $(HOME)/.cache/ccache
# Paths below the checkout become relative, so that another clone (CI's)
# finds the objects this one compiled.
export CCACHE_BASEDIR ?= $(CURDIR)

CFG       := kernel/configs
# The test kernels: the tree each is built from (patched; patched-rt,
# with Debian's PREEMPT_RT patches under the series) and the config
# fragments that set it apart, merged after the common ones.  One line
# adds a variant (its boots are in tests/harness.py's CHECK_PLAN).
VARIANT_orc  := patched orc.config distro.config
VARIANT_rt   := patched-rt fp.config rt.config
VARIANT_slab := patched slab.config kunit-module.config
# Linux 6.12 (patches/6.12 on linux-source-6.12), SLUB only.
VARIANT_orc612 := patched-6.12 6.12.config orc.config distro.config
VARIANT_fp612  := patched-6.12 6.12.config fp.config
ALL_VARIANTS := $(patsubst VARIANT_%,%,$(filter VARIANT_%,$(.VARIABLES)))

DEBS := $(addprefix linux-source-,$(KVERS)) qemu-system-x86 busybox-static sparse \
	libaudit-dev libauparse-dev libsmartcols-dev auditd ccache stress-ng \
	build-essential bc flex bison libelf-dev libssl-dev cpio dwarves \
	kmod rsync xz-utils curl pkg-config asciidoctor valgrind python3 file quilt \
	debhelper lintian

GUEST_SRCS := $(wildcard tests/guest/*.c)
GUEST_BINS := $(patsubst tests/guest/%.c,$(B)/guest-bin/%,$(GUEST_SRCS))
.SECONDARY: $(GUEST_BINS)

.PHONY: all tools deb deps demo check stress bench bench-trace kernels guests static dev-tree \
	export-patches series-rewrites bisect-check distro-build jump-label-repro clean distclean

all: tools

tools:
	$(MAKE) -C tools/usercopyctl

# --- Debian packages (packaging/README.md) -----------------------------------
# make deb: usercopy-tools and linux-patch-usercopy in $(PKG), unpacked in
# $(PKG)/root/PACKAGE/, with the tool's tests.  The guests get usercopyctl
# from there; when make check or make demo builds the packages for them it
# leaves out the tests (nocheck), which make check runs on their own.
PKG := $(B)/packaging
PKG_INPUTS := packaging/build.sh $(wildcard $(shell git ls-files -co --exclude-standard \
	tools/usercopyctl tests/lib audit-rules patches packaging/debian kernel/configs/usercopy.config \
	2>/dev/null || find tools/usercopyctl tests/lib audit-rules patches packaging/debian \
	kernel/configs/usercopy.config -type f))

deb: deps
	@packaging/build.sh $(PKG)
	@touch $(PKG)/debs.stamp

$(PKG)/debs.stamp: $(PKG_INPUTS)
	@echo "  DEB     $(PKG) (nocheck)"
	@DEB_BUILD_OPTIONS="nocheck $(DEB_BUILD_OPTIONS)" packaging/build.sh $(PKG)
	@touch $@

# Idempotent: apt-get runs only when a package is missing.
deps:
	@missing=$$(for p in $(DEBS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi
	@for k in $(KVERS); do base=$$(cat patches/$$k/BASE); \
		have=$$(dpkg-query -W -f='$${Version}' linux-source-$$k); \
		[ "$$have" = "$$base" ] || echo "deps: NOTE: the $$k series was made against linux-source-$$k $$base; this machine has $$have"; \
	done

# --- kernel trees ----------------------------------------------------------

# tree NAME,KVER,SERIES_DIRS,DEPS: the rule of $(B)/src/NAME, Debian's
# linux-source-KVER with the quilt series in SERIES_DIRS (colon-separated,
# none for the unpatched tree) applied; DEPS are the series' files.
define tree
$(B)/src/$(1).stamp: $(call ktar,$(2)) kernel/scripts/prepare-tree.sh $(4)
	@echo "  TREE    $(B)/src/$(1) ($(call ktar,$(2)) + $(or $(3),no series))"
	@kernel/scripts/prepare-tree.sh $(call ktar,$(2)) "$(3)" $(B)/src/$(1)
	@touch $$@
endef

# PREEMPT_RT needs Debian's rt patches under the series (the rt variant).
RT := $(B)/rt

$(RT)/patches-rt/series: kernel/scripts/rt-patches.sh
	@echo "  FETCH   $(RT)/patches-rt (Debian's PREEMPT_RT patches)"
	@kernel/scripts/rt-patches.sh $(RT)

$(eval $(call tree,patched,6.1,patches/6.1,$(call series_of,6.1)))
$(eval $(call tree,patched-rt,6.1,$(RT)/patches-rt:patches/6.1,$(call series_of,6.1) $(RT)/patches-rt/series))
$(eval $(call tree,patched-6.12,6.12,patches/6.12,$(call series_of,6.12)))
$(eval $(call tree,vanilla,6.1))
$(eval $(call tree,vanilla-6.12,6.12))

# kernel NAME,TREE,FRAGMENTS: the rule of $(B)/obj/NAME, built from
# $(B)/src/TREE (patched or vanilla) with the config FRAGMENTS.  It always
# runs make in the O= directory: that knows what is up to date.
define kernel
$(B)/obj/$(1)/arch/x86/boot/bzImage: $(B)/src/$(2).stamp FORCE
	@echo "  KERNEL  $(1) ($(3))"
	@kernel/scripts/build-kernel.sh $(B)/src/$(2) $(B)/obj/$(1) $(3) || \
		{ echo "make: kernel $(1) does not build from $(B)/src/$(2) (see above)" >&2; exit 1; }
$(B)/obj/$(1)/.prepared: $(B)/src/$(2).stamp
	@echo "  CONFIG  $(1) ($(3))"
	@KBUILD_TARGETS=prepare kernel/scripts/build-kernel.sh $(B)/src/$(2) $(B)/obj/$(1) $(3)
	@touch $$@
endef

# The test kernels: the series, with the test options.
variant_frags = $(addprefix $(CFG)/,guest.config usercopy.config test.config \
	$(wordlist 2,$(words $(VARIANT_$(1))),$(VARIANT_$(1))))
$(foreach v,$(ALL_VARIANTS),$(eval $(call kernel,$(v),$(firstword $(VARIANT_$(v))),$(call variant_frags,$(v)))))

# Benchmark kernels, per unwinder: (a) without hardened usercopy, (b) with
# mainline's, (c) with this series; same tree and config otherwise.
define bench_kernels
$(call kernel,bench-$(1)-nohu,vanilla,$(addprefix $(CFG)/,guest.config bench.config $(1).config nohu.config))
$(call kernel,bench-$(1)-mainline,vanilla,$(addprefix $(CFG)/,guest.config bench.config $(1).config usercopy.config))
$(call kernel,bench-$(1),patched,$(addprefix $(CFG)/,guest.config bench.config $(1).config usercopy.config))
endef
$(foreach u,fp orc,$(eval $(call bench_kernels,$(u))))

# The unpatched trees configured as the orc and orc612 guests, without
# the test options (the series' own), for sparse to compare against.
$(foreach v,orc orc612,$(eval $(call kernel,mainline-$(v),$(subst patched,vanilla,$(firstword $(VARIANT_$(v)))),\
	$(addprefix $(CFG)/,guest.config usercopy.config $(wordlist 2,$(words $(VARIANT_$(v))),$(VARIANT_$(v)))))))

kernels: $(foreach v,$(VARIANTS),$(B)/obj/$(v)/arch/x86/boot/bzImage)

# --- guest -----------------------------------------------------------------

# The guest programs share the tests' KTAP writer (tests/lib) and the
# tool's sysctl and audit netlink access (tools/usercopyctl/uc-*.h).
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror -Itests/lib -Itools/usercopyctl
GUEST_HDRS   := tests/lib/ktap.h tests/lib/slabinfo.h $(wildcard tools/usercopyctl/uc-*.h)

$(B)/guest-bin/%: tests/guest/%.c $(GUEST_HDRS)
	@mkdir -p $(dir $@)
	gcc $(GUEST_CFLAGS) -o $@ $<

$(B)/guest/%/initramfs.cpio.gz: $(B)/obj/%/arch/x86/boot/bzImage $(GUEST_BINS) $(PKG)/debs.stamp FORCE
	@mkdir -p $(B)/guest/$* $(B)/kmod/$*
	@rsync -a --delete --exclude='*.o' --exclude='*.ko' tests/kmod/ $(B)/kmod/$*/
	@$(MAKE) -s -C $(B)/obj/$* M=$(CURDIR)/$(B)/kmod/$* CC="ccache gcc" modules
	@cp $(B)/obj/$*/arch/x86/boot/bzImage $(B)/guest/$*/bzImage
	@kunit=; grep -q '^CONFIG_HARDENED_USERCOPY_KUNIT_TEST=m' $(B)/obj/$*/.config && \
		kunit=$(B)/obj/$*/mm/usercopy_kunit.ko; \
	tests/mkinitramfs.sh $@ $(B)/kmod/$*/uc_buggy.ko$${kunit:+:$$kunit} $(B)/guest-bin \
		$(PKG)/root/usercopy-tools/usr/sbin
	@echo "  GUEST   $(B)/guest/$*"

guests: $(foreach v,$(VARIANTS),$(B)/guest/$(v)/initramfs.cpio.gz)

# --- the two commands of the README ----------------------------------------

demo: deps
	@$(MAKE) --no-print-directory $(B)/guest/orc/initramfs.cpio.gz VARIANTS=orc
	@tests/demo.sh $(B)/guest/orc

# The static checks fail when a test does: go on, tests/harness.py counts.
# sparse compiles the touched files again in the unpatched tree, with the
# config of the orc (orc612) variant but mainline's checks: that tree needs
# to be configured, not built.  Both series are checked whatever KVER is.
static: deps $(B)/src/patched.stamp $(B)/src/patched-6.12.stamp $(B)/obj/orc/arch/x86/boot/bzImage \
		$(B)/obj/mainline-orc/.prepared $(B)/obj/orc612/arch/x86/boot/bzImage \
		$(B)/obj/mainline-orc612/.prepared
	@mkdir -p $(B)/logs
	@echo "  CHECK   build glue"
	@tests/selftest.sh >$(B)/logs/selftest.tap || true
	@echo "  CHECK   checkpatch --strict"
	@$(foreach k,$(KVERS),kernel/scripts/checkpatch.sh $(TREE_$(k)) patches/$(k) \
		>$(B)/logs/checkpatch-$(k).tap || true;)
	@echo "  CHECK   sparse"
	@kernel/scripts/sparse.sh patches/6.1 $(SRC) $(B)/obj/orc \
		$(VSRC) $(B)/obj/mainline-orc >$(B)/logs/sparse-6.1.tap || true
	@kernel/scripts/sparse.sh patches/6.12 $(TREE_6.12) $(B)/obj/orc612 \
		$(B)/src/vanilla-6.12 $(B)/obj/mainline-orc612 >$(B)/logs/sparse-6.12.tap || true
	@echo "  CHECK   Debian's config"
	@{ $(foreach k,$(KVERS),$(MAKE) -s --no-print-directory distro-build KVER=$(k) \
		DISTRO_TARGETS=olddefconfig >$(B)/logs/distro-config-$(k).log 2>&1 && \
		echo "ok - $(k): usercopy.config on Debian's amd64 config keeps every option" || \
		echo "not ok - $(k): usercopy.config on Debian's amd64 config (see $(B)/logs/distro-config-$(k).log)";) } \
		>$(B)/logs/distro-config.tap
	@echo "  CHECK   usercopyctl"
	@$(MAKE) -s -C tools/usercopyctl check >$(B)/logs/usercopyctl.tap 2>&1 || \
		echo "not ok - make -C tools/usercopyctl check failed" >>$(B)/logs/usercopyctl.tap

check: deps static guests
	@echo "  CHECK   Debian packages"
	@packaging/check.sh $(PKG) >$(B)/logs/packaging.tap 2>&1 || true
	@python3 tests/harness.py --kernel-dir $(B)/guest --logdir $(B)/logs \
		--variants $(shell echo $(VARIANTS) | tr ' ' ,) \
		--tap selftest=$(B)/logs/selftest.tap \
		$(foreach k,$(KVERS),--tap checkpatch-$(k)=$(B)/logs/checkpatch-$(k).tap) \
		$(foreach k,$(KVERS),--tap sparse-$(k)=$(B)/logs/sparse-$(k).tap) \
		--tap distro-config=$(B)/logs/distro-config.tap \
		--tap usercopyctl=$(B)/logs/usercopyctl.tap \
		--tap packaging=$(B)/logs/packaging.tap

# make stress [VARIANTS=orc] [STRESS_APPEND='STRESS_TIMEOUT=5']: every
# stress-ng stressor that can run in the guest, alone, in log mode and in
# enforce mode on each variant (tests/guest/stress.sh; 13-18 minutes
# a boot under TCG), then a table of the sweeps and of every violation.
# STRESS_APPEND: more kernel command line, such as the sweep's settings
# or uctest.stress=list:NAME,... (only those stressors).
STRESS_APPEND ?=
stress: deps guests
	@python3 tests/harness.py --plan stress --timeout 3600 \
		--kernel-dir $(B)/guest --logdir $(B)/logs \
		--variants $(shell echo $(VARIANTS) | tr ' ' ,) \
		--append '$(STRESS_APPEND)'

# make bench [BENCH_UNW=orc] [BENCH_ROWS='udp/*,xattr-*'] [BENCH_BUDGET=N]
# BENCH_ROWS: fnmatch patterns of the rows to run (ucbench.c names them);
# only a run of all rows rewrites the tables in Documentation/performance.md.
# BENCH_BUDGET: instructions each row runs for, about.
BENCH_UNW ?= fp orc
BENCH_ROWS ?=
BENCH_BUDGET ?= 20000000
BENCH_KERNELS := $(foreach u,$(BENCH_UNW),bench-$(u)-nohu bench-$(u)-mainline bench-$(u))

bench: deps $(foreach k,$(BENCH_KERNELS),$(B)/obj/$(k)/arch/x86/boot/bzImage) $(B)/bench/guest/initramfs.cpio.gz
	@for k in $(BENCH_KERNELS); do mkdir -p $(B)/bench/$$k; \
		cp $(B)/obj/$$k/arch/x86/boot/bzImage $(B)/bench/$$k/; done
	@python3 tests/bench.py --kernels $(B)/bench --guest $(B)/bench/guest \
		--unwinders $(shell echo $(BENCH_UNW) | tr ' ' ,) \
		--rows '$(BENCH_ROWS)' --budget $(BENCH_BUDGET) \
		--series $(PATCHDIR)/series --doc Documentation/performance.md \
		--logdir $(B)/logs --markdown $(B)/bench/table.md

$(B)/bench/guest/initramfs.cpio.gz: $(B)/guest-bin/ucbench tests/mkinitramfs.sh tests/guest/init
	@mkdir -p $(B)/bench/guest $(B)/bench/bin
	@cp $(B)/guest-bin/ucbench $(B)/bench/bin/
	@tests/mkinitramfs.sh $@ - $(B)/bench/bin -

# Where the instructions of one system call go, function by function:
#   make bench-trace [TRACE_KERNEL=bench-orc] [TRACE_FUNC=__sys_getsockopt]
#                    [TRACE_ROWS=getsockopt] [TRACE_APPEND=usercopy_mode=off]
# TRACE_ROWS: the ucbench rows to run (BENCH_ROWS), so that TRACE_FUNC is
# reached from the row of interest.
TRACE_KERNEL ?= bench-fp
TRACE_FUNC ?= __x64_sys_newfstatat
TRACE_ROWS ?= *
bench-trace: deps $(B)/obj/$(TRACE_KERNEL)/arch/x86/boot/bzImage $(B)/bench/guest/initramfs.cpio.gz
	@$(MAKE) -s deps DEBS=gdb
	@python3 tests/bench/trace.py --kernel $(B)/obj/$(TRACE_KERNEL) \
		--guest $(B)/bench/guest --func $(TRACE_FUNC) --rows '$(TRACE_ROWS)' \
		--append "$(TRACE_APPEND)"

$(B)/guest-bin/ucbench: tests/bench/ucbench.c tests/lib/slabinfo.h
	@mkdir -p $(dir $@)
	gcc $(GUEST_CFLAGS) -o $@ $<

# Every prefix of the series builds and boots (slow: one build per patch).
# BISECT_FROM=N, BISECT_TO=M: the prefixes of N to M patches only.
BISECT_FROM ?= 1
BISECT_TO ?=
bisect-check: deps
	@mkdir -p $(B)/bisect/$(KVER)
	@BISECT_FROM=$(BISECT_FROM) BISECT_TO=$(BISECT_TO) kernel/scripts/bisect-check.sh $(KTAR) $(PATCHDIR) $(B)/bisect/$(KVER) \
		$(CFG)/guest.config $(CFG)/orc.config $(CFG)/usercopy.config $(wildcard $(CFG)/$(KVER).config) | \
		tee $(B)/bisect/$(KVER)/result.tap
	@! grep -q '^not ok' $(B)/bisect/$(KVER)/result.tap

# make distro-build [KVER=6.1] [DISTRO_TARGETS=bindeb-pkg]: the series with
# Debian's own amd64 config (linux-config-KVER) under usercopy.config, as
# Debian packages in $(B)/distro/KVER, so that every driver Debian builds
# is compiled against the changed interfaces.  Hours here; not in `make
# check`.  DISTRO_TARGETS: other make targets (vmlinux, mm/, ...).
DISTRO_TARGETS ?= bindeb-pkg
DISTRO_CONFIG = /usr/src/linux-config-$(KVER)/config.amd64_none_amd64.xz
distro-build: deps $(TREE_$(KVER)).stamp
	@$(MAKE) -s deps DEBS=linux-config-$(KVER)
	@mkdir -p $(B)/distro/$(KVER) $(B)/logs
	@echo "  DISTRO  $(B)/distro/$(KVER) ($(DISTRO_CONFIG) + usercopy.config: $(DISTRO_TARGETS))"
	@start=$$(date +%s); \
	{ KBUILD_BASE=$(DISTRO_CONFIG) KBUILD_TARGETS='$(DISTRO_TARGETS)' \
		kernel/scripts/build-kernel.sh $(TREE_$(KVER)) $(B)/distro/$(KVER)/obj \
		$(CFG)/usercopy.config $(CFG)/debian-build.config 2>&1; \
		echo $$? >$(B)/distro/$(KVER)/rc; } | tee $(B)/logs/distro-$(KVER).log; \
	rc=$$(cat $(B)/distro/$(KVER)/rc); \
	echo "distro-build: $(KVER) $(DISTRO_TARGETS): exit $$rc after $$(( ($$(date +%s) - start) / 60 )) min," \
		"$$(grep -v '^\.config:' $(B)/logs/distro-$(KVER).log | grep -c 'warning:') warnings (log: $(B)/logs/distro-$(KVER).log)"; \
	exit $$rc

# The mode-switch stress of the guest tests on the unpatched kernel: flips
# of one of its own static keys while a module runs the key's jump sites
# and is unloaded and loaded again (tests/jump-label/).  Not in `make check`.
# JL_TCG=multi (one host thread per vCPU) or single, as `make check` runs.
JL_TCG ?= multi
jump-label-repro: deps $(B)/obj/bench-orc-mainline/arch/x86/boot/bzImage
	@mkdir -p $(B)/guest/vanilla $(B)/jl/kmod $(B)/jl/bin $(B)/logs
	@rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude=jl-stress.c \
		tests/jump-label/ $(B)/jl/kmod/
	@$(MAKE) -s -C $(B)/obj/bench-orc-mainline M=$(CURDIR)/$(B)/jl/kmod CC="ccache gcc" modules
	gcc $(GUEST_CFLAGS) -o $(B)/jl/bin/jl-stress tests/jump-label/jl-stress.c
	@cp $(B)/obj/bench-orc-mainline/arch/x86/boot/bzImage $(B)/guest/vanilla/
	@tests/mkinitramfs.sh $(B)/guest/vanilla/initramfs.cpio.gz $(B)/jl/kmod/jl_rfs.ko $(B)/jl/bin -
	@UC_TCG_THREAD=$(JL_TCG) python3 tests/harness.py --kernel-dir $(B)/guest \
		--logdir $(B)/logs --variants vanilla

# --- developer round trip (README: "Editing the series") --------------------

dev-tree:
	kernel/scripts/devtree.sh create $(KTAR) $(PATCHDIR) $(DEVTREE)

export-patches:
	kernel/scripts/devtree.sh export $(KTAR) $(PATCHDIR) $(DEVTREE)

# Which patches of the dev tree rewrite lines an earlier patch added.
series-rewrites:
	@python3 kernel/scripts/series-rewrites.py $(DEVTREE)

clean:
	rm -rf $(B)/guest $(B)/guest-bin $(B)/kmod $(B)/logs
	-$(MAKE) -C tools/usercopyctl clean

distclean:
	rm -rf $(B)

FORCE:
