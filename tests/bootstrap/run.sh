#!/bin/sh
# scripts/bootstrap.sh: silent when everything is installed; as a normal user
# with something missing, a clear message with the command to run, and exit 1.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     | /' "$T/out" | head -n 6; }
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT INT TERM

# as_user CMD...: run as an unprivileged user (we may be root, as in CI).
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}

sh "$here/scripts/bootstrap.sh" >"$T/out" 2>&1
if [ $? -eq 0 ] && [ ! -s "$T/out" ]; then ok "quiet and successful when everything is present"; else bad "quiet and successful when everything is present"; fi

cp "$here/scripts/bootstrap.sh" "$T/bootstrap.sh"
as_user env ROCELAB_BOOTSTRAP_EXTRA=rocelab-no-such-package sh "$T/bootstrap.sh" >"$T/out" 2>&1
st=$?
if [ "$st" -eq 1 ] && grep -q "missing packages: rocelab-no-such-package" "$T/out" &&
	grep -q "apt-get install -y rocelab-no-such-package" "$T/out"; then
	ok "as a normal user, names what is missing and the command to install it"
else
	bad "as a normal user, names what is missing and the command to install it (exit $st)"
fi
ROCELAB_NO_BOOTSTRAP=1 ROCELAB_BOOTSTRAP_EXTRA=rocelab-no-such-package sh "$T/bootstrap.sh" >"$T/out" 2>&1 &&
	ok "ROCELAB_NO_BOOTSTRAP=1 skips it" || bad "ROCELAB_NO_BOOTSTRAP=1 skips it"
# `make demo` asks only for what the demo needs: with dpkg saying that nothing is installed, the
# demo's list names the build tools and tcpdump but none of the test-only QEMU, clang or scapy.
mkdir "$T/bin"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/dpkg-query"
chmod 755 "$T/bin" "$T/bin/dpkg-query"
as_user env PATH="$T/bin:$PATH" sh "$T/bootstrap.sh" demo >"$T/out" 2>&1
st=$?
missing=$(sed -n 's/^bootstrap: missing packages://p' "$T/out")
case " $missing " in
*" qemu-system-x86 "* | *" clang "* | *" python3-scapy "* | *" tshark "*) bad "make demo's bootstrap asks for test-only packages" ;;
*" libpcap-dev "*" tcpdump "*)
	[ "$st" -eq 1 ] && ok "make demo's bootstrap asks for the build tools and tcpdump, not QEMU, clang or scapy" ||
		bad "make demo's bootstrap: exit $st" ;;
*) bad "make demo's bootstrap names what it misses" ;;
esac
as_user env PATH="$T/bin:$PATH" sh "$T/bootstrap.sh" >"$T/out" 2>&1
missing=$(sed -n 's/^bootstrap: missing packages://p' "$T/out")
case " $missing " in
*" qemu-system-x86 "*) case " $missing " in *" help2man "*) ok "the full bootstrap asks for QEMU and help2man too" ;;
	*) bad "the full bootstrap asks for help2man (make install's man pages)" ;; esac ;;
*) bad "the full bootstrap asks for QEMU" ;;
esac
# tests/report's browser and parsers: all of them in the full list, none in the demo's
rep="chromium chromium-driver python3-selenium python3-html5lib python3-pil tidy"
lack=""
for p in $rep; do case " $missing " in *" $p "*) ;; *) lack="$lack $p" ;; esac; done
[ -z "$lack" ] && ok "the full bootstrap asks for tests/report's browser, driver and parsers" ||
	bad "the full bootstrap asks for tests/report's packages, not:$lack"
grep -q '^demo: *bootstrap' "$here/Makefile" && grep -q '^demo: BOOTSTRAP_FOR = demo' "$here/Makefile" &&
	ok "make demo runs the demo's bootstrap" || bad "make demo runs the demo's bootstrap"
echo "bootstrap: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
