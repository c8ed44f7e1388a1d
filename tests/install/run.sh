#!/bin/sh
# `make install` into a scratch DESTDIR, then build and run a program against the
# installed headers and library through pkg-config, as a user of the library would.
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
make -s install DESTDIR="$T" PREFIX=/opt/rocelab >/dev/null
pass=0
fail=0
check() { if "$@"; then pass=$((pass + 1)); echo "ok   $desc"; else fail=$((fail + 1)); echo "FAIL $desc"; fi; }

# -Werror is CI's and make test's (WERROR=1), not a user's plain make: a newer compiler's new warning
# must not stop someone building rocelab. (make -n: what would run, in a scratch build folder.)
here=$(pwd)
desc="a plain make compiles without -Werror"
check sh -c '! env -u WERROR make -n -C "$1" B="$2/b" all | grep -q -- -Werror' sh "$here" "$T"
desc="make WERROR=1 (CI) and make test compile with -Werror"
check sh -c 'make -n -C "$1" B="$2/b" WERROR=1 all | grep -q -- "-Wextra -Werror" &&
	env -u WERROR make -n -C "$1" B="$2/b" ROCELAB_NO_BOOTSTRAP=1 test 2>/dev/null | grep -q -- "-Wextra -Werror"' sh "$here" "$T"

desc="rocelab installed in PREFIX/bin"; check test -x "$T/opt/rocelab/bin/rocelab"
desc="librocelab.a and headers installed"; check test -f "$T/opt/rocelab/lib/librocelab.a" -a -f "$T/opt/rocelab/include/rocelab/rocelab.h"

cat >"$T/t.c" <<'C'
#include <rocelab/rocelab.h>
int main(void)
{
	uint8_t frame[128];
	struct rl_pkt p, d;
	size_t n;

	rl_pkt_init(&p, (uint8_t)rl_opcode_by_name("RC Acknowledge"));
	p.aeth.msn = 42;
	if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK)
		return 1;
	return rl_decode(RL_LINK_ETHERNET, frame, n, &d) != RL_OK || d.aeth.msn != 42;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR="$T" PKG_CONFIG_LIBDIR="$T/opt/rocelab/lib/pkgconfig" pkg-config --cflags --libs rocelab)
desc="a program builds with pkg-config --cflags --libs rocelab"
check ${CC:-cc} -std=c11 -Wall -Wextra -Werror "$T/t.c" $flags -o "$T/t"
desc="and encodes and decodes a packet"; check "$T/t"
desc="the installed rocelab finds its realrxe script under PREFIX/share"
check sh -c '"$1/opt/rocelab/bin/rocelab" realrxe --help | grep -q "rocelab realrxe build"' sh "$T"
make -s uninstall DESTDIR="$T" PREFIX=/opt/rocelab >/dev/null
desc="make uninstall removes it"; check test ! -e "$T/opt/rocelab/bin/rocelab" -a ! -e "$T/opt/rocelab/include/rocelab" -a ! -e "$T/opt/rocelab/share/rocelab/realrxe"
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
