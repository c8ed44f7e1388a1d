#!/bin/sh
# The short mutation run (issue 22): rocelab explain under ASan and UBSan, and
# the Wireshark plugin's sanitizer build inside tshark, on every `rocelab gen`
# scenario, mutated: editcap -E (random byte errors), every snap length from 1
# to 200, and odd pcapng blocks (odd_pcapng.py). Nothing may crash or draw a
# sanitizer report; a damaged file may be refused, with a message.
# Bounded: about a minute on 2 cores (the plugin part only if tshark is there).
# Usage: mutate.sh ROCELAB_ASAN [PLUGIN_ASAN_SO]     (make mutate)
set -u
RA=${1:?usage: mutate.sh ROCELAB_ASAN [PLUGIN_ASAN_SO]}
SO=${2:-}
case $RA in /*) ;; *) RA=$(pwd)/$RA ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -s "$T/err" ] && sed 's/^/     | /' "$T/err" | head -n 12; }
command -v editcap >/dev/null 2>&1 && command -v mergecap >/dev/null 2>&1 ||
	{ echo "FAIL editcap and mergecap (wireshark-common) are needed"; exit 1; }
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# ---- every scenario, small: one capture of them all ---------------------------------------------
n=0
for sc in $("$RA" gen --list | awk '/^  [a-z]/ { print $1 }'); do
	case $sc in
	*-bw | pingpong) extra="--count 8" ;;
	fabric) extra="--qps 50 --count 8" ;;
	dcqcn | incast | fairness) extra="--count 8" ;;
	*) extra="" ;;
	esac
	# shellcheck disable=SC2086
	if "$RA" gen "$sc" $extra -o "$T/sc-$sc.pcap" >/dev/null 2>"$T/err"; then
		n=$((n + 1))
	else
		bad "gen $sc"
	fi
done
# shellcheck disable=SC2046
mergecap -a -w "$T/all.pcap" $(ls "$T"/sc-*.pcap)
frames=$(capinfos -c -M "$T/all.pcap" 2>/dev/null | awk '/Number of packets/ { print $NF }')
ok "every gen scenario ($n) in one capture of $frames frames"

# clean NAME FILE ARGS...: explain under the sanitizers; any exit below 128 with no report passes.
clean() {
	name=$1 file=$2
	shift 2
	"$RA" explain "$@" "$file" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" -ge 128 ] || grep -q -E 'AddressSanitizer|runtime error|UndefinedBehaviorSanitizer' "$T/err"; then
		bad "explain $name (exit $rc)"
		return 1
	fi
	return 0
}

# ---- editcap -E: random byte errors, several rates and seeds; every output mode --------------
e_ok=0 e_all=0
for run in "0.002 1 " "0.01 2 -V" "0.02 3 --json" "0.05 4 -x" "0.1 5 --ladder" "0.3 6 -t ud" "0.05 7 -T ek" "0.5 8 -V"; do
	# shellcheck disable=SC2086
	set -- $run
	editcap -E "$1" --seed "$2" "$T/all.pcap" "$T/mut.pcap" 2>/dev/null
	shift 2
	e_all=$((e_all + 1))
	clean "-E, $*" "$T/mut.pcap" "$@" && e_ok=$((e_ok + 1))
done
[ "$e_ok" -eq "$e_all" ] && ok "explain on editcap -E: $e_all runs of $frames frames, no crash, no sanitizer report"

# ---- rocelab report on mutated captures: no crash, and a page whose JSON parses ---------------
r_ok=0
for seed in 11 12 13; do
	editcap -E 0.05 --seed "$seed" "$T/all.pcap" "$T/mut.pcap" 2>/dev/null
	rm -f "$T/mut.html"
	"$RA" report -q -o "$T/mut.html" "$T/mut.pcap" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" -ge 128 ] || grep -q -E 'AddressSanitizer|runtime error|UndefinedBehaviorSanitizer' "$T/err"; then
		bad "report -E 0.05 --seed $seed (exit $rc)"
	elif [ "$rc" -ge 2 ]; then
		[ ! -e "$T/mut.html" ] && r_ok=$((r_ok + 1)) || bad "report -E 0.05 --seed $seed: refused (exit $rc) but left a page"
	elif /usr/bin/python3 -c '
import json, re, sys
p = open(sys.argv[1], encoding="utf-8").read()
for i in ("rl-rows", "rl-summary"):
    json.loads(re.search(r"id=\"%s\">(.*?)</script>" % i, p, re.S).group(1))' "$T/mut.html" 2>"$T/err"; then
		r_ok=$((r_ok + 1))
	else
		bad "report -E 0.05 --seed $seed: the page's JSON does not parse"
	fi
done
[ "$r_ok" -eq 3 ] && ok "report on editcap -E: 3 runs, no crash, no sanitizer report, the pages' JSON parses"

# ---- every snap length 1..200 ----------------------------------------------------------------
s_ok=0
for s in $(seq 1 200); do
	editcap -s "$s" "$T/all.pcap" "$T/snap.pcap" 2>/dev/null
	mode=
	case $((s % 4)) in 1) mode=-V ;; 2) mode=--json ;; 3) mode=-x ;; esac
	# shellcheck disable=SC2086
	clean "-s $s $mode" "$T/snap.pcap" $mode && s_ok=$((s_ok + 1))
done
[ "$s_ok" -eq 200 ] && ok "explain on every snap length 1..200: no crash, no sanitizer report"

# ---- odd pcapng blocks -----------------------------------------------------------------------
mkdir -p "$T/odd/ao"
python3 "$HERE/odd_pcapng.py" "$T/sc-demo.pcap" "$T/odd"
python3 "$HERE/odd_pcapng.py" "$T/sc-all-opcodes.pcap" "$T/odd/ao"
o_ok=0 o_all=0
for f in "$T"/odd/*.pcapng "$T"/odd/ao/*.pcapng; do
	o_all=$((o_all + 1))
	clean "$(basename "$f")" "$f" -V && o_ok=$((o_ok + 1))
done
[ "$o_ok" -eq "$o_all" ] && ok "explain on $o_all odd pcapng files: no crash, no sanitizer report"
# A simple packet block shorter than its own 16 bytes is damage, not a frame read from beyond it.
"$RA" explain "$T/odd/odd-short-spb.pcapng" >"$T/spb.out" 2>&1
st=$?
if [ $st -eq 1 ] && grep -q "a simple packet block is too short" "$T/spb.out"; then
	ok "a 12-byte simple packet block: damaged, exit 1"
else
	bad "a 12-byte simple packet block: exit $st, $(head -c 300 "$T/spb.out")"
fi

# ---- the plugin's sanitizer build in tshark: a sample of the same -------------------------------
if [ -n "$SO" ] && command -v tshark >/dev/null 2>&1; then
	WSV=$(tshark --version 2>/dev/null | sed -n '1s/.* \([0-9][0-9]*\.[0-9][0-9]*\)\.[0-9].*/\1/p')
	ASAN_LIB=$(ldd "$SO" 2>/dev/null | awk '/libasan/ { print $3; exit }')
	mkdir -p "$T/home" "$T/ext" "$T/pa/$WSV/epan"
	cp "$SO" "$T/pa/$WSV/epan/rocelab.so"
	chmod -R a+rX "$T"
	chmod 755 "$T"
	[ "$(id -u)" -eq 0 ] && chown 65534:65534 "$T/home"
	# Wireshark ignores WIRESHARK_PLUGIN_DIR as root: tshark runs as nobody (as tests/plugin does).
	tsa() {
		chmod -R a+rX "$T"
		if [ "$(id -u)" -eq 0 ]; then
			setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/home" WIRESHARK_PLUGIN_DIR="$T/pa" \
				WIRESHARK_EXTCAP_DIR="$T/ext" LD_PRELOAD="$ASAN_LIB" "$@"
		else
			env HOME="$T/home" WIRESHARK_PLUGIN_DIR="$T/pa" WIRESHARK_EXTCAP_DIR="$T/ext" LD_PRELOAD="$ASAN_LIB" "$@"
		fi
	}
	p_ok=0 p_all=0
	for run in e0.01:1 e0.1:2 e0.3:3 s1 s14 s30 s42 s50 s54 s60 s70 s100 s150 s200 \
		odd/odd-endian-be.pcapng odd/odd-skip-blocks-spb.pcapng odd/odd-tsresol-9e.pcapng odd/ao/odd-endian-be.pcapng; do
		case $run in
		e*) r=${run#e}; editcap -E "${r%:*}" --seed "${r#*:}" "$T/all.pcap" "$T/pm.pcap" 2>/dev/null; f=$T/pm.pcap ;;
		s*) editcap -s "${run#s}" "$T/all.pcap" "$T/pm.pcap" 2>/dev/null; f=$T/pm.pcap ;;
		*) f=$T/$run ;;
		esac
		p_all=$((p_all + 1))
		tsa tshark -r "$f" -V >"$T/ts.out" 2>"$T/err"
		rc=$?
		if [ "$p_all" -eq 1 ] && ! grep -q '^RoCE Lab' "$T/ts.out"; then
			bad "the plugin did not load into tshark (no 'RoCE Lab' in its tree)"
		elif [ "$rc" -ge 128 ] || grep -q -E 'AddressSanitizer|runtime error|UndefinedBehaviorSanitizer' "$T/err"; then
			bad "plugin in tshark on $run (exit $rc)"
		else
			p_ok=$((p_ok + 1))
		fi
	done
	[ "$p_ok" -eq "$p_all" ] && ok "the plugin (ASan, UBSan) in tshark on $p_all mutated captures: no crash, no sanitizer report"
else
	echo "SKIP the plugin part: no PLUGIN_ASAN_SO or no tshark"
fi
echo "mutate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
