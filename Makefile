# aijail: compiler, then one header per policy, then one static stub per policy.
#
# The targets a person uses (make help prints this list):
#   make              build/bin/aijail-compile, build/gen/*.h, build/bin/jail*, aijail-status,
#                     aijail-mcp and the runtime --build links (build/lib/aijail, build/share/aijail)
#   make deps         install the Debian/Ubuntu packages the build needs (as root)
#   make deps-test    and those make check's suites and workloads need
#   make check        every suite of CHECK_SUITES (mk/check.mk), failures listed together:
#                     layers, unit (cmocka), policy corpus, fuzz replay, integration, escape,
#                     install, dist, wheel, status, python, orchestrator, mcp, man pages
#   make SUITE        one of them: layers-check unit-check corpus-check fuzz-replay
#                     integration-check escape-check install-check dist-check wheel-check
#                     status-check python-check orchestrator-check mcp-check man-check
#                     agents-check (the four agents driven offline, docs/agents.md)
#   make install      PREFIX=/usr/local DESTDIR=; make uninstall the same
#   make deb          the Debian packages, from a clean copy: build/deb/*.deb (make deps-pkg)
#   make dist         the static release archive: build/dist/aijail-VERSION-ARCH-linux.tar.gz
#   make wheel        the Python wheel with the stubs: build/wheel/aijail-VERSION-py3-none-*.whl
#   make ARCH=aarch64 the stubs cross-built for aarch64, into build-aarch64/ (make deps-cross)
#   make TRACE=1      stubs that print each start-up step's time, into build-trace/
#                     (bench/trace.sh; the normal build's stubs are unchanged)
#   make bench        start-up benchmark against bare exec and bubblewrap (make deps-bench)
#   make fuzz         build the compiler fuzz target (clang, libFuzzer)
#   make format       clang-format every C file; make clean removes the build folder
#   make check-docker    the stubs in real Docker containers (a dockerd of its own; root;
#                        make deps-docker)
#   make check-fresh     the README's two commands on fresh Debian 12 and 13 roots (root)
#   make check-aarch64   the aarch64 stubs on Debian's arm64 kernel under qemu-system-aarch64
#   make check-noia32    the seccomp table and the int 0x80 cases on Debian 12's x86_64
#                        kernel booted without IA32 emulation, then with it, under qemu
#                        (make deps-noia32)
#   make check-apparmor  the stubs' AppArmor profile and --doctor on Debian 13's and
#                        Ubuntu 24.04's kernels under qemu, apparmor=1 (make deps-noia32)
#
# The rest is in files by concern, included in this order:
#   mk/config.mk    PREFIX, ARCH and the build folder,
#                   compilers and flags, the policies and sources
#   mk/deps.mk      the Debian packages of each part (DEB_*) and make deps*
#   mk/build.mk     the compiler, the headers, the stubs, the --build runtime
#   tests/tests.mk  the test programs and suites
#   mk/tools.mk     aijail-status, aijail-mcp, the Python package's and man pages' checks
#   mk/keys.mk      aijail-keys (Mbed TLS from Debian's archive) and its fuzz replay
#   mk/check.mk     make check, and the checks under qemu
#   mk/dev.mk       bench, fuzz, format, clean
#   mk/pkg.mk       install, uninstall, deb, dist, wheel

# The one place the version is written: the compiler prints it in every
# identity (aijail-compile --identity, a stub's --jail-version).
AIJAIL_VERSION := 0.1

include mk/config.mk

.PHONY: all deps deps-test deps-bench check unit-check corpus-check integration-check escape-check \
	install-check layers-check fuzz-replay bench fuzz install uninstall clean format check-docker deps-docker \
	deps-cross check-aarch64 deps-noia32 check-noia32 check-apparmor deps-pkg deb dist dist-check check-fresh \
	wheel wheel-check help
.DELETE_ON_ERROR:
.SECONDARY:

all: $(B)/bin/aijail-compile $(HEADERS) $(STUBS) $(RT_FILES) $(SHARE_FILES)

include mk/deps.mk
include mk/build.mk
include tests/tests.mk
include mk/tools.mk
include mk/keys.mk
include mk/check.mk
include mk/dev.mk
include mk/pkg.mk

help:
	@sed -n '/^# The targets a person uses/,/^#$$/{/^#   /s/^#   //p}' $(firstword $(MAKEFILE_LIST))
