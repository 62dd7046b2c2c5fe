# mk/check.mk: make check (every suite of CHECK_SUITES, failures listed
# together) and the checks that boot other kernels under qemu (aarch64, no
# IA32 emulation, AppArmor).

# Every suite runs, whatever an earlier one did, and the failures are
# listed together at the end: a first failure must not hide the rest.
# Each suite's output is framed by "== make check: SUITE" and its verdict
# (make check-fresh counts the PASS/FAIL/SKIP lines between them).
CHECK_SUITES := layers-check unit-check corpus-check fuzz-replay integration-check escape-check \
	install-check dist-check wheel-check status-check python-check orchestrator-check mcp-check man-check

check: all
	@failed=; for s in $(CHECK_SUITES); do \
		echo "== make check: $$s"; \
		if $(MAKE) --no-print-directory $$s; then echo "== make check: $$s passed"; \
		else echo "== make check: $$s FAILED"; failed="$$failed $$s"; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "make check: FAILED:$$failed"; exit 1; fi; \
	echo "make check: all $(words $(CHECK_SUITES)) suites passed"

# make install into a temporary folder, then --build from there alone.
install-check: all
	tests/install/run.sh

# --- aarch64: the stubs on Debian's arm64 kernel under qemu -----------------
#
# The cross build into build-aarch64/, then tests/aarch64/run.sh boots it
# (make deps-cross first; the kernel and busybox are fetched into
# build-aarch64/qemu/ by apt-get download).

$(B)/tests/helper: tests/aarch64/helper.c
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -static -s -o $@ $<

check-aarch64:
	$(MAKE) ARCH=aarch64 all build-aarch64/tests/probe build-aarch64/tests/helper
	AIJAIL_BUILD=$(abspath build-aarch64) tests/aarch64/run.sh

# --- x86_64 without IA32 emulation: Debian 12's kernel under qemu ----------
#
# tests/noia32/run.sh boots Debian 12's 6.12 kernel twice, with
# ia32_emulation=false and without (make deps-noia32 first; the kernel and
# busybox are fetched into build/noia32/ by apt-get download).

check-noia32: all $(B)/tests/probe $(B)/tests/helper $(B)/tests/unit/compiler/test_seccomp
	AIJAIL_BUILD=$(abspath $(B)) tests/noia32/run.sh

# --- AppArmor: the stubs' profile on Debian 13's and Ubuntu 24.04's kernels -----
#
# tests/apparmor/run.sh boots each under qemu with apparmor=1 (make
# deps-noia32 first; the kernels and trixie's apparmor_parser are fetched
# into build/apparmor-vm/ by apt-get download with a configuration of its
# own): the package's profile parses and loads, the stubs run under it, and
# on Ubuntu's kernel, with kernel.apparmor_restrict_unprivileged_userns=1,
# they fail closed without it; the release archive's profile and INSTALL's
# command the same for /usr/local/bin; --doctor says the same each time.

check-apparmor: all $(B)/tests/helper
	$(MAKE) dist ARCH=x86_64
	AIJAIL_BUILD=$(abspath $(B)) tests/apparmor/run.sh
