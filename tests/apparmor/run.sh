#!/bin/bash
# run.sh: make check-apparmor.  The stubs' AppArmor profile, as the Debian
# package ships it, on two kernels booted under qemu-system-x86_64 with
# apparmor=1 security=apparmor:
#   debian13     Debian 13's own (trixie's linux-image-amd64), AppArmor
#                built in, without Ubuntu's restriction (its sysctl is not
#                in Linux's tree): the profile parses, loads, the stubs run
#                under it;
#   ubuntu24.04  Ubuntu 24.04's (noble's linux-image-generic), where
#                kernel.apparmor_restrict_unprivileged_userns=1 is turned
#                on: the stubs fail closed without the profile, run with it.
# The parser is trixie's apparmor_parser (AppArmor 4.1: the first in Debian
# that knows userns) with the libraries it links.  Kernels, parser and a
# static busybox are fetched by fetch.sh / apt-get download and unpacked,
# never installed.  The initramfs holds busybox, the stubs and
# aijail-status in /usr/bin, the profile in /etc/apparmor.d/aijail (made by
# contrib/apparmor/profile.sh for /usr/bin, as make install PREFIX=/usr
# does for the package).  smoke.sh prints one PASS/FAIL/SKIP line per case
# on the serial console, and --doctor's text, which this reads.  Exits 1 on
# any FAIL, on a boot that never said it was done, or on a missing piece
# (make deps-noia32 brings qemu and cpio).
#
# Environment: AIJAIL_BUILD (default <repo>/build), AJ_QEMU_TIMEOUT
# (seconds for each boot, default 600), AJ_QEMU_SMP (default 2),
# AJ_QEMU_ACCEL (tcg, the default, or kvm), AJ_APPARMOR_BOOTS (default
# "debian13 ubuntu24.04"), AJ_DIST_TGZ (the release archive, default
# build/dist's x86_64 one, which make check-apparmor makes), AJ_DEBIAN_MIRROR,
# AJ_UBUNTU_MIRROR.
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${AIJAIL_BUILD:-$root/build}
work=$build/apparmor-vm
tmo=${AJ_QEMU_TIMEOUT:-600}
smp=${AJ_QEMU_SMP:-2}

die() {
	echo "FAIL setup: $*"
	exit 1
}

for f in bin/jail bin/jail-worker bin/aijail-status tests/helper; do
	[ -x "$build/$f" ] || die "$build/$f is missing; run make"
done
for t in qemu-system-x86_64 cpio gzip apt-get apt-cache dpkg-deb; do
	command -v $t >/dev/null || die "no $t; run make deps-noia32"
done
mkdir -p "$work/deb"
fetch=$root/tests/apparmor/fetch.sh
boots=${AJ_APPARMOR_BOOTS:-debian13 ubuntu24.04}

# linux-image-amd64 is the metapackage: the kernel is what it depends on.
kpkg=$("$fetch" "$work" --depends linux-image-amd64) || die "apt-get update for trixie failed"
[ -n "$kpkg" ] || die "trixie's linux-image-amd64 depends on no kernel"
"$fetch" "$work" "$kpkg" apparmor libc6 || die "apt-get download from trixie failed"
# busybox-static from the host's own release.
if [ ! -f "$work/deb/busybox-static/.done" ]; then
	rm -rf "$work/deb/busybox-static" && mkdir -p "$work/deb/busybox-static"
	(cd "$work/deb" && rm -f busybox-static_*.deb && apt-get download busybox-static >/dev/null 2>&1) ||
		die "apt-get download busybox-static failed"
	dpkg-deb -x "$work/deb"/busybox-static_*.deb "$work/deb/busybox-static" && touch "$work/deb/busybox-static/.done"
fi
kernel=$(ls "$work/deb/$kpkg"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -f "$kernel" ] || die "no vmlinuz in $kpkg"
config=$(ls "$work/deb/$kpkg"/boot/config-* | head -1)
grep -q '^CONFIG_SECURITY_APPARMOR=y' "$config" || die "$kpkg has no AppArmor built in"
# Ubuntu 24.04's own kernel, whose AppArmor has the restriction itself
# (kernel.apparmor_restrict_unprivileged_userns, not in Linux's tree).
ukernel=
if [[ " $boots " == *" ubuntu24.04 "* ]]; then
	# Ubuntu's archive is not Debian's: a machine that reaches only
	# Debian's mirrors skips this boot, saying so; once it answers,
	# anything else that goes wrong is a failure.
	if ! upkg=$(AJ_FETCH_DIST=noble "$fetch" "$work" --depends linux-image-generic); then
		echo "SKIP boot-ubuntu24.04: Ubuntu's archive (${AJ_UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}) did not answer apt-get update; the restriction itself is not tested here"
		boots=${boots/ubuntu24.04/}
	else
		[ -n "$upkg" ] || die "Ubuntu 24.04's linux-image-generic depends on no kernel"
		AJ_FETCH_DIST=noble "$fetch" "$work" "$upkg" || die "apt-get download $upkg failed"
		ukernel=$(ls "$work/deb-noble/$upkg"/boot/vmlinuz-* 2>/dev/null | head -1)
		[ -f "$ukernel" ] || die "no vmlinuz in $upkg"
	fi
fi
aa=$work/deb/apparmor
[ -x "$aa/usr/sbin/apparmor_parser" ] || die "no apparmor_parser in trixie's apparmor"

# The root: tests/apparmor/init (tests/aarch64's, with /usr); the parser
# run through trixie's own dynamic loader (/opt/aa/lib).
r=$work/root
rm -rf "$r" && mkdir -p "$r"/{bin,etc/apparmor,opt/aa/bin,opt/aa/lib,opt/aj,usr/bin,usr/share/aijail/apparmor,root,home/ajt/proj,proc}
cp "$work/deb/busybox-static/bin/busybox" "$r/bin/busybox"
ln -s busybox "$r/bin/sh"
cp "$root/tests/apparmor/init" "$r/init"
cp "$root/tests/apparmor/smoke.sh" "$r/smoke.sh"
chmod 0755 "$r/init"
stubs=()
for s in "$build"/bin/jail "$build"/bin/jail-*; do
	cp "$s" "$r/usr/bin/" && stubs+=("${s##*/}")
done
cp "$build/bin/aijail-status" "$r/usr/bin/"
# busybox's applets link to /bin/busybox, which in a jail is /usr/bin/busybox
# (link /bin -> usr/bin).
cp "$r/bin/busybox" "$r/usr/bin/busybox"
cp "$build/tests/helper" "$r/opt/aj/"
cp "$aa/usr/sbin/apparmor_parser" "$r/opt/aa/bin/"
cp -a "$aa/etc/apparmor.d" "$r/etc/"
cp "$aa/etc/apparmor/parser.conf" "$r/etc/apparmor/" 2>/dev/null
# parser.conf pins the feature set trixie's policy is compiled for.
mkdir -p "$r/usr/share" && cp -a "$aa/usr/share/apparmor-features" "$r/usr/share/"
# Only trixie's own profiles that the test names are kept: the rest would
# attach to nothing here and cost the parser's time under TCG.
find "$r/etc/apparmor.d" -maxdepth 1 -type f -delete
for l in libc.so.6 ld-linux-x86-64.so.2; do
	f=$(find "$work/deb/libc6" -name "$l" | head -1)
	[ -n "$f" ] || die "no $l in trixie's libc6"
	cp -L "$f" "$r/opt/aa/lib/"
done
# The release archive, unpacked as its INSTALL says (into /usr/local): its
# own profile, for /usr/local/bin, loaded in the VM by INSTALL's command.
tgz=${AJ_DIST_TGZ:-$(ls "$root"/build/dist/aijail-*-x86_64-linux.tar.gz 2>/dev/null | head -1)}
[ -f "$tgz" ] || die "no release archive in $root/build/dist: run make dist"
mkdir -p "$r/usr/local" && tar -xzf "$tgz" -C "$r/usr/local" --strip-components=1 ||
	die "cannot unpack $tgz"
grep -o 'sudo install .*' "$r/usr/local/INSTALL" | grep apparmor_parser | sed 's/sudo //g' >"$r/opt/aj/dist-install" ||
	die "INSTALL has no profile command"
# The profile, as the package installs it (make install's PREFIX=/usr).
"$root/contrib/apparmor/profile.sh" /usr/bin "${stubs[@]}" >"$r/usr/share/aijail/apparmor/aijail" ||
	die "contrib/apparmor/profile.sh failed"
cp "$r/usr/share/aijail/apparmor/aijail" "$r/etc/apparmor.d/aijail"
printf 'root:x:0:0:root:/root:/bin/sh\najt:x:1000:1000:ajt:/home/ajt:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$r/etc/passwd"
printf 'root:x:0:\najt:x:1000:\nnogroup:x:65534:\n' >"$r/etc/group"
chmod 0700 "$r/home/ajt"
(cd "$r" && find . -path ./home/ajt -prune -o -print | cpio -o -H newc -R +0:+0 --quiet |
	gzip -1 >"$work/initrd.gz") || die "cannot write the initramfs"
(cd "$r" && find ./home/ajt | cpio -o -H newc -R +1000:+1000 --quiet | gzip -1 >>"$work/initrd.gz") ||
	die "cannot write the initramfs"

case ${AJ_QEMU_ACCEL:-tcg} in
kvm) accel=(-accel kvm -cpu host) ;;
tcg) accel=(-accel tcg -cpu max) ;;
*) die "AJ_QEMU_ACCEL=$AJ_QEMU_ACCEL: kvm or tcg" ;;
esac

total_fail=0
boot() { # NAME KERNEL PACKAGE EXTRA-CMDLINE
	local name=$1 log=$work/console-$1.log start secs qrc fails passes skips
	start=$(date +%s)
	timeout --foreground -k 10 "$tmo" qemu-system-x86_64 "${accel[@]}" -smp "$smp" -m 1024 \
		-nographic -no-reboot -nic none -kernel "$2" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet apparmor=1 security=apparmor lsm=landlock,lockdown,yama,integrity,apparmor,bpf $4" \
		</dev/null >"$log" 2>&1
	qrc=$?
	secs=$(($(date +%s) - start))
	echo "== $name: $3, apparmor=1, ${accel[1]}"
	# The firmware's escapes may precede the first line.
	tr -d '\r' <"$log" | sed -n 's/^.*\(AJSMOKE \)/\1/p' >"$work/lines-$name"
	tr -d '\r' <"$log" | sed -n 's/^.*AJDOC //p' >"$work/doctor-$name.txt"
	sed 's/^AJSMOKE //' "$work/lines-$name" | grep -v '^DONE$' | sed 's/^INFO/info/'
	fails=$(grep -c '^AJSMOKE FAIL' "$work/lines-$name")
	passes=$(grep -c '^AJSMOKE PASS' "$work/lines-$name")
	skips=$(grep -c '^AJSMOKE SKIP' "$work/lines-$name")
	echo "check-apparmor $name: the VM ran ${secs}s (qemu exit $qrc): $passes passed, $fails failed, $skips skipped; console in $log, --doctor's text in $work/doctor-$name.txt"
	if ! grep -q '^AJSMOKE DONE' "$work/lines-$name"; then
		echo "FAIL $name: the suite never finished (timeout ${tmo}s or a crash); the console's end:"
		tail -20 "$log"
		total_fail=$((total_fail + 1))
	elif [ "$fails" != 0 ] || [ "$passes" = 0 ]; then
		total_fail=$((total_fail + 1))
	fi
}
for b in $boots; do
	case $b in
	debian13) boot debian13 "$kernel" "$kpkg" "" ;;
	# There the restriction must be seen: a skip of it is a failure.
	ubuntu24.04) boot ubuntu24.04 "$ukernel" "$upkg" aj_restrict=required ;;
	*) die "AJ_APPARMOR_BOOTS: debian13, ubuntu24.04 or both, not $b" ;;
	esac
done
[ "$total_fail" = 0 ]
