#!/bin/sh
# rocelab peer against rocelab peer in two network namespaces made here,
# joined by a veth pair: every op, with and without --loss, data verified at
# both ends; tcpdump on the veth sees only RoCEv2 with good ICRCs (checked by
# rocelab explain) and no ICMP. Needs root (CI runs as root); the bad-use
# checks run without it.
# Usage: run.sh ROCELAB
set -u
R=${1:?usage: run.sh ROCELAB}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
T=$(mktemp -d)
chmod 755 "$T"
NA=rlpa$$
NB=rlpb$$
VA=rlpa$$
VB=rlpb$$
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
cleanup() {
    ip netns del "$NA" 2>/dev/null
    ip netns del "$NB" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

# refused CMD... -- PATTERN: exits non-zero and says PATTERN
refused() {
    name=$1
    pat=$2
    shift 2
    if "$R" peer "$@" >"$T/out" 2>&1; then fail "$name (exit 0)"
    elif grep -q -- "$pat" "$T/out"; then pass "$name"
    else fail "$name: $(head -c 300 "$T/out")"; fi
}
refused "neither --server nor --client" "say --server or --client"
refused "both --server and --client" "say --server or --client" --server --client 10.0.0.1
refused "unknown --op" "unknown --op 'bogus'" --client 10.0.0.1 --op bogus
refused "--mtu not an IB MTU" "--mtu wants 256" --client 10.0.0.1 --mtu 1500
refused "--loss out of range" "--loss wants a fraction" --client 10.0.0.1 --loss 1.5
refused "atomics with --size 64" "atomics work on 8 bytes" --client 10.0.0.1 --op fetch-add --size 64
refused "--transport ud not yet" "only rc" --client 10.0.0.1 --transport ud
refused "not an address" "not an IPv4 address" --client nowhere.invalid
refused "nobody listening" "nobody listens at 127.0.0.1 port 1" --client 127.0.0.1 --port 1
if "$R" peer --help | grep -q "usage: rocelab peer --server"; then pass "--help"; else fail "--help"; fi

if [ "$(id -u)" -ne 0 ] || ! ip netns add "$NA" 2>/dev/null; then
    echo "SKIP peer over veth: needs root and network namespaces"
    echo "peer: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi
ip netns add "$NB"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NA"
ip link set "$VB" netns "$NB"
ip -n "$NA" addr add 10.79.0.1/24 dev "$VA"
ip -n "$NB" addr add 10.79.0.2/24 dev "$VB"
for ns in "$NA" "$NB"; do
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
done
ip -n "$NA" link set "$VA" up
ip -n "$NB" link set "$VB" up

# pair NAME CLIENT-OPTIONS...: server in B, client in A, tcpdump in A; all must agree
pair() {
    name=$1
    shift
    rm -f "$T/cap.pcap" "$T/td.err"
    ip netns exec "$NA" timeout 60 tcpdump -i "$VA" --immediate-mode -U -n -w "$T/cap.pcap" 'udp port 4791 or icmp' \
        >/dev/null 2>"$T/td.err" &
    td=$!
    i=0
    while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    ip netns exec "$NB" timeout 60 "$R" peer --server --timeout 40 $SERVER_OPTS >"$T/srv" 2>&1 &
    srv=$!
    sleep 0.3
    ip netns exec "$NA" timeout 60 "$R" peer --client 10.79.0.2 --timeout 40 "$@" >"$T/cli" 2>&1
    crc=$?
    wait $srv
    src=$?
    sleep 0.3
    kill "$td" 2>/dev/null
    wait "$td" 2>/dev/null
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$name: client exit $crc, server exit $src: $(tail -c 300 "$T/cli") / $(tail -c 300 "$T/srv")"
        return
    fi
    if ! grep -q "data verified" "$T/srv"; then fail "$name: the server did not verify the data"; return; fi
    sum=$("$R" explain "$T/cap.pcap" 2>&1 | grep -- '^--- ')
    roce=$(echo "$sum" | sed -n 's/^--- \([0-9]*\) frames: \([0-9]*\) RoCE.*/\2/p')
    total=$(echo "$sum" | sed -n 's/^--- \([0-9]*\) frames.*/\1/p')
    if [ -z "$roce" ] || [ "$roce" -eq 0 ] || [ "$roce" != "$total" ]; then
        fail "$name: capture not all RoCE: $sum"
    elif ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures, 0 unknown opcodes"; then
        fail "$name: capture has bad frames: $sum"
    elif [ "$(tcpdump -n -r "$T/cap.pcap" icmp 2>/dev/null | wc -l)" -ne 0 ]; then
        fail "$name: ICMP on the wire"
    else
        pass "$name: $roce RoCEv2 frames, every ICRC ok, no ICMP, data verified"
    fi
}

SERVER_OPTS=
pair "write 64 KiB" --op write --iters 300
pair "read 64 KiB" --op read --iters 300
pair "send 64 KiB" --op send --iters 300
pair "send 1 byte" --op send --size 1 --iters 500
pair "pingpong 2 bytes" --op pingpong --iters 300
if grep -q "t_typical\[usec\]" "$T/cli"; then pass "pingpong prints perftest's latency table"; else fail "latency table"; fi
pair "fetch-add" --op fetch-add --iters 500
pair "cmp-swap" --op cmp-swap --iters 500
pair "write json" --op write --iters 50 --json
if grep -q '"bw_avg_mbps":' "$T/cli"; then pass "--json has the bandwidth"; else fail "--json: $(cat "$T/cli")"; fi

SERVER_OPTS="--loss 0.02 --seed 3"
pair "write, 2% loss at both ends" --op write --iters 60 --loss 0.02 --seed 4
if grep -q '0 dropped on purpose' "$T/cli"; then fail "--loss dropped nothing at the client"; else pass "--loss dropped frames"; fi
pair "read, 2% loss at both ends" --op read --iters 60 --loss 0.02 --seed 5
pair "send, 2% loss at both ends" --op send --iters 60 --loss 0.02 --seed 6
pair "fetch-add, 2% loss at both ends (a resent atomic runs once)" --op fetch-add --iters 200 --loss 0.02 --seed 8
pair "cmp-swap, 2% loss at both ends" --op cmp-swap --iters 200 --loss 0.02 --seed 9
pair "pingpong, 2% loss at both ends" --op pingpong --iters 200 --loss 0.02 --seed 7
SERVER_OPTS=

# The path MTU follows the interface: 4096 does not fit MTU 1500, and the error says how to fix it.
ip netns exec "$NB" timeout 10 "$R" peer --server --timeout 5 >/dev/null 2>&1 &
srv=$!
sleep 0.3
if ip netns exec "$NA" timeout 10 "$R" peer --client 10.79.0.2 --mtu 4096 >"$T/out" 2>&1; then
    fail "--mtu 4096 on a 1500-byte veth refused"
elif grep -q "ip link set dev $VA mtu 9000" "$T/out"; then pass "--mtu 4096 on MTU 1500 refused, naming the fix"
else fail "--mtu 4096 refused with the fix: $(cat "$T/out")"; fi
kill $srv 2>/dev/null
wait $srv 2>/dev/null
ip -n "$NA" link set "$VA" mtu 9000
ip -n "$NB" link set "$VB" mtu 9000
pair "write, path MTU 4096 on MTU 9000" --op write --mtu 4096 --iters 300
if grep -q "Mtu             : 4096" "$T/cli"; then pass "MTU 4096 in the header"; else fail "MTU 4096 header"; fi

echo "peer: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
