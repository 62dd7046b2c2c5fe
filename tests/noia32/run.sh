#!/bin/bash
# run.sh: make check-noia32.  The int 0x80 cases on a kernel without IA32
# emulation, as cloud and microVM kernels often are: Debian 12's own x86_64
# kernel (linux-image-6.12-amd64, the first Debian 12 kernel that knows
# ia32_emulation=; fetched with apt-get download and unpacked, never
# installed) booted under qemu-system-x86_64 twice, with ia32_emulation=false
# and without, on an initramfs of a static busybox (busybox-static), the
# stubs, the probe, tests/aarch64/helper.c and the unit test test_seccomp
# with the glibc libraries it links.  smoke.sh prints one
# PASS/FAIL/SKIP line per case on the serial console, which this reads.
# Exits 1 on any FAIL, on a boot that never said it was done, or on a
# missing piece (make deps-noia32 brings them).
#
# Environment: AIJAIL_BUILD (default <repo>/build), AJ_QEMU_TIMEOUT (seconds
# for each boot, default 600), AJ_QEMU_SMP (default 2), AJ_NOIA32_UNIT (the
# test_seccomp binary, default the build's: another one to see how an older
# test fares there), AJ_QEMU_ACCEL (tcg, the default, or kvm),
# AJ_NOIA32_BOOTS (default "noia32 ia32": which boots, in order).
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${AIJAIL_BUILD:-$root/build}
work=$build/noia32
tmo=${AJ_QEMU_TIMEOUT:-600}
smp=${AJ_QEMU_SMP:-2}
unit=${AJ_NOIA32_UNIT:-$build/tests/unit/compiler/test_seccomp}

die() {
	echo "FAIL setup: $*"
	exit 1
}

for f in bin/jail-worker tests/probe tests/helper; do
	[ -x "$build/$f" ] || die "$build/$f is missing; run make"
done
[ -x "$unit" ] || die "$unit is missing; run make $build/tests/unit/compiler/test_seccomp"
for t in qemu-system-x86_64 cpio gzip apt-get apt-cache dpkg-deb ldd; do
	command -v $t >/dev/null || die "no $t; run make deps-noia32"
done
mkdir -p "$work/deb"

# fetch PACKAGE: its .deb unpacked into $work/deb/PACKAGE, once.
fetch() {
	local d=$work/deb/$1
	[ -f "$d/.done" ] && return 0
	rm -rf "$d" "$work/deb/$1"_*.deb && mkdir -p "$d"
	(cd "$work/deb" && apt-get download "$1" >/dev/null 2>"$work/deb/$1.err") ||
		die "apt-get download $1: $(tail -1 "$work/deb/$1.err")"
	dpkg-deb -x "$work/deb/$1"_*.deb "$d" || die "cannot unpack $1"
	touch "$d/.done"
}

# linux-image-6.12-amd64 is the metapackage: the kernel is what it depends on.
kpkg=$(apt-cache depends linux-image-6.12-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^:]*\).*/\1/p' | head -1)
[ -n "$kpkg" ] || die "apt-cache knows no linux-image-6.12-amd64 (bookworm-security); run apt-get update"
fetch "$kpkg"
fetch busybox-static
kernel=$(ls "$work/deb/$kpkg"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -f "$kernel" ] || die "no vmlinuz in $kpkg"
config=$(ls "$work/deb/$kpkg"/boot/config-* | head -1)
grep -q '^CONFIG_IA32_EMULATION=y' "$config" || die "$kpkg has no IA32 emulation to turn off"
grep -q '^CONFIG_SECURITY_LANDLOCK=y' "$config" || die "$kpkg has no Landlock"

# The root: tests/aarch64's init and layout; test_seccomp run through its
# own dynamic loader (/opt/aj/lib), with the shipped policies it compiles.
r=$work/root
rm -rf "$r" && mkdir -p "$r"/{bin,etc,opt/aj/bin,opt/aj/lib,opt/aj/unit,root,home/ajt/proj/tools,proc}
cp "$work/deb/busybox-static/bin/busybox" "$r/bin/busybox"
ln -s busybox "$r/bin/sh"
cp "$root/tests/aarch64/init" "$r/init"
cp "$root/tests/noia32/smoke.sh" "$r/smoke.sh"
chmod 0755 "$r/init"
cp "$build/bin/jail-worker" "$build/tests/helper" "$r/opt/aj/bin/"
cp "$build/tests/probe" "$r/home/ajt/proj/tools/probe"
cp "$unit" "$r/opt/aj/unit/test_seccomp"
cp -r "$root/policies" "$r/opt/aj/unit/policies"
ldd "$unit" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | while read -r lib; do
	cp -L "$lib" "$r/opt/aj/lib/" || exit 1
done || die "cannot copy the libraries of $unit"
[ -e "$r/opt/aj/lib/ld-linux-x86-64.so.2" ] || die "no ld-linux-x86-64.so.2 among $unit's libraries"
printf 'root:x:0:0:root:/root:/bin/sh\najt:x:1000:1000:ajt:/home/ajt:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$r/etc/passwd"
printf 'root:x:0:\najt:x:1000:\nnogroup:x:65534:\n' >"$r/etc/group"
printf 'SMOKE_ENV_SECRET=1\n' >"$r/home/ajt/proj/.env"
: >"$r/home/ajt/proj/empty"
chmod 0700 "$r/home/ajt"
(cd "$r" && find . -path ./home/ajt -prune -o -print | cpio -o -H newc -R +0:+0 --quiet |
	gzip -1 >"$work/initrd.gz") || die "cannot write the initramfs"
(cd "$r" && find ./home/ajt | cpio -o -H newc -R +1000:+1000 --quiet | gzip -1 >>"$work/initrd.gz") ||
	die "cannot write the initramfs"

# TCG by default: a /dev/kvm that opens is no promise (nested under another
# hypervisor, ours aborts on an MSR with -cpu host, or the guest faults on
# BMI2 with it off).  AJ_QEMU_ACCEL=kvm where KVM is known good.
case ${AJ_QEMU_ACCEL:-tcg} in
kvm) accel=(-accel kvm -cpu host) ;;
tcg) accel=(-accel tcg -cpu max) ;;
*) die "AJ_QEMU_ACCEL=$AJ_QEMU_ACCEL: kvm or tcg" ;;
esac

base="console=ttyS0 panic=-1 quiet lsm=landlock,lockdown,yama,integrity,apparmor,bpf"
total_fail=0
boot() { # NAME EXTRA-CMDLINE
	local name=$1 log=$work/console-$1.log start secs qrc fails passes skips
	start=$(date +%s)
	timeout --foreground -k 10 "$tmo" qemu-system-x86_64 "${accel[@]}" -smp "$smp" -m 1024 \
		-nographic -no-reboot -nic none -kernel "$kernel" -initrd "$work/initrd.gz" \
		-append "$base $2" </dev/null >"$log" 2>&1
	qrc=$?
	secs=$(($(date +%s) - start))
	echo "== $name: $kpkg, ${2:-IA32 emulation on}, ${accel[1]}"
	# The firmware's escapes may precede the first line.
	tr -d '\r' <"$log" | sed -n 's/^.*\(AJSMOKE \)/\1/p' >"$work/lines-$name"
	sed 's/^AJSMOKE //' "$work/lines-$name" | grep -v '^DONE$' | sed 's/^INFO/info/'
	fails=$(grep -c '^AJSMOKE FAIL' "$work/lines-$name")
	passes=$(grep -c '^AJSMOKE PASS' "$work/lines-$name")
	skips=$(grep -c '^AJSMOKE SKIP' "$work/lines-$name")
	echo "check-noia32 $name: the VM ran ${secs}s (qemu exit $qrc): $passes passed, $fails failed, $skips skipped; console in $log"
	if ! grep -q '^AJSMOKE DONE' "$work/lines-$name"; then
		echo "FAIL $name: the suite never finished (timeout ${tmo}s or a crash); the console's end:"
		tail -20 "$log"
		total_fail=$((total_fail + 1))
	elif [ "$fails" != 0 ] || [ "$passes" = 0 ]; then
		total_fail=$((total_fail + 1))
	fi
}
for b in ${AJ_NOIA32_BOOTS:-noia32 ia32}; do
	case $b in
	noia32) boot noia32 ia32_emulation=false ;;
	ia32) boot ia32 "" ;;
	*) die "AJ_NOIA32_BOOTS: noia32, ia32 or both, not $b" ;;
	esac
done
[ "$total_fail" = 0 ]
