# mk/deps.mk: the Debian/Ubuntu packages each part needs (DEB_*), and the
# make deps* targets that install them (as root).  .ci/run and
# tests/fresh/run.sh call these targets; FRESH_SIZES=1 reads the lists.

# What make needs (gcc, not build-essential: no C++; musl-tools brings
# musl-dev; linux-libc-dev the kernel's headers the stub compiles with);
# what make check needs besides (cmocka for the unit tests, file, setpriv
# and useradd for the shell suites, the real workloads' toolchains, which
# may build native code, Chromium for the browser profile's tests,
# iptables and iproute2 for its probe of a nested network namespace,
# Dask's distributed for aijail.dask's tests, openssl and Python's requests
# for --jail-secret's (the test's authority, a client that reads
# REQUESTS_CA_BUNDLE); curl fetches Mbed TLS for aijail-keys, patch
# mends it: keys/mbedtls-ecdsa-sig-alg.patch);
# what make bench compares against.
DEB_BUILD := make gcc libc6-dev flex bison libseccomp-dev musl-tools linux-libc-dev curl patch
DEB_TEST  := build-essential libcmocka-dev file util-linux passwd \
	python3 python3-venv python3-pip python3-setuptools python3-wheel git ca-certificates curl \
	cargo chromium groff-base iptables iproute2 less python3-distributed openssh-client \
	python3-requests openssl
DEB_BENCH := hyperfine bubblewrap
# make check-docker: a Docker engine, and a static shell for its images.
DEB_DOCKER := docker.io busybox-static debootstrap
# make ARCH=aarch64 (the cross gcc, the aarch64 musl and kernel headers,
# multiarch) and make check-aarch64 (qemu; the arm64 kernel and busybox are
# fetched with apt-get download, never installed).
DEB_CROSS := gcc-aarch64-linux-gnu musl-dev:arm64 linux-libc-dev:arm64 qemu-system-arm \
	cpio
# make check-noia32: qemu for x86_64 (TCG; AJ_QEMU_ACCEL=kvm where KVM is known good);
# Debian 12's 6.12 kernel (the first there with ia32_emulation=) and a
# static busybox are fetched with apt-get download, never installed.
DEB_NOIA32 := qemu-system-x86 cpio
# make deb: dpkg-buildpackage, debhelper (dh-python for python3-aijail,
# dh-apparmor for the stubs' AppArmor profile)
# and the package's other build dependencies beyond DEB_BUILD (python3,
# cmocka for the unit tests it runs; build-essential, which
# dpkg-checkbuilddeps asks of every package); lintian checks the result.
DEB_PKG := build-essential dpkg-dev debhelper dh-python dh-apparmor python3 libcmocka-dev lintian

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_BUILD)

# The real-workload tests need node and npm; a machine that has them (say
# from NodeSource) keeps its own, any other gets Debian's.  The MCP clients
# go into this tree's build/, so they are installed as the tree's owner: run
# by root (sudo, su -c) for a user's tree, a root-owned build/ would stop
# the user's own make.
deps-test:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_TEST)
	command -v npm >/dev/null 2>&1 || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
	@uid=$$(stat -c %u .); gid=$$(stat -c %g .); \
	if [ "$$(id -u)" = 0 ] && [ "$$uid" != 0 ]; then \
		home=$$(getent passwd "$$uid" | cut -d: -f6); \
		echo "make mcp-deps as uid $$uid, the tree's owner"; \
		setpriv --reuid="$$uid" --regid="$$gid" --clear-groups \
			env HOME="$${home:-$(CURDIR)/build}" $(MAKE) mcp-deps; \
	else $(MAKE) mcp-deps; fi

deps-bench:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_BENCH)

deps-docker:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_DOCKER)

deps-cross:
	dpkg --add-architecture arm64
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_CROSS)

deps-noia32:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_NOIA32)

deps-pkg:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PKG)
