# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# browser.sh: Debian's Chromium in jail-browser with its own sandbox (no
# --no-sandbox anywhere), seen from outside: a renderer has a user and a
# PID namespace of its own and one seccomp filter more than the jail's;
# and the kernel's own limit on user namespaces below the jail, which
# holds in every profile whatever the filter allows.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

br=$T/br
mkdir -p "$br/bin"
printf '<html><body><p id="x">hello from the jail</p></body></html>\n' >"$br/page.html"
# The limit, read and pushed from inside: the jail's own value, an attempt
# to raise it, one new user namespace (the sandbox's), a chain of five
# (the kernel counts every level against the jail's limit), and the same
# chain below a namespace whose root tries to raise its own limit.  ENOSPC is the
# kernel's answer at the limit; the counts of the namespaces that ended
# are released late, so only "more than the limit" is asserted.
cat >"$br/nest.sh" <<'EOS'
cat /proc/sys/user/max_user_namespaces
if (echo 64 >/proc/sys/user/max_user_namespaces) 2>/dev/null; then echo raised; else echo kept; fi
unshare -r true && echo one
chain='unshare -r unshare -r unshare -r unshare -r unshare -r true'
$chain 2>&1 || echo refused
for _ in $(seq 50); do
	unshare -r sh -c "if (echo 64 >/proc/sys/user/max_user_namespaces) 2>/dev/null
then echo raised inside; else echo kept inside; fi
$chain 2>&1 || echo refused" 2>/dev/null && break
	sleep 0.1
done
EOS
# jail-browser runs "chromium" from PATH: this one runs the script instead.
printf '#!/bin/sh\nexec sh %s/nest.sh\n' "$br" >"$br/bin/chromium"
chmod 755 "$br/bin/chromium"
chown -R "$tuid:$tgid" "$br"

if c nest-refused; then
	# Every other profile: the jail's namespace allows no user namespace
	# below it (before the limit, the kernel's default, 2147483647).
	CWD=$br jrun user -- jail sh -c 'cat /proc/sys/user/max_user_namespaces'
	expect nest-refused 0 0
fi

if c nest-limited; then
	if ! command -v unshare >/dev/null; then
		skip nest-limited "unshare (util-linux) is not installed"
	else
		enospc='unshare: unshare failed: No space left on device'
		CWD=$br jrun user PATH="$br/bin:/usr/bin:/bin" -- jail-browser
		expect nest-limited 0 "$(printf '%s\n' 4 kept one "$enospc" refused 'kept inside' \
			"$enospc" refused)"
	fi
fi

# What a network namespace's root could configure, from a namespace made
# inside jail-browser: x_tables (iptables-legacy -A), links (veth by
# netlink, a bridge by ioctl), the netlink families Chromium does not
# use; and what stays open (device events, an ordinary IPv6 option).
mkdir -p "$br/netbin"
cat >"$br/netcfg.sh" <<'EOS'
unshare -Urn true || { echo no-nested-namespace; exit 0; }
unshare -Urn iptables-legacy -A INPUT -j DROP >/dev/null 2>&1 && echo iptables-added || echo iptables-refused
unshare -Urn ip link add aj0 type veth peer name aj1 >/dev/null 2>&1 && echo veth-added || echo veth-refused
unshare -Urn python3 "${0%/*}/netcfg.py"
EOS
cat >"$br/netcfg.py" <<'EOS'
import errno, fcntl, socket
def tryit(name, f):
    try:
        f()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
for name, proto in (("route", 0), ("xfrm", 6), ("netfilter", 12), ("generic", 16), ("uevent", 15)):
    tryit(name, lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto).close())
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tryit("bridge", lambda: fcntl.ioctl(s, 0x89a0, b"ajbr0\0"))  # SIOCBRADDBR
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
tryit("tclass", lambda: s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, 8))
EOS
printf '#!/bin/sh\nexec sh %s/netcfg.sh\n' "$br" >"$br/netbin/chromium"
chmod 755 "$br/netbin/chromium"
chown -R "$tuid:$tgid" "$br"

if c browser-netconfig; then
	missing=''
	for t in unshare iptables-legacy ip; do
		PATH=$PATH:/usr/sbin:/sbin command -v $t >/dev/null || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		skip browser-netconfig "not installed:$missing (make deps-test installs them)"
	else
		CWD=$br jrun user PATH="$br/netbin:/usr/bin:/bin:/usr/sbin:/sbin" -- jail-browser
		if [ "$OUT" = no-nested-namespace ]; then
			skip browser-netconfig "no user namespace can be made inside jail-browser here"
		else
			expect browser-netconfig 0 "$(printf '%s\n' iptables-refused veth-refused \
				'route EAFNOSUPPORT' 'xfrm EAFNOSUPPORT' 'netfilter EAFNOSUPPORT' \
				'generic EAFNOSUPPORT' 'uevent ok' 'bridge EPERM' 'tclass ok')"
		fi
	fi
fi

if ! command -v chromium >/dev/null; then
	for n in browser-dom browser-screenshot browser-sandboxed; do
		c $n && skip $n "Debian's chromium is not installed (make deps-test installs it)"
	done
else
	if c browser-dom; then
		CWD=$br jrun user -- jail-browser --headless --dump-dom "file://$br/page.html"
		case $OUT in
		*'<p id="x">hello from the jail</p>'*) [ "$RC" = 0 ] && pass browser-dom ||
			fail browser-dom "exit status $RC" ;;
		*) fail browser-dom "exit status $RC, stdout $(q "$OUT")" ;;
		esac
	fi

	if c browser-screenshot; then
		rm -f "$br/shot.png"
		CWD=$br jrun user -- jail-browser --headless --window-size=320,240 \
			--screenshot="$br/shot.png" "file://$br/page.html"
		magic=$(head -c 4 "$br/shot.png" 2>/dev/null | od -An -c | tr -d ' ')
		if [ "$RC" = 0 ] && [ "$magic" = '211PNG' ]; then pass browser-screenshot; else
			fail browser-screenshot "exit status $RC, file starts with $(q "$magic")"
		fi
	fi

	if c browser-sandboxed; then
		# A browser that stays up (a debugging port, never used), a
		# renderer for the page; then from outside, by /proc.
		bg_in() { (cd "$br" && exec "$@") >/dev/null 2>&1 </dev/null & BGPID=$!; }
		if [ $as_root -eq 1 ]; then
			bg_in setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env \
				env -i HOME="$thome" PATH=/usr/bin:/bin "$bin/jail-browser" --headless \
				--remote-debugging-port=0 "file://$br/page.html"
		else
			bg_in env -i HOME="$thome" PATH=/usr/bin:/bin "$bin/jail-browser" --headless \
				--remote-debugging-port=0 "file://$br/page.html"
		fi
		main='' rend=''
		for _ in $(seq 100); do
			for p in $(pgrep -u "$tuid" -f '/chromium/chromium'); do
				args=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)
				case $args in
				*--type=renderer*) [ -z "$rend" ] && rend=$p ;;
				*--type=*) ;;
				*) main=$p ;;
				esac
			done
			[ -n "$main" ] && [ -n "$rend" ] && break
			sleep 0.1
		done
		ns() { readlink "/proc/$1/ns/$2" 2>/dev/null; }
		filters() { sed -n 's/^Seccomp_filters:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
		if [ -z "$main" ] || [ -z "$rend" ]; then
			fail browser-sandboxed "no renderer within 10 s (browser $main)"
		elif [ -z "$(ns "$rend" user)" ] || [ -z "$(filters "$rend")" ]; then
			# Another user's /proc/PID/ns needs ptrace access: root
			# without CAP_SYS_PTRACE (a container's) cannot look.
			capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
			if (((0x${capeff:-0} >> 19) & 1)); then
				skip browser-sandboxed "the renderer's /proc entries (ns/user, Seccomp_filters) are not readable here"
			else
				skip browser-sandboxed "the renderer's /proc entries are not readable here: reading another user's /proc/PID/ns needs CAP_SYS_PTRACE, which this process lacks (CapEff $capeff; a container's root)"
			fi
		else
			why=''
			tr '\0' '\n' <"/proc/$rend/cmdline" | grep -qx -- --no-sandbox && why="--no-sandbox given"
			[ "$(ns "$rend" user)" = "$(ns "$main" user)" ] && why="$why; same user namespace as the browser"
			[ "$(ns "$rend" pid)" = "$(ns "$main" pid)" ] && why="$why; same PID namespace as the browser"
			[ "$(ns "$main" user)" = "$(readlink /proc/self/ns/user)" ] && why="$why; the browser is not jailed"
			grep -q '^Seccomp:[[:space:]]*2' "/proc/$rend/status" || why="$why; no seccomp filter"
			[ "$(filters "$rend")" -gt "$(filters "$main")" ] ||
				why="$why; $(filters "$rend") filters, the browser's own $(filters "$main")"
			if [ -z "$why" ]; then pass browser-sandboxed; else fail browser-sandboxed "${why#; }"; fi
		fi
		kill "$BGPID" 2>/dev/null
		pkill -KILL -u "$tuid" -f '/chromium/' 2>/dev/null
		wait "$BGPID" 2>/dev/null
	fi
fi

# Playwright, outside the jail as an integrator runs it, drives the jailed
# browser over the DevTools protocol (it cannot launch it: a launched
# browser talks on inherited pipes, and the jail closes inherited fds).
if c browser-playwright; then
	pw_rc=0
	# Playwright 1.62 wants Node 20; Debian 12 has 18: there, the last
	# release that runs on it.
	pw_spec=playwright-core
	[ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 20 ] 2>/dev/null &&
		pw_spec=playwright-core@1.61
	if command -v chromium >/dev/null && command -v node >/dev/null; then
		(cd "$br" && timeout 120 npm install --no-audit --no-fund --loglevel=error "$pw_spec" \
			>"$T/out/pw-install" 2>&1) || pw_rc=$?
	fi
	if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then
		skip browser-playwright "chromium or node is not installed (make deps-test installs them)"
	elif [ $pw_rc -ne 0 ]; then
		# npm's own lines say why (the registry, the proxy); --silent
		# left none, and its last line is often blank.
		skip browser-playwright "npm could not install playwright-core (exit $pw_rc$([ $pw_rc = 124 ] && echo ', timed out after 120 s')): $(grep -v '^[[:space:]]*$' "$T/out/pw-install" |
			grep -v 'A complete log of this run' | head -n 3 | tr '\n' ' ')"
	else
		cat >"$br/drive.js" <<'EOS'
const { chromium } = require('playwright-core');
(async () => {
  let browser;
  for (let i = 0; i < 150 && !browser; i++) {
    try { browser = await chromium.connectOverCDP('http://127.0.0.1:' + process.argv[2]); }
    catch (e) { await new Promise(r => setTimeout(r, 100)); }
  }
  if (!browser) { console.log('no browser on the port'); process.exit(2); }
  const ctx = browser.contexts()[0] || await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(process.argv[3]);
  await page.click('#b');
  console.log(await page.textContent('#x'));
  await browser.close();
})().catch(e => { console.log('error ' + e.message); process.exit(1); });
EOS
		cat >"$br/click.html" <<'EOS'
<html><body><p id="x">before</p>
<button id="b" onclick="document.getElementById('x').textContent='clicked in the jail'">go</button>
</body></html>
EOS
		chmod 644 "$br/click.html" "$br/drive.js"
		port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		if [ $as_root -eq 1 ]; then
			(cd "$br" && exec setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env \
				env -i HOME="$thome" PATH=/usr/bin:/bin "$bin/jail-browser" --headless \
				--remote-debugging-port="$port" about:blank) >/dev/null 2>&1 </dev/null &
		else
			(cd "$br" && exec env -i HOME="$thome" PATH=/usr/bin:/bin "$bin/jail-browser" \
				--headless --remote-debugging-port="$port" about:blank) >/dev/null 2>&1 </dev/null &
		fi
		pwpid=$!
		got=$(cd "$br" && timeout 60 node drive.js "$port" "file://$br/click.html" 2>&1)
		if [ "$got" = "clicked in the jail" ]; then pass browser-playwright; else
			fail browser-playwright "playwright printed $(q "$got")"
		fi
		kill "$pwpid" 2>/dev/null
		pkill -KILL -u "$tuid" -f '/chromium/' 2>/dev/null
		wait "$pwpid" 2>/dev/null
	fi
fi

# The generic jail's chromium group is the browser profile.
if c browser-jail-group; then
	if ! command -v chromium >/dev/null; then
		skip browser-jail-group "Debian's chromium is not installed (make deps-test installs it)"
	else
		CWD=$br jrun user -- jail chromium --headless --dump-dom "file://$br/page.html"
		case $OUT in
		*'<p id="x">hello from the jail</p>'*) [ "$RC" = 0 ] && pass browser-jail-group ||
			fail browser-jail-group "exit status $RC" ;;
		*) fail browser-jail-group "exit status $RC, stdout $(q "$OUT")" ;;
		esac
	fi
fi
