#!/bin/bash
# run.sh: make check-aarch64.  Boots Debian's arm64 kernel (linux-image-arm64,
# fetched with apt-get download and unpacked, never installed) under
# qemu-system-aarch64 -M virt -cpu max (TCG), with an initramfs of a static
# busybox (busybox-static:arm64), the aarch64 stubs, the probe and a helper
# (helper.c), and runs smoke.sh there: one PASS/FAIL/SKIP line per case on
# the serial console, which this reads.  Exits 1 on any FAIL, on a VM that
# never said it was done, or on a missing piece (make deps-cross brings them).
#
# Environment: AIJAIL_BUILD (default <repo>/build-aarch64), AJ_QEMU_TIMEOUT
# (seconds for the whole VM, default 900), AJ_QEMU_SMP (default 2).
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${AIJAIL_BUILD:-$root/build-aarch64}
work=$build/qemu
tmo=${AJ_QEMU_TIMEOUT:-900}
smp=${AJ_QEMU_SMP:-2}

die() {
	echo "FAIL setup: $*"
	exit 1
}

for f in bin/jail bin/jail-worker tests/probe tests/helper; do
	[ -x "$build/$f" ] || die "$build/$f is missing; run make ARCH=aarch64"
	file -b "$build/$f" | grep -q 'ARM aarch64' || die "$build/$f is not an aarch64 program"
done
for t in qemu-system-aarch64 cpio gzip apt-get dpkg-deb; do
	command -v $t >/dev/null || die "no $t; run make deps-cross"
done
mkdir -p "$work/deb"

# fetch PACKAGE: its .deb unpacked into $work/deb/PACKAGE, once.
fetch() {
	local d=$work/deb/$1
	[ -f "$d/.done" ] && return 0
	rm -rf "$d" && mkdir -p "$d"
	(cd "$work/deb" && apt-get download "$1:arm64" >/dev/null 2>"$work/deb/$1.err") ||
		die "apt-get download $1:arm64: $(tail -1 "$work/deb/$1.err") (make deps-cross adds the arm64 architecture)"
	dpkg-deb -x "$work/deb/$1"_*_arm64.deb "$d" || die "cannot unpack $1"
	touch "$d/.done"
}

# linux-image-arm64 is the metapackage: the kernel is what it depends on.
kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^:]*\).*/\1/p' | head -1)
[ -n "$kpkg" ] || die "apt-cache knows no linux-image-arm64:arm64; run make deps-cross"
fetch "$kpkg"
fetch busybox-static
kernel=$(ls "$work/deb/$kpkg"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -f "$kernel" ] || die "no vmlinuz in $kpkg"
config=$(ls "$work/deb/$kpkg"/boot/config-* | head -1)
grep -q '^CONFIG_SECURITY_LANDLOCK=y' "$config" || die "$kpkg has no Landlock"
grep -q '^CONFIG_USER_NS=y' "$config" || die "$kpkg has no user namespaces"

# The root: everything smoke.sh needs, owned by root but the project.
r=$work/root
rm -rf "$r" && mkdir -p "$r"/{bin,etc,opt/aj/bin,root,home/ajt/proj/tools,home/ajt/proj/secrets,proc}
cp "$work/deb/busybox-static/bin/busybox" "$r/bin/busybox"
ln -s busybox "$r/bin/sh"
cp "$root/tests/aarch64/init" "$r/init"
cp "$root/tests/aarch64/smoke.sh" "$r/smoke.sh"
chmod 0755 "$r/init"
cp "$build/bin/jail" "$build/bin/jail-worker" "$build/tests/helper" "$r/opt/aj/bin/"
cp "$build/tests/probe" "$r/home/ajt/proj/tools/probe"
printf 'root:x:0:0:root:/root:/bin/sh\najt:x:1000:1000:ajt:/home/ajt:/bin/sh\n' >"$r/etc/passwd"
printf 'root:x:0:\najt:x:1000:\n' >"$r/etc/group"
printf 'smoke readme\n' >"$r/home/ajt/proj/README"
printf 'SMOKE_ENV_SECRET=1\n' >"$r/home/ajt/proj/.env"
printf 'SMOKE_KEY_SECRET\n' >"$r/home/ajt/proj/secrets/key"
: >"$r/home/ajt/proj/empty"
chmod 0700 "$r/home/ajt"
# Two archives, one after the other, as the kernel takes them: root's
# files, then the user's home as the user's.
(cd "$r" && find . -path ./home/ajt -prune -o -print | cpio -o -H newc -R +0:+0 --quiet |
	gzip -1 >"$work/initrd.gz") || die "cannot write the initramfs"
(cd "$r" && find ./home/ajt | cpio -o -H newc -R +1000:+1000 --quiet | gzip -1 >>"$work/initrd.gz") ||
	die "cannot write the initramfs"

# landlock first in the LSM list, in case a kernel's default leaves it out.
cmdline="console=ttyAMA0 panic=-1 quiet lsm=landlock,lockdown,yama,integrity,apparmor,bpf"
log=$work/console.log
start=$(date +%s)
timeout --foreground -k 10 "$tmo" qemu-system-aarch64 -M virt -cpu max -smp "$smp" -m 1024 \
	-nographic -no-reboot -nic none -kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "$cmdline" </dev/null >"$log" 2>&1
qrc=$?
secs=$(($(date +%s) - start))
tr -d '\r' <"$log" | grep '^AJSMOKE ' | sed 's/^AJSMOKE //' | grep -v '^DONE$' | sed 's/^INFO/info/'
fails=$(tr -d '\r' <"$log" | grep -c '^AJSMOKE FAIL')
passes=$(tr -d '\r' <"$log" | grep -c '^AJSMOKE PASS')
echo "check-aarch64: the VM ran ${secs}s (qemu exit $qrc): $passes passed, $fails failed; console in $log"
if ! tr -d '\r' <"$log" | grep -q '^AJSMOKE DONE'; then
	echo "FAIL vm: the smoke suite never finished (timeout ${tmo}s or a crash); the console's end:"
	tail -20 "$log"
	exit 1
fi
[ "$fails" = 0 ] && [ "$passes" -gt 0 ]
