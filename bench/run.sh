#!/bin/sh
# rocelab benchmarks: usage  sh bench/run.sh BUILD_DIR   (what `make bench` runs)
# 1. BUILD_DIR/bench/decode: rl_decode + ICRC verify vs bare ISA-L / zlib CRC-32.
# 2. `rocelab explain` on a 1M-packet pcap vs `tshark -r` and `tcpdump -n -r`.
# 3. BUILD_DIR/bench/transport: two in-process hosts (RC, MTU 4096) over
#    rl_simwire and a direct FIFO vs encode+ICRC alone of the same packets.
# Prints times and ratios measured in this run; never fails on a timing.
# Needs only POSIX sh, GNU date (+%N) and awk; hyperfine is not used.
set -eu

B=${1:-build}
DIR=$B/bench
PCAP=$DIR/1m.pcap
PREFIX=$DIR/100k.pcap
LOG=$DIR/run.log
N=1000000
N_PREFIX=100000
TSHARK_MAX=120          # seconds: above this (estimated) tshark runs on the prefix only

mkdir -p "$DIR"

# Seconds since the epoch, with nanoseconds.
bn_now() {
	date +%s.%N
}

# bn_elapsed T0 T1: T1 - T0 in seconds.
bn_elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# bn_time CMD ARGS...: run CMD with stdout discarded, print seconds taken.
bn_time() {
	t0=$(bn_now)
	if ! "$@" > /dev/null 2> "$LOG"; then
		echo "bench: '$*' failed:" >&2
		cat "$LOG" >&2
		return 1
	fi
	t1=$(bn_now)
	bn_elapsed "$t0" "$t1"
}

# bn_best3 CMD ARGS...: the fastest of three runs.
bn_best3() {
	best=
	for _ in 1 2 3; do
		t=$(bn_time "$@") || return 1
		best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b ? a : b) }')
	done
	echo "$best"
}

# bn_ratio SLOW FAST: SLOW / FAST, one decimal.
bn_ratio() {
	awk -v s="$1" -v f="$2" 'BEGIN { if (f > 0) printf "%.1f", s / f; else print "inf" }'
}

# The readers, each from stdin so that no one needs to open files in the
# build directory: tshark refuses to run as root, so it runs as nobody.
bn_tshark() {
	if [ "$(id -u)" -eq 0 ] && command -v runuser > /dev/null 2>&1; then
		runuser -u nobody -- tshark -r - < "$1"
	else
		tshark -r - < "$1"
	fi
}

bn_tcpdump() {
	tcpdump -n -r - < "$1"
}

bn_explain() {
	"$B/rocelab" explain "$1"
}

# rocelab explain exists and decodes a small capture without error?
bn_have_explain() {
	[ -x "$B/rocelab" ] || return 1
	"$B/bench/decode" --write-pcap "$DIR/small.pcap" 16 || return 1
	bn_explain "$DIR/small.pcap" > /dev/null 2>&1
}

# Seconds tshark takes on the whole capture: measured, or scaled from the prefix.
bn_tshark_time() {
	tp=$(bn_time bn_tshark "$PREFIX") || return 1
	est=$(awk -v t="$tp" -v n="$N" -v p="$N_PREFIX" 'BEGIN { printf "%.3f", t * n / p }')
	if awk -v e="$est" -v m="$TSHARK_MAX" 'BEGIN { exit !(e > m) }'; then
		echo "  tshark -r on the $N_PREFIX-packet prefix: ${tp}s; scaled x$((N / N_PREFIX)): ${est}s (estimate)" >&2
		echo "$est"
		return 0
	fi
	bn_best3 bn_tshark "$PCAP"
}

bn_part1() {
	echo "== 1. decode + ICRC verify (in memory) =="
	"$B/bench/decode"
}

bn_part2() {
	echo "== 2. rocelab explain vs tshark and tcpdump, $N-packet pcap =="
	"$B/bench/decode" --write-pcap "$PCAP" "$N"
	"$B/bench/decode" --write-pcap "$PREFIX" "$N_PREFIX"
	echo "  capture: $PCAP ($(wc -c < "$PCAP" | tr -d ' ') bytes)"
	if ! bn_have_explain; then
		echo "  skipped: $B/rocelab explain not available"
		return 0
	fi
	if ! te=$(bn_best3 bn_explain "$PCAP"); then
		echo "  skipped: $B/rocelab explain failed on $PCAP"
		return 0
	fi
	echo "  rocelab explain FILE > /dev/null: ${te}s (best of 3)"
	if command -v tshark > /dev/null 2>&1; then
		if ts=$(bn_tshark_time); then
			echo "  tshark -r FILE > /dev/null:       ${ts}s (best of 3)"
			echo "  rocelab explain is $(bn_ratio "$ts" "$te") times faster than tshark -r (target >= 20x)"
		else
			echo "  tshark -r: failed, see above"
		fi
	else
		echo "  skipped: tshark not installed"
	fi
	if command -v tcpdump > /dev/null 2>&1; then
		if td=$(bn_best3 bn_tcpdump "$PCAP"); then
			echo "  tcpdump -n -r FILE > /dev/null:   ${td}s (best of 3)"
			echo "  rocelab explain is $(bn_ratio "$td" "$te") times faster than tcpdump -r (target > 1x)"
		else
			echo "  tcpdump -r: failed, see above"
		fi
	else
		echo "  skipped: tcpdump not installed"
	fi
}

bn_part3() {
	echo "== 3. transport: requester <-> responder in process vs encode+ICRC alone =="
	if [ ! -x "$B/bench/transport" ]; then
		echo "  skipped: $B/bench/transport not built (make $B/bench/transport)"
		return 0
	fi
	"$B/bench/transport"
}

bn_part1
bn_part2
bn_part3
