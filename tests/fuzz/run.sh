#!/bin/sh
# Run a libFuzzer target for a bounded time (make fuzz).
#   sh tests/fuzz/run.sh ROCELAB FUZZER SECONDS [decode|cm]
# ROCELAB is accepted for symmetry with the other suites and not used.
# decode (the default): seeds in build/fuzz/seeds (one packet per opcode and
# framing, by mkseeds.c); the corpus grows in build/fuzz/corpus, crash inputs
# land in build/fuzz/.
# cm: the CM agent (fuzz_cm.c); the same under build/fuzz-cm/, seeds by mkseeds_cm.c.
# Exits with libFuzzer's status: non-zero on a crash or a broken invariant.
set -eu

if [ $# -ne 3 ] && [ $# -ne 4 ]; then
	echo "usage: $0 ROCELAB FUZZER SECONDS [decode|cm]" >&2
	exit 2
fi
fuzzer=$2
secs=$3
kind=${4:-decode}
case $kind in
decode) out=build/fuzz mkseeds=mkseeds ;;
cm) out=build/fuzz-cm mkseeds=mkseeds_cm ;;
*)
	echo "run.sh: unknown target '$kind': decode or cm" >&2
	exit 2
	;;
esac

# Work from the top of the tree; keep a relative FUZZER path valid.
case $fuzzer in
/*) ;;
*) fuzzer=$(pwd)/$fuzzer ;;
esac
cd "$(dirname "$0")/../.."

if [ ! -f build/librocelab.a ]; then
	echo "run.sh: build/librocelab.a is missing: run 'make lib' first" >&2
	exit 1
fi
mkdir -p "$out"

cc -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Icore/include tests/fuzz/$mkseeds.c \
	build/librocelab.a -lisal -o "$out/$mkseeds"
rm -rf "$out/seeds" "$out/corpus"
mkdir -p "$out/seeds" "$out/corpus"
"$out/$mkseeds" "$out/seeds"
cp "$out"/seeds/* "$out/corpus/"

# UBSan only prints by default; make its reports crashes too.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export UBSAN_OPTIONS

log=$out/fuzz.log
echo "run.sh: fuzzing for ${secs}s, log in $log"
set +e
{
	"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/" "$out/corpus" "$out/seeds" 2>&1
	echo $? >"$out/fuzz.rc"
} | tee "$log"
set -e
rc=$(cat "$out/fuzz.rc")

fz_stat() {
	sed -n "s/^stat::$1: *//p" "$log" | tail -n 1
}
execs=$(fz_stat number_of_executed_units)
rate=$(fz_stat average_exec_per_sec)
new=$(fz_stat new_units_added)
files=$(find "$out/corpus" -type f | wc -l | tr -d ' ')

if [ "$rc" -ne 0 ]; then
	crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	echo "fuzz: FAILED (exit $rc) after ${execs:-?} executions; input: ${crash:-see $log}"
	exit "$rc"
fi
echo "fuzz: ok, ${execs:-?} executions in ${secs}s (${rate:-?}/s), corpus $files files (${new:-?} new)"
