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
echo "bootstrap: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
