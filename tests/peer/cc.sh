#!/bin/sh
# rocelab peer's congestion control options between two network namespaces
# made here (names unique with $$), each run bounded by timeout: --rate caps
# the throughput tshark measures over the capture of the data frames
# (frame.time_epoch, frame.len), --cc dcqcn marks them ECT(0) (tshark's
# ip.dsfield.ecn), and a run of -D N seconds prints N per-second lines (or
# N-1, when the last second ends with the run) and one for the whole run.
# run.sh runs it; it runs alone too. Needs root and tshark; skips without.
# Usage: cc.sh ROCELAB
set -u
. "$(dirname "$0")/../lib/tshark.sh"    # run_tshark
R=${1:?usage: cc.sh ROCELAB}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
T=$(mktemp -d)
chmod 755 "$T"
NA=rlca$$
NB=rlcb$$
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
cleanup() {
    ip netns del "$NA" 2>/dev/null
    ip netns del "$NB" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" -ne 0 ] || ! command -v tshark >/dev/null || ! ip netns add "$NA" 2>/dev/null; then
    echo "SKIP peer congestion control: needs root, tshark and network namespaces"
    exit 0
fi
ip netns add "$NB"
ip link add "$NA" type veth peer name "$NB"
ip link set "$NA" netns "$NA"
ip link set "$NB" netns "$NB"
ip -n "$NA" addr add 10.78.0.1/24 dev "$NA"
ip -n "$NB" addr add 10.78.0.2/24 dev "$NB"
for ns in "$NA" "$NB"; do
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "$ns" up
done

# run NAME "SERVER-ARGS" CLIENT-ARGS...: both ends, tcpdump in A keeping the first 96 bytes of each
# RoCE frame (frame.len keeps the length on the wire); outputs in $T/cli, $T/srv, capture $T/cap.pcap.
run() {
    name=$1
    srvargs=$2
    shift 2
    rm -f "$T/cap.pcap" "$T/td.err"
    ip netns exec "$NA" timeout 60 tcpdump -i "$NA" --immediate-mode -s 96 -B 65536 -U -n -w "$T/cap.pcap" \
        'udp port 4791' >/dev/null 2>"$T/td.err" &
    td=$!
    i=0
    while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    # shellcheck disable=SC2086  # the server's options, one word each
    ip netns exec "$NB" timeout 60 "$R" peer --server --timeout 30 $srvargs >"$T/srv" 2>&1 &
    srv=$!
    sleep 0.3
    ip netns exec "$NA" timeout 60 "$R" peer --client 10.78.0.2 --timeout 30 "$@" >"$T/cli" 2>&1
    crc=$?
    wait $srv
    src=$?
    sleep 0.3
    kill -INT $td 2>/dev/null
    wait $td 2>/dev/null
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$name: client exit $crc, server exit $src: $(tail -n 3 "$T/cli" "$T/srv" | tr '\n' ' ')"
        return 1
    fi
    if grep -q "dropped by kernel" "$T/td.err" && ! grep -q "^0 packets dropped by kernel" "$T/td.err"; then
        echo "note $name: tcpdump dropped frames: $(grep 'dropped by kernel' "$T/td.err")"
    fi
    return 0
}

# The client's data frames, as tshark reads them: "epoch len ecn" a line.
data_frames() {
    run_tshark -r - -Y "ip.src == 10.78.0.1 && infiniband" -T fields -e frame.time_epoch -e frame.len \
        -e ip.dsfield.ecn <"$T/cap.pcap" 2>/dev/null
}

# Mb/s of the client's data frames: every frame's length but the last's, over first to last.
measured_mbps() {
    data_frames | awk 'NR == 1 { t0 = $1 } { t1 = $1; sum += last; last = $2 }
        END { if (t1 > t0) printf "%.1f\n", sum * 8 / (t1 - t0) / 1e6; else print 0 }'
}

# within A B PERCENT: |A - B| <= B * PERCENT / 100
within() {
    awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}

# (a) --rate 0.2: at most 200 Mb/s (+10%: the pacer's 20 ms burst after a late wake), measured on
# the capture. Only an upper bound: how fast a loaded machine moves frames is bench/'s, not a test's.
# The cap can only be seen where the uncapped run is faster than it, so that run goes first.
free=0
if run "uncapped" "" --op write -D 2; then
    free=$(measured_mbps)
    # No --cc: rxe's default, Not-ECT (0) on every frame.
    if [ "$(data_frames | awk '$3 != 0' | wc -l)" -eq 0 ]; then pass "no --cc: the data frames are Not-ECT"
    else fail "no --cc: $(data_frames | awk '$3 != 0' | wc -l) frames with an ECN codepoint"; fi
fi
# capped_200 NAME: the run just made sent at most 200 Mb/s + 10% by tshark, if the uncapped one was faster.
capped_200() {
    capped=$(measured_mbps)
    if awk -v f="$free" 'BEGIN { exit !(f <= 250) }'; then
        echo "note $1: the uncapped run moved only $free Mb/s here, so a cap of 200 cannot be told apart"
    elif awk -v c="$capped" 'BEGIN { exit !(c <= 220) }'; then
        pass "$1: tshark measures $capped Mb/s of data frames, at most 200 + 10% (uncapped: $free Mb/s)"
    else fail "$1: tshark measures $capped Mb/s, over 200 + 10% (uncapped: $free Mb/s)"; fi
}
run "--rate 0.2" "" --op write -D 3 --rate 0.2 && capped_200 "--rate 0.2"
# --dcqcn reaches the QP: rpg_max_rate, DCQCN's ceiling, caps it from the first frame, no CNP needed.
run "--dcqcn rpg_max_rate=200" "--cc dcqcn" --op write -D 3 --cc dcqcn --dcqcn rpg_max_rate=200 &&
    capped_200 "--dcqcn rpg_max_rate=200"

# (b), (c) --cc dcqcn: every data frame ECT(0) (ip.dsfield.ecn 2, RFC 3168); the per-second lines.
if run "--cc dcqcn" "--cc dcqcn" --op write -D 3 --cc dcqcn --rate 0.5; then
    n=$(data_frames | wc -l)
    ect0=$(data_frames | awk '$3 == 2' | wc -l)
    if [ "$n" -gt 100 ] && [ "$ect0" -eq "$n" ]; then pass "--cc dcqcn: all $n data frames ECT(0) per tshark"
    else fail "--cc dcqcn: $ect0 of $n data frames ECT(0)"; fi
    lines=$(grep -c '^\[ *[0-9.]*- *[0-9.]* s\] QP 0x[0-9a-f]*  .* Mb/s  Rc .* (DCQCN [a-z-]*)  CNPs in [0-9]* out [0-9]*  CE seen [0-9]*$' "$T/cli")
    if [ "$lines" -eq 3 ] || [ "$lines" -eq 2 ]; then pass "--cc dcqcn -D 3: $lines per-second lines with Rc and the stage"
    else fail "--cc dcqcn -D 3: $lines per-second lines: $(grep '^\[' "$T/cli" | tr '\n' ' ')"; fi
    if grep -q '^\[ 0.0- *3\.[0-9] s\] QP .*(the whole run)$' "$T/cli"; then pass "--cc dcqcn: a line for the whole run"
    else fail "--cc dcqcn: no line for the whole run: $(grep '^\[' "$T/cli" | tr '\n' ' ')"; fi
    # The server only answers and no CNP reaches it: its lines carry no Rc (its requester is idle).
    sl=$(grep -c '^\[ *[0-9.]*- *[0-9.]* s\] QP 0x[0-9a-f]*  [0-9.]* Mb/s  CNPs in 0 out [0-9]*  CE seen [0-9]*' "$T/srv")
    if [ "$sl" -ge 2 ] && ! grep -q '^\[.* Rc ' "$T/srv"; then pass "--cc dcqcn: the server's $sl lines name no Rc of its own"
    else fail "--cc dcqcn: the server's lines: $(grep '^\[' "$T/srv" | head -n 3 | tr '\n' ' ')"; fi
    # No congestion point on a bare veth: no CE, so no CNP either way.
    if grep '^\[.*(the whole run)$' "$T/cli" | grep -q 'CNPs in 0 out 0  CE seen 0'; then pass "--cc dcqcn: no CE, no CNPs"
    else fail "--cc dcqcn: $(grep 'whole run' "$T/cli")"; fi
    # The per-second lines agree with tshark's rate to 10%: whole run against the capture.
    said=$(sed -n 's/^\[ 0.0- *[0-9.]* s\] QP 0x[0-9a-f]*  \([0-9.]*\) Mb\/s.*(the whole run)$/\1/p' "$T/cli")
    cap=$(measured_mbps)
    if [ -n "$said" ] && within "$said" "$cap" 10; then pass "--cc dcqcn: the run's line says $said Mb/s, tshark $cap"
    else fail "--cc dcqcn: the run's line says '$said' Mb/s, tshark $cap"; fi
fi
# A run under a second prints none.
if run "short" "" --op write --iters 10; then
    if grep -q '^\[.*Mb/s' "$T/cli" "$T/srv"; then fail "a short run printed per-second lines"
    else pass "a run under a second prints no per-second lines"; fi
fi

left=$(ip netns pids "$NA" 2>/dev/null; ip netns pids "$NB" 2>/dev/null)
if [ -n "$left" ]; then fail "still running in the namespaces: $(ps -o comm= -p $left | tr '\n' ' ')"
else pass "nothing left running in the namespaces"; fi
cleanup
echo "peer cc: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
