#!/bin/sh
# rocelab replay onto a veth pair between two network namespaces made here:
# tcpdump on the far end must capture the file's frames byte for byte, with
# and without rewriting. Needs root (CI runs as root); skipped otherwise.
# Usage: run.sh ROCELAB
set -u
R=${1:?usage: run.sh ROCELAB}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
chmod 755 "$T"
NS1=rltx$$
NS2=rlrx$$
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
cleanup() {
    ip netns del "$NS1" 2>/dev/null
    ip netns del "$NS2" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

# Bad use first: these need no privileges.
"$R" gen demo -o "$T/demo.pcap" 2>/dev/null
if "$R" replay "$T/demo.pcap" >"$T/out" 2>&1; then fail "replay without --iface refused"
elif grep -q "which interface" "$T/out"; then pass "replay without --iface refused with a reason"
else fail "replay without --iface refused with a reason"; fi
if "$R" replay "$T/demo.pcap" --iface rl-no-such-if >"$T/out" 2>&1; then fail "unknown interface refused"
elif grep -q "rl-no-such-if" "$T/out"; then pass "unknown interface refused, naming it"
else fail "unknown interface refused, naming it"; fi
if "$R" replay "$T/demo.pcap" --iface lo --rewrite bogus:1=2 >"$T/out" 2>&1; then fail "bad --rewrite refused"
elif grep -q "a rule is mac:OLD=NEW" "$T/out"; then pass "bad --rewrite refused with the rule syntax"
else fail "bad --rewrite refused with the rule syntax"; fi

if [ "$(id -u)" -ne 0 ] || ! ip netns add "$NS1" 2>/dev/null; then
    echo "SKIP replay over veth: needs root and network namespaces"
    echo "replay: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi
ip netns add "$NS2"
ip link add rlv0$$ type veth peer name rlv1$$
ip link set rlv0$$ netns "$NS1"
ip link set rlv1$$ netns "$NS2"
for ns in "$NS1" "$NS2"; do
    ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
done
ip -n "$NS1" link set rlv0$$ up
ip -n "$NS2" link set rlv1$$ up

# replay_check NAME FILE EXPECTED.pcap REPLAY-OPTIONS...: frames tcpdump sees == EXPECTED
replay_check() {
    name=$1 file=$2 want=$3
    shift 3
    n=$("$R" explain -q --json "$want" | wc -l)
    rm -f "$T/cap.pcap" "$T/td.err"
    ip netns exec "$NS2" timeout 20 tcpdump -i rlv1$$ -U -n -w "$T/cap.pcap" -c "$n" \
        'udp dst port 4791' >/dev/null 2>"$T/td.err" &
    tdpid=$!
    i=0
    while ! grep -q "listening on" "$T/td.err" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    ip netns exec "$NS1" timeout 30 "$R" replay "$file" --iface rlv0$$ "$@" >"$T/replay.out" 2>&1
    wait $tdpid
    if python3 "$HERE/samebytes.py" "$want" "$T/cap.pcap" >"$T/cmp.out" 2>&1; then
        pass "$name: $(cat "$T/cmp.out"); $(cut -d: -f2 "$T/replay.out" | cut -d, -f1 | head -1)"
    else
        fail "$name: $(cat "$T/cmp.out" "$T/replay.out" | tr '\n' ' ')"
    fi
}

replay_check "captured pace" "$T/demo.pcap" "$T/demo.pcap"
"$R" gen write-bw --count 20 --size 8192 -o "$T/bw.pcap" 2>/dev/null
replay_check "--topspeed" "$T/bw.pcap" "$T/bw.pcap" --topspeed
replay_check "--pps 20000" "$T/bw.pcap" "$T/bw.pcap" --pps 20000
"$R" rewrite "$T/demo.pcap" "$T/moved.pcap" --rewrite ip:192.168.100.1=10.9.0.1 --rewrite qpn:0x12=0x99 \
    --rewrite psn:+5 2>/dev/null
replay_check "--rewrite equals rocelab rewrite" "$T/demo.pcap" "$T/moved.pcap" \
    --rewrite ip:192.168.100.1=10.9.0.1 --rewrite qpn:0x12=0x99 --rewrite psn:+5
"$R" explain "$T/moved.pcap" >"$T/moved.txt" 2>&1
if grep -q " 0 ICRC failures" "$T/moved.txt" && grep -q "10\.9\.0\.1" "$T/moved.txt" &&
    grep -q "QP=0x000099" "$T/moved.txt"; then
    pass "rewritten frames carry the new IP and QPN and keep a valid ICRC"
else fail "rewritten frames carry the new IP and QPN and keep a valid ICRC: $(tail -3 "$T/moved.txt")"; fi

# A frame stamped before the first (tcpdump -i any does that) goes at once, not after the
# unsigned difference wrapped around to centuries.
editcap -r "$T/demo.pcap" "$T/first.pcap" 1 2>/dev/null
editcap -t 5 "$T/first.pcap" "$T/first-late.pcap" 2>/dev/null
editcap -r "$T/demo.pcap" "$T/rest.pcap" 2-100000 2>/dev/null
mergecap -a -F pcap -w "$T/back.pcap" "$T/first-late.pcap" "$T/rest.pcap" 2>/dev/null
replay_check "frames stamped before the first go at once (--speed 2)" "$T/back.pcap" "$T/back.pcap" --speed 2

echo "replay: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
