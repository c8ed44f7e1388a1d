#!/bin/sh
# The include graph against the layering rules (check.py), and proof that the
# check catches what it is there to catch: copies of the tree with a layer
# broken on purpose must fail it.
set -u
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     | /' "$T/out" | head -n 20; }

if "$PY" tests/layers/check.py . >"$T/out" 2>&1; then ok "the tree keeps its layers"; else bad "the tree keeps its layers"; fi

# broken NAME FILE LINE PATTERN: a copy with LINE added to FILE must fail with PATTERN.
broken() {
	rm -rf "$T/tree" && mkdir "$T/tree" && cp -R core pcapgen cli dissector "$T/tree/"
	printf '%s\n' "$3" >>"$T/tree/$2"
	if "$PY" tests/layers/check.py "$T/tree" >"$T/out" 2>&1; then
		bad "$1: not caught"
	elif grep -q -- "$4" "$T/out"; then
		ok "$1 is caught"
	else
		bad "$1: caught, but without /$4/"
	fi
}
broken "pcapgen reaching into cli" pcapgen/scenarios.c '#include "cli.h"' 'pcapgen/ includes cli/cli.h'
broken "core reaching into pcapgen" core/src/sim.c '#include "gen.h"' 'core/ includes pcapgen/gen.h'
broken "core opening sockets" core/src/host.c '#include <sys/socket.h>' 'core/ includes <sys/socket.h>'
broken "core reading a clock" core/src/sim.c '#include <time.h>' 'core/ includes <time.h>'
broken "the plugin using the CLI" dissector/packet-rocelab.c '#include "cli.h"' 'dissector/ includes cli/cli.h'
broken "pcapgen opening sockets" pcapgen/scenarios.c '#include <sys/socket.h>' 'pcapgen/ includes <sys/socket.h>'

# A tree without sources (a wrong ROOT) must not pass for want of anything to check.
rm -rf "$T/tree" && mkdir -p "$T/tree/core" "$T/tree/pcapgen" "$T/tree/cli" "$T/tree/dissector"
if "$PY" tests/layers/check.py "$T/tree" >"$T/out" 2>&1; then
	bad "a tree with no sources: passed"
elif grep -q 'core/ holds no .c or .h file' "$T/out"; then
	ok "a tree with no sources fails"
else
	bad "a tree with no sources: failed, but not for that"
fi
if "$PY" tests/layers/check.py "$T/nonexistent" >"$T/out" 2>&1; then
	bad "a root that does not exist: passed"
else
	ok "a root that does not exist fails"
fi
# A circle needs two edges: the second is added by the call, the first here.
rm -rf "$T/tree" && mkdir "$T/tree" && cp -R core pcapgen cli dissector "$T/tree/"
printf '#include "tryb.h"\n' >"$T/tree/cli/trya.c"
printf '#include "trya.h"\n' >"$T/tree/cli/tryb.c"
: >"$T/tree/cli/trya.h"; : >"$T/tree/cli/tryb.h"
if "$PY" tests/layers/check.py "$T/tree" >"$T/out" 2>&1; then
	bad "two cli modules needing each other: not caught"
elif grep -q 'cli/ modules in a circle: cli/trya -> cli/tryb -> cli/trya' "$T/out"; then
	ok "two cli modules needing each other are caught"
else
	bad "two cli modules needing each other: caught, but not as that circle"
fi

echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
