#!/bin/sh
# rocelab benchmarks: usage  sh bench/run.sh BUILD_DIR   (what `make bench` runs)
# 1. BUILD_DIR/bench/decode: rl_decode + ICRC verify vs bare ISA-L / zlib CRC-32.
# 2. `rocelab explain` on a 1M-packet pcap vs `tshark -r` and `tcpdump -n -r`.
# 3. BUILD_DIR/bench/transport: two in-process hosts (RC, MTU 4096) over
#    rl_simwire and a direct FIFO vs encode+ICRC alone of the same packets.
# 4. `rocelab gen write-bw` writing ~1M frames vs scapy (bench/scapy_gen.py)
#    writing the same kind of frames, ICRC and all, with PcapWriter.
# 5. `rocelab replay --topspeed` vs `tcpreplay --topspeed` onto a veth between
#    two network namespaces made (and removed) here; root only.
# 7. `rocelab peer` vs raw UDP sockets (BUILD_DIR/bench/udp_peer) over a veth
#    pair at MTU 9000: bandwidth and latency; root only.
# 8. `rocelab explain` on a fabric's capture (`gen fabric`: 10,000 QPs, 1000
#    frames each, interleaved) vs `tshark -r`: time and peak memory; and explain's
#    output on smaller fabric captures from BUILD_DIR/scan/rocelab (`make
#    scan-lookup`: flows found by a scan, not by hash) must be identical.
# 9. `rocelab report` of a 1M-frame capture (`gen write-bw`): the writer's time
#    and the page's size, and the seconds headless Chromium takes to draw it
#    (bench/report_load.py: to the page's ready marker, at #frame-N deep in it).
# 10. Two RoCE flows through one user-space bottleneck (tests/switch/two_flows.sh:
#    namespaces A, B -> rocelab switch at 0.2 Gb/s -> C, 10 s each), --cc none
#    and --cc dcqcn: loss, go-back-N resends, CE marks, CNPs, each flow's Mb/s
#    and Jain's index, from tcpdump and tshark; root only. Figures, no target.
# Prints times and ratios measured in this run; never fails on a timing.
# Needs only POSIX sh, GNU date (+%N) and awk; hyperfine is not used.
# BENCH_PARTS="4 5" sh bench/run.sh build runs only those parts (default: all, 1 to 10);
# BENCH_FABRIC_QPS and BENCH_FABRIC_COUNT size part 8's capture (default 10000 QPs, 800 WRITEs each);
# BENCH_SCAPY_N sets how many frames scapy writes in part 4 (default 10000).
set -eu

B=${1:-build}
DIR=$B/bench
PCAP=$DIR/1m.pcap
PREFIX=$DIR/100k.pcap
LOG=$DIR/run.log
N=1000000
N_PREFIX=100000
TSHARK_MAX=120          # seconds: above this (estimated) tshark runs on the prefix only
HERE=$(cd "$(dirname "$0")" && pwd)
GEN_COUNT=60000         # 16 KiB messages at MTU 1024: 16 data frames + 1 ACK each
GEN_SIZE=16384
SCAPY_N=${BENCH_SCAPY_N:-10000}
PY=/usr/bin/python3     # Debian's python3 with python3-scapy

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

# bn_frames: N from rocelab gen's "wrote N frames" line in $LOG.
bn_frames() {
	sed -n 's/.*wrote \([0-9][0-9]*\) frames.*/\1/p' "$LOG" | tail -1
}

# bn_pps FRAMES SECONDS: frames per second, no decimals.
bn_pps() {
	awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", n / t; else print "inf" }'
}

bn_gen() {
	"$B/rocelab" gen write-bw --count "$GEN_COUNT" --size "$GEN_SIZE" -o "$1"
}

bn_part4() {
	echo "== 4. rocelab gen write-bw vs scapy writing the same frames to a pcap =="
	out=$DIR/gen.pcap
	if [ ! -x "$B/rocelab" ]; then
		echo "  skipped: $B/rocelab not built"
		return 0
	fi
	# Best of 3; the old file is removed, and dirty pages written back,
	# outside the timed region, so that each run starts from the same state.
	tg=
	for _ in 1 2 3; do
		rm -f "$out"
		sync 2> /dev/null || true
		if ! t=$(bn_time bn_gen "$out"); then
			echo "  skipped: rocelab gen failed"
			rm -f "$out"
			return 0
		fi
		tg=$(awk -v a="$t" -v b="${tg:-$t}" 'BEGIN { print (a < b ? a : b) }')
	done
	ng=$(bn_frames)
	ng=${ng:-0}
	rm -f "$out"
	pg=$(bn_pps "$ng" "$tg")
	echo "  rocelab gen write-bw --count $GEN_COUNT --size $GEN_SIZE -o FILE: $ng frames in ${tg}s (best of 3): $pg frames/s"
	if [ ! -x "$PY" ] || ! "$PY" -c 'import scapy.all, scapy.contrib.roce' > /dev/null 2>&1; then
		echo "  skipped: scapy not available to $PY (python3-scapy)"
		return 0
	fi
	# scapy_gen.py times itself from opening the pcap to closing it, leaving
	# out the interpreter's start and scapy's import.
	if ! r=$("$PY" "$HERE/scapy_gen.py" "$SCAPY_N" "$DIR/scapy.pcap" 2> "$LOG"); then
		echo "  scapy: failed:"
		sed 's/^/    /' "$LOG"
		rm -f "$DIR/scapy.pcap"
		return 0
	fi
	rm -f "$DIR/scapy.pcap"
	ns=${r% *}
	ts=${r#* }
	ps=$(bn_pps "$ns" "$ts")
	echo "  scapy Ether/IP/UDP/BTH/Raw + ICRC, PcapWriter: $ns frames in ${ts}s: $ps frames/s"
	echo "  rocelab gen is $(bn_ratio "$pg" "$ps") times faster than scapy (target >= 1000x)"
}

# Part 5's namespaces and veth: unique per run, removed on any exit.
NS5A=bnrtx$$
NS5B=bnrrx$$
V5A=bnv$$a
V5B=bnv$$b
REPLAY_MAX=60           # seconds: any one replay is stopped after this

# bn_pair_up NSA NSB VA VB: two namespaces joined by a veth pair VA -- VB, up,
# IPv6 off (nothing in either sends on its own), removed on any exit by
# bn_pair_down, with the files named in BN_PAIR_FILES. Parts 5 and 7 each make
# their own.
bn_pair_up() {
	ip netns add "$1" 2> /dev/null || return 1
	BN_PAIR="$1 $2"
	trap 'bn_pair_down' EXIT
	trap 'bn_pair_down; exit 130' INT
	trap 'bn_pair_down; exit 143' TERM
	ip netns add "$2" &&
	ip link add "$3" type veth peer name "$4" &&
	ip link set "$3" netns "$1" &&
	ip link set "$4" netns "$2" || return 1
	for ns in "$1" "$2"; do
		ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 > /dev/null 2>&1 || true
		ip -n "$ns" link set lo up || return 1
	done
	ip -n "$1" link set "$3" up &&
	ip -n "$2" link set "$4" up
}

bn_pair_down() {
	for ns in ${BN_PAIR:-}; do
		ip netns del "$ns" 2> /dev/null || true
	done
	rm -f ${BN_PAIR_FILES:-}
	BN_PAIR=
	BN_PAIR_FILES=
	trap - EXIT INT TERM
}

# Part 5: no addresses, so nothing answers; the peer is up, so that frames are
# taken off the wire (and dropped: they are not addressed to it).
bn_net_up() {
	BN_PAIR_FILES=$DIR/replay.pcap
	bn_pair_up "$NS5A" "$NS5B" "$V5A" "$V5B"
}

bn_rocelab_replay() {
	ip netns exec "$NS5A" timeout "$REPLAY_MAX" "$B/rocelab" replay "$1" --iface "$V5A" --topspeed
}

bn_tcpreplay() {
	ip netns exec "$NS5A" timeout "$REPLAY_MAX" tcpreplay -q --topspeed -i "$V5A" "$1"
}

# bn_min A B: the smaller; the other when one is empty (a run that failed).
bn_min() {
	awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || (a != "" && a < b) ? a : b) }'
}

bn_part5() {
	echo "== 5. rocelab replay --topspeed vs tcpreplay --topspeed onto a veth =="
	if [ ! -x "$B/rocelab" ]; then
		echo "  skipped: $B/rocelab not built"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ] || ! command -v ip > /dev/null 2>&1 || ! bn_net_up; then
		bn_pair_down
		echo "  skipped: needs root and network namespaces"
		return 0
	fi
	cap=$DIR/replay.pcap
	if ! bn_gen "$cap" > /dev/null 2> "$LOG"; then
		echo "  skipped: rocelab gen failed"
		bn_pair_down
		return 0
	fi
	n=$(bn_frames)
	n=${n:-0}
	echo "  capture: write-bw, $n frames of 1062-1098 bytes; sent from $NS5A:$V5A"
	have_tcpreplay=0
	command -v tcpreplay > /dev/null 2>&1 && have_tcpreplay=1
	# Best of 3 each, interleaved; each time is the whole command, wall clock
	# (process start and file open included, the same for both).
	tr=
	tt=
	for _ in 1 2 3; do
		if t=$(bn_time bn_rocelab_replay "$cap"); then
			tr=$(bn_min "$tr" "$t")
		fi
		if [ "$have_tcpreplay" -eq 1 ] && t=$(bn_time bn_tcpreplay "$cap"); then
			tt=$(bn_min "$tt" "$t")
		fi
	done
	bn_pair_down
	if [ -z "$tr" ]; then
		echo "  rocelab replay: failed, see above"
		return 0
	fi
	pr=$(bn_pps "$n" "$tr")
	echo "  rocelab replay FILE --iface VETH --topspeed: ${tr}s (best of 3): $pr frames/s"
	if [ "$have_tcpreplay" -eq 0 ]; then
		echo "  skipped: tcpreplay not installed"
		return 0
	fi
	if [ -z "$tt" ]; then
		echo "  tcpreplay: failed, see above"
		return 0
	fi
	pt=$(bn_pps "$n" "$tt")
	echo "  tcpreplay --topspeed -i VETH FILE:          ${tt}s (best of 3): $pt frames/s"
	echo "  rocelab replay is $(bn_ratio "$pr" "$pt") times tcpreplay's rate (target >= 1.0x)"
}

# 6. The Wireshark plugin's cost: tshark with it against tshark without it on the
#    same capture, and rocelab explain (with the analyzer's annotations) against tshark.
bn_tshark_plugin() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$PLUGHOME" \
			WIRESHARK_PLUGIN_DIR="$PLUGDIR" tshark -r - < "$1"
	else
		env WIRESHARK_PLUGIN_DIR="$PLUGDIR" tshark -r - < "$1"
	fi
}

bn_tshark_noplugin() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$PLUGHOME" tshark -r - < "$1"
	else
		tshark -r - < "$1"
	fi
}

bn_part6() {
	echo "== 6. tshark with the rocelab plugin against tshark without it =="
	if [ ! -f "$B/plugin/rocelab.so" ]; then
		echo "  skipped: $B/plugin/rocelab.so not built (make plugin)"
		return 0
	fi
	[ -f "$PCAP" ] || "$B/bench/decode" --write-pcap "$PCAP" "$N"
	[ -f "$PREFIX" ] || "$B/bench/decode" --write-pcap "$PREFIX" "$N_PREFIX"
	P6=$(mktemp -d)
	chmod 755 "$P6"
	PLUGDIR=$P6/plugins
	PLUGHOME=$P6/home
	mkdir -p "$PLUGDIR/4.0/epan" "$PLUGHOME"
	cp "$B/plugin/rocelab.so" "$PLUGDIR/4.0/epan/"
	chmod -R a+rX "$P6"
	chown -R 65534 "$PLUGHOME" 2>/dev/null || true
	f=$PCAP
	[ "${BENCH_PLUGIN_1M:-0}" = 1 ] || { f=$PREFIX; echo "  capture: $N_PREFIX packets (BENCH_PLUGIN_1M=1 for the 1M file)"; }
	tw=$(bn_best3 bn_tshark_plugin "$f") || { echo "  tshark with the plugin failed"; rm -rf "$P6"; return 0; }
	to=$(bn_best3 bn_tshark_noplugin "$f") || { echo "  tshark failed"; rm -rf "$P6"; return 0; }
	te=$(bn_best3 bn_explain "$f")
	echo "  tshark -r with the plugin:    ${tw}s (best of 3)"
	echo "  tshark -r without it:         ${to}s (best of 3)"
	echo "  with / without: $(awk -v a="$tw" -v b="$to" 'BEGIN { printf "%.2f", a / b }')x (target <= 1.3x)"
	echo "  rocelab explain (annotated):  ${te}s (best of 3): $(bn_ratio "$to" "$te") times faster than tshark -r"
	rm -rf "$P6"
}

# 7. rocelab peer against raw UDP sockets between two namespaces over one veth
#    pair at MTU 9000, in the same run: WRITE bandwidth against a sendto blast
#    of 4154-byte datagrams and against GSO+GRO; SEND ping-pong latency against
#    a UDP ping-pong of 2 bytes, blocking and busy-polled.
NS7A=bnpa$$
NS7B=bnpb$$
V7A=bnp$$a
V7B=bnp$$b
P7_MAX=60               # seconds: any one run is stopped after this

bn_net7_up() {
	bn_pair_up "$NS7A" "$NS7B" "$V7A" "$V7B" &&
	ip -n "$NS7A" addr add 10.77.0.1/24 dev "$V7A" &&
	ip -n "$NS7B" addr add 10.77.0.2/24 dev "$V7B" &&
	ip -n "$NS7A" link set "$V7A" mtu 9000 &&
	ip -n "$NS7B" link set "$V7B" mtu 9000
}

# bn_json_field FILE KEY: a number from rocelab peer --json output.
bn_json_field() {
	sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -n 1
}

# bn_peer OUT CLIENT-OPTIONS...: one rocelab peer run, server in B, client in A; --json into OUT.
bn_peer() {
	out=$1
	shift
	ip netns exec "$NS7B" timeout "$P7_MAX" "$B/rocelab" peer --server --timeout 50 $P7_SERVER > /dev/null 2>&1 &
	sp=$!
	sleep 0.3
	ip netns exec "$NS7A" timeout "$P7_MAX" "$B/rocelab" peer --client 10.77.0.2 --timeout 50 --json "$@" \
		> "$out" 2> "$LOG"
	rc=$?
	wait "$sp" || rc=1
	return $rc
}

# bn_blast [--gso]: MiB/s and datagrams/s of 4154-byte datagrams arriving, sink in B.
bn_blast() {
	gro=
	[ "${1:-}" = --gso ] && gro=--gro
	ip netns exec "$NS7B" timeout "$P7_MAX" "$DIR/udp_peer" sink 9999 $gro > "$DIR/sink.out" 2> "$LOG" &
	sp=$!
	i=0
	while ! grep -q ready "$DIR/sink.out" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	ip netns exec "$NS7A" timeout "$P7_MAX" "$DIR/udp_peer" blast 10.77.0.2 9999 4154 3 "$@" > /dev/null 2>> "$LOG"
	wait "$sp" || return 1
	awk 'NR == 2 && $3 > 0 { printf "%.2f %.0f\n", $2 / 1048576 / $3, $1 / $3 }' "$DIR/sink.out"
}

# bn_udp_ping [--busy]: the typical half round trip of a 2-byte UDP ping-pong, in us.
bn_udp_ping() {
	ip netns exec "$NS7B" timeout "$P7_MAX" "$DIR/udp_peer" pong 9998 "$@" > "$DIR/pong.out" 2> "$LOG" &
	sp=$!
	i=0
	while ! grep -q ready "$DIR/pong.out" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	rc=0
	ip netns exec "$NS7A" timeout "$P7_MAX" "$DIR/udp_peer" ping 10.77.0.2 9998 2 20000 "$@" 2>> "$LOG" || rc=$?
	kill "$sp" 2> /dev/null || true
	# The pong killed: its status is 143, which set -e took for the run's (the baseline "failed" every time).
	wait "$sp" 2> /dev/null || true
	return $rc
}

# bn_udp_failed OUTPUT [--busy]: why the UDP baseline gave no number, with the commands and what they said.
bn_udp_failed() {
	echo "  UDP ping-pong failed: ip netns exec $NS7B udp_peer pong 9998 ${2:-} &" \
		"ip netns exec $NS7A udp_peer ping 10.77.0.2 9998 2 20000 ${2:-}"
	echo "    ping printed: ${1:-nothing}"
	sed 's/^/    /' "$LOG"
}

# bn_max A B: the larger; the other when one is empty.
bn_max() {
	awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || (a != "" && a > b) ? a : b) }'
}

bn_part7() {
	echo "== 7. rocelab peer against raw UDP sockets on a veth pair, MTU 9000 =="
	if [ ! -x "$B/rocelab" ] || [ ! -x "$DIR/udp_peer" ]; then
		echo "  skipped: $B/rocelab or $DIR/udp_peer not built (make bench builds them)"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ] || ! command -v ip > /dev/null 2>&1 || ! bn_net7_up; then
		bn_pair_down
		echo "  skipped: needs root and network namespaces"
		return 0
	fi
	pw=
	bs=
	bg=
	lb=
	lbb=
	ub=
	ubb=
	P7_SERVER=
	# Best of 3 each, interleaved, so that the machine's mood hits all alike.
	for _ in 1 2 3; do
		if bn_peer "$DIR/peer.json" --op write --size 65536 --mtu 4096 --iters 15000; then
			pw=$(bn_max "$pw" "$(bn_json_field "$DIR/peer.json" bw_avg_mbps)")
		else
			echo "  rocelab peer write failed:"; sed 's/^/    /' "$LOG"
		fi
		# the datagrams/s of the best run, printed next to it
		if r=$(bn_blast) && [ "$(bn_max "$bs" "${r% *}")" != "$bs" ]; then bs=${r% *}; bsr=${r#* }; fi
		if r=$(bn_blast --gso) && [ "$(bn_max "$bg" "${r% *}")" != "$bg" ]; then bg=${r% *}; bgr=${r#* }; fi
		if bn_peer "$DIR/peer.json" --op pingpong --size 2 --iters 20000; then
			lb=$(bn_min "$lb" "$(bn_json_field "$DIR/peer.json" t_typical_us)")
		fi
		P7_SERVER=--busy-poll
		if bn_peer "$DIR/peer.json" --op pingpong --size 2 --iters 20000 --busy-poll; then
			lbb=$(bn_min "$lbb" "$(bn_json_field "$DIR/peer.json" t_typical_us)")
		fi
		P7_SERVER=
		if r=$(bn_udp_ping); then ub=$(bn_min "$ub" "$r"); else bn_udp_failed "$r"; fi
		if r=$(bn_udp_ping --busy); then ubb=$(bn_min "$ubb" "$r"); else bn_udp_failed "$r" --busy; fi
	done
	bn_pair_down
	rm -f "$DIR/peer.json" "$DIR/sink.out" "$DIR/pong.out"
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else printf "?" }'; }
	echo "  bandwidth, MiB/s of payload arriving (best of 3):"
	echo "    rocelab peer --op write --size 65536 --mtu 4096: ${pw:-failed}"
	echo "    UDP sendto, 4154-byte datagrams:                ${bs:-failed} (${bsr:-?} datagrams/s)"
	echo "    UDP GSO (UDP_SEGMENT) + GRO (UDP_GRO):          ${bg:-failed} (${bgr:-?} datagrams/s)"
	echo "    peer / sendto blast:  $(ratio "$pw" "$bs")x (target >= 0.8x)"
	echo "    peer / GSO+GRO blast: $(ratio "$pw" "$bg")x (the limit of a socket-based design)"
	echo "  latency, typical half round trip of 2 bytes in us (best of 3):"
	echo "    rocelab peer --op pingpong, blocking:    ${lb:-failed}   UDP ping-pong: ${ub:-failed}" \
		"  peer / UDP: $(ratio "$lb" "$ub")x (target <= 1.3x)"
	echo "    rocelab peer --op pingpong --busy-poll:  ${lbb:-failed}   UDP ping-pong: ${ubb:-failed}" \
		"  peer / UDP: $(ratio "$lbb" "$ubb")x (target <= 1.3x)"
	echo "  the Soft-RoCE tutorials (2-core cloud VM, veth; not measured here): ib_send_bw 64 KiB" \
		"~360 MB/s, ib_send_lat ~3 us"
	echo "    rocelab peer here: $(ratio "$pw" 360)x that bandwidth; $(ratio "$lbb" 3)x that latency busy-polled," \
		"$(ratio "$lb" 3)x blocking"
}

# Part 8: a fabric's capture (gen fabric): QPs x frames, as the issue that asked for it (21) says.
FAB_QPS=${BENCH_FABRIC_QPS:-10000}
FAB_COUNT=${BENCH_FABRIC_COUNT:-800}    # WRITEs per QP; with an ACK for every 4, 1000 frames

# bn_rss CMD ARGS...: peak resident memory of CMD in MB (GNU time), '?' without /usr/bin/time.
bn_rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$DIR/rss" "$@" > /dev/null 2>&1 && awk '{ printf "%.0f", $1 / 1024 }' "$DIR/rss"
	else
		printf '?'
	fi
}

FAB_SAME_COUNT=2        # WRITEs per QP in the captures both lookups explain: a scan of every flow is slow
# explain_same A B PCAP DIR, shared with tests/scenarios
. "$HERE/../tests/lib/explain_same.sh"

# bn_lookup_same: explain finding flows through the analyzer's hash tables ($B/rocelab) and through its
# reference lookup, a scan of every flow ($B/scan/rocelab: make scan-lookup, built here if need be), on
# the fabric's QPs with FAB_SAME_COUNT WRITEs each and on 17000 QPs (past the 16384 flows followed).
bn_lookup_same() {
	if [ ! -f Makefile ] || ! make -s B="$B" scan-lookup > "$LOG" 2>&1 || [ ! -x "$B/scan/rocelab" ]; then
		echo "  hash tables vs reference lookup: skipped, no $B/scan/rocelab (make scan-lookup)"
		return 0
	fi
	for v in "$FAB_QPS $FAB_SAME_COUNT" "17000 1"; do
		# shellcheck disable=SC2086  # QPs, WRITEs per QP
		set -- $v
		if ! "$B/rocelab" gen fabric --qps "$1" --count "$2" -o "$DIR/fabric-same.pcap" > "$LOG" 2>&1; then
			echo "  gen fabric --qps $1 --count $2 failed:"; sed 's/^/    /' "$LOG"
			continue
		fi
		echo "  explain, hash tables vs a scan of every flow, --qps $1 --count $2 ($(bn_frames) frames):" \
			"$(explain_same "$B/rocelab" "$B/scan/rocelab" "$DIR/fabric-same.pcap" "$DIR")"
	done
	rm -f "$DIR/fabric-same.pcap"
}

bn_part8() {
	echo "== 8. scale: a fabric's capture, $FAB_QPS QPs: rocelab explain vs tshark -r =="
	fab=$DIR/fabric.pcap
	if [ ! -x "$B/rocelab" ]; then
		echo "  skipped: $B/rocelab not built"
		return 0
	fi
	if ! "$B/rocelab" gen fabric --qps "$FAB_QPS" --count "$FAB_COUNT" -o "$fab" > "$LOG" 2>&1; then
		echo "  gen fabric failed:"; sed 's/^/    /' "$LOG"
		return 0
	fi
	n=$(bn_frames)
	te=$(bn_best3 bn_explain "$fab") || return 0
	# One more run for its memory, keeping the summary's 'flow history dropped' line if there is one.
	me=$(bn_rss sh -c '"$1" explain "$2" | grep "flow history" > "$3"; true' sh "$B/rocelab" "$fab" "$DIR/history")
	sed 's/^ */  explain: /' "$DIR/history"
	echo "  $n frames; rocelab explain: ${te}s ($(bn_pps "$n" "$te") frames/s), peak RSS ${me} MB"
	bn_lookup_same
	if ! command -v tshark > /dev/null 2>&1; then
		echo "  tshark not installed: no ratio"
		rm -f "$fab"
		return 0
	fi
	# tshark on a prefix of 100,000 frames, scaled: it keeps every frame's state, and 10 million would not fit.
	editcap -r "$fab" "$DIR/fabric-prefix.pcap" 1-"$N_PREFIX" > /dev/null 2>&1 || cp "$fab" "$DIR/fabric-prefix.pcap"
	np=$(capinfos -c -M "$DIR/fabric-prefix.pcap" 2> /dev/null | awk '/Number of packets/ { print $NF }')
	tp=$(bn_time bn_tshark "$DIR/fabric-prefix.pcap") || return 0
	mt=$(bn_rss sh -c 'if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- tshark -r - < "$1"; else tshark -r - < "$1"; fi' \
		sh "$DIR/fabric-prefix.pcap")
	ts=$(awk -v t="$tp" -v n="$n" -v p="${np:-1}" 'BEGIN { printf "%.3f", t * n / p }')
	echo "  tshark -r: ${tp}s and peak RSS ${mt} MB on the first ${np:-?} frames; scaled to $n: ${ts}s (estimate)"
	echo "  rocelab explain is $(bn_ratio "$ts" "$te") times faster than tshark on a fabric's capture (target >= 20x)"
	rm -f "$fab" "$DIR/fabric-prefix.pcap" "$DIR/rss" "$DIR/history"
}

# 9. rocelab report's page of a million frames: written, and drawn by headless Chromium.
bn_part9() {
	echo "== 9. rocelab report of a 1M-frame capture, loaded in headless Chromium =="
	if ! "$B/rocelab" report --help > /dev/null 2>&1; then
		echo "  skipped: this rocelab has no report command"
		return 0
	fi
	if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || ! "$PY" -c 'import selenium' 2> /dev/null; then
		echo "  skipped: chromium, chromium-driver or python3-selenium missing"
		return 0
	fi
	P9=$(mktemp -d)
	"$B/rocelab" gen write-bw --size 64 --count 500000 -o "$P9/big.pcap" > "$P9/gen.out" 2>&1 ||
		{ echo "  rocelab gen failed"; rm -rf "$P9"; return 0; }
	n=$(sed -n 's/^rocelab gen: wrote \([0-9]*\) frames.*/\1/p' "$P9/gen.out")
	tr=$(bn_time "$B/rocelab" report "$P9/big.pcap" -o "$P9/big.html") || { rm -rf "$P9"; return 0; }
	echo "  rocelab report of $n frames: ${tr}s, page $(wc -c < "$P9/big.html") bytes ($(wc -c < "$P9/big.pcap") bytes of pcap)"
	# Writing the page keeps no more than explain does: the rows stream out, the summary is bounded.
	mr=$(bn_rss "$B/rocelab" report -q "$P9/big.pcap" -o "$P9/big2.html")
	me=$(bn_rss "$B/rocelab" explain "$P9/big.pcap")
	echo "  peak memory: rocelab report ${mr} MB, rocelab explain ${me} MB on the same capture"
	rm -f "$P9/big2.html"
	f=$((n * 3 / 4 + 1))
	env HOME="$P9" XDG_CONFIG_HOME="$P9/.config" XDG_CACHE_HOME="$P9/.cache" \
		"$PY" "$HERE/report_load.py" "$P9/big.html" "frame-$f" "$P9" > "$P9/load.out" 2>&1
	if grep -q '^load [0-9]' "$P9/load.out"; then
		echo "  headless Chromium, file://...#frame-$f to the ready marker: $(sed -n 's/^load //p' "$P9/load.out")s," \
			"$(sed -n 's/^arrows //p' "$P9/load.out") arrows in the document"
	else
		echo "  headless Chromium did not draw it: $(tail -n 3 "$P9/load.out" | tr '\n' ' ')"
	fi
	rm -rf "$P9"
}

# 10. Two flows, one bottleneck: what DCQCN changes (the same experiment as tests/switch/run.sh's (g), longer).
bn_flows() { # LABEL CC SWITCH-OPTIONS...: one run of two_flows.sh, its figures on one line
	label=$1
	cc=$2
	shift 2
	if ! timeout 120 sh "$HERE/../tests/switch/two_flows.sh" "$B/rocelab" "$cc" 10 0.2 "$@" > "$DIR/flows.out" 2> "$LOG"; then
		echo "  $label: the run failed: $(tail -n 2 "$LOG" | tr '\n' ' ')"
		return 0
	fi
	f() { sed -n "s/^$1 //p" "$DIR/flows.out"; }
	echo "  $label: lost $(f lost) of $(f in_frames) frames (switch: tail $(f sw_tail), RED Not-ECT $(f sw_notect))," \
		"resent $(f resent), CE $(f ce), CNPs $(f cnps); at C $(f mbps_a) + $(f mbps_b) = $(f mbps_sum) Mb/s, Jain $(f jain)" \
		"$([ "$(f ok_a)$(f ok_b)" = 11 ] || echo "(a client failed)")$(grep -q '^sw_kernel 1' "$DIR/flows.out" && echo " (the kernel dropped frames before the switch read them)")"
}
bn_part10() {
	echo "== 10. two RoCE flows, one 0.2 Gb/s bottleneck (rocelab switch): --cc none vs --cc dcqcn, 10 s each =="
	if [ "$(id -u)" -ne 0 ] || ! command -v tshark > /dev/null 2>&1 || ! command -v tcpdump > /dev/null 2>&1; then
		echo "  skipped: needs root, tshark and tcpdump"
		return 0
	fi
	# gen dcqcn's marking; the 400 KB buffer holds both windows (2 x 16 x 4 KiB WRITEs).
	bn_flows "--cc none,  Kmin 5 KB, Kmax 200 KB, Pmax 0.01, buffer 400 KB" none --kmin 5 --kmax 200 --pmax 0.01 --queue 400
	bn_flows "--cc dcqcn, Kmin 5 KB, Kmax 200 KB, Pmax 0.01, buffer 400 KB" dcqcn --kmin 5 --kmax 200 --pmax 0.01 --queue 400
	# A buffer below the windows: only the senders slowing down can keep it from overflowing.
	bn_flows "--cc none,  Kmin 5 KB, Kmax 60 KB, Pmax 0.01, buffer 100 KB" none --kmin 5 --kmax 60 --pmax 0.01 --queue 100
	bn_flows "--cc dcqcn, Kmin 5 KB, Kmax 60 KB, Pmax 0.01, buffer 100 KB" dcqcn --kmin 5 --kmax 60 --pmax 0.01 --queue 100
	rm -f "$DIR/flows.out"
}

for p in ${BENCH_PARTS:-1 2 3 4 5 6 7 8 9 10}; do
	case $p in
	1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10) "bn_part$p" ;;
	*) echo "bench: no part '$p' (parts are 1 to 10)" >&2 ;;
	esac
done
