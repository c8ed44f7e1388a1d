#!/bin/sh
# rocelab peer against a hostile network (issue 22): in two namespaces made here, joined by a veth
# pair, broken TCP exchanges at every stage and an oversized one, an exchange naming a third
# address, and during a normal transfer a spray of spoofed, wrong-P_Key and random RoCEv2 frames
# with good ICRCs (spray.py, scapy). The server stays up and bounded in memory, the transfer
# completes with its data verified, and tcpdump on the server's veth sees no RoCE frame leave
# toward an address that did not connect. Needs root, /usr/bin/python3 with scapy; ~1 minute.
# Usage: run.sh ROCELAB
set -u
R=${1:?usage: run.sh ROCELAB}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
NA=rl-hostile-a$$
NB=rl-hostile-b$$
VA=hostilea$$
VB=hostileb$$
A=10.81.0.1
B=10.81.0.2
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
cleanup() {
    # whatever still runs in the namespaces (a server, tcpdump, a client), after Ctrl-C too
    for ns in "$NA" "$NB"; do ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null; done
    ip netns del "$NA" 2>/dev/null
    ip netns del "$NB" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --help says what it is, in its last lines: a teaching endpoint, where the rest is written down.
if "$R" peer --help | tail -5 | grep -q "teaching endpoint for a lab network, not a hardened service" &&
   "$R" peer --help | tail -1 | grep -q "docs/peer-trust.md" && [ -f "$D/../../docs/peer-trust.md" ] &&
   "$R" peer --help | grep -q "^      --allow-other-gid"
then pass "--help's last lines: a teaching endpoint, docs/peer-trust.md; --allow-other-gid documented"
else fail "--help: no word on what peer trusts"; fi

if [ "$(id -u)" -ne 0 ] || ! /usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
   ! ip netns add "$NA" 2>/dev/null; then
    echo "SKIP hostile over veth: needs root, network namespaces and /usr/bin/python3 with scapy"
    echo "hostile: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi
ip netns add "$NB"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NA"
ip link set "$VB" netns "$NB"
ip -n "$NA" addr add $A/24 dev "$VA"
ip -n "$NB" addr add $B/24 dev "$VB"
# The third host, a bystander that never connects: another address on A's side of the link, so
# that whatever the server might send it does reach the wire (an address nobody holds would not
# resolve, and tcpdump would see nothing either way).
ip -n "$NA" addr add 10.81.0.99/24 dev "$VA"
for ns in "$NA" "$NB"; do ip -n "$ns" link set lo up; done
ip -n "$NA" link set "$VA" up
ip -n "$NB" link set "$VB" up
# The server's memory is bounded: 512 MiB of address space (one 1 GiB exchange could not fit).
SRV="ip netns exec $NB sh -c 'ulimit -v 524288; exec \"\$0\" \"\$@\"' $R peer --server"

# server_wait OUT: until the server listens (5 s at most). Empty OUT before the server starts: a
# background job's redirection truncates it only when the job runs, and the last server's words
# must not count.
server_wait() {
    i=0
    until grep -q "waiting for a client" "$1" 2>/dev/null || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
}

# broken CASE PATTERN [TIMEOUT]: the server, --timeout 2 (or TIMEOUT), against exchange.py's CASE;
# it must end within 6 s with PATTERN, while the hostile client still holds the connection open.
broken() {
    : >"$T/srv"
    eval "$SRV --timeout ${3:-2}" >"$T/srv" 2>&1 &
    srv=$!
    server_wait "$T/srv"
    t0=$(date +%s)
    ip netns exec "$NA" /usr/bin/python3 "$D/exchange.py" $B 18515 "$1" $A 8 >"$T/ex" 2>&1 &
    ex=$!
    i=0
    while kill -0 $srv 2>/dev/null && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $srv 2>/dev/null; then
        kill $srv; wait $srv 2>/dev/null
        fail "exchange $1: the server still waits after 6 s (--timeout 2)"
    else
        wait $srv
        st=$?
        if [ $st -ne 0 ] && grep -q -- "$2" "$T/srv"; then pass "exchange $1: the server gives up in $(($(date +%s) - t0)) s: $2"
        else fail "exchange $1: exit $st: $(head -c 300 "$T/srv")"; fi
    fi
    kill $ex 2>/dev/null
    wait $ex 2>/dev/null
}
broken silent "sent no whole exchange line within 2 s (--timeout)"
broken half "sent no whole exchange line within 2 s (--timeout)"
broken nodone "sent no whole exchange line within 2 s (--timeout)"
broken oversize "the server's --size caps what a client can make it allocate"
if grep -q "rocelab error: the server says: 1073741824-byte messages asked" "$T/ex"; then pass "oversize: the client is told why"
else fail "oversize: the client was told: $(cat "$T/ex")"; fi
# An exchange naming a third address, then READs forged from it: nothing may go there.
ip netns exec "$NB" timeout 60 tcpdump -i "$VB" --immediate-mode -U -n -w "$T/third.pcap" \
    "src host $B and udp port 4791" >/dev/null 2>"$T/td.err" &
td=$!
i=0
while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
broken othergid "the exchange came from $A but names GID ::ffff:10.81.0.99" 20
sleep 0.3
kill $td 2>/dev/null
wait $td 2>/dev/null
n=$(tcpdump -n -r "$T/third.pcap" "dst host 10.81.0.99" 2>/dev/null | wc -l)
if [ "$n" -eq 0 ]; then pass "an exchange naming a third address: no frame goes there"
else fail "an exchange naming a third address: the server sent it $n frames"; fi

# A silent server: the client gives up after its --timeout, at the exchange.
ip netns exec "$NB" /usr/bin/python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 18516)); s.listen(1); c, _ = s.accept(); time.sleep(10)' &
sl=$!
sleep 0.5
t0=$(date +%s)
ip netns exec "$NA" timeout 20 "$R" peer --client $B --port 18516 --timeout 2 >"$T/cli" 2>&1
st=$?
el=$(($(date +%s) - t0))
kill $sl 2>/dev/null; wait $sl 2>/dev/null
if [ $st -ne 0 ] && [ $el -le 5 ] && grep -q "the server sent no whole exchange line within 2 s" "$T/cli"
then pass "a silent server: the client gives up in $el s (--timeout 2)"
else fail "a silent server: exit $st after $el s: $(head -c 300 "$T/cli")"; fi

# connect() to an address whose SYNs vanish (routed through B, which does not forward): --timeout.
ip -n "$NA" route add 10.81.5.0/24 via $B
t0=$(date +%s)
ip netns exec "$NA" timeout 10 "$R" peer --client 10.81.5.5 --timeout 2 >"$T/cli" 2>&1
st=$?
el=$(($(date +%s) - t0))
if [ $st -ne 0 ] && [ $el -le 5 ] && grep -q "no answer from 10.81.5.5 port 18515 within 2 s (--timeout)" "$T/cli"
then pass "connect to a host that never answers: the client gives up in $el s (--timeout 2)"
else fail "connect to a host that never answers: exit $st after $el s: $(head -c 300 "$T/cli")"; fi

# A reply whose retries run out ends the server at once with the reason, not after --timeout. With
# --compat pingpong the server has no TCP connection to watch during the test: only its CQ tells.
>"$T/srv"
eval "$SRV --compat pingpong --iters 3 --timeout 20 --retry-cnt 1 --tx-loss 0.999" >"$T/srv" 2>&1 &
srv=$!
server_wait "$T/srv"
t0=$(date +%s)
ip netns exec "$NA" timeout 30 "$R" peer --client $B --compat pingpong --iters 3 --timeout 4 >"$T/cli" 2>&1
wait $srv
st=$?
el=$(($(date +%s) - t0))
if [ $st -ne 0 ] && [ $el -le 8 ] && grep -q "failed: transport retry counter exceeded" "$T/srv" &&
   ! grep -q "never finished" "$T/srv"
then pass "retries used up: the server stops in $el s with 'transport retry counter exceeded'"
else fail "retries used up: exit $st after $el s: $(head -c 300 "$T/srv") / client: $(head -c 300 "$T/cli")"; fi

# The spray during a normal transfer. tcpdump on the server's side sees what it sends.
rm -f "$T/td.err"
ip netns exec "$NB" timeout 120 tcpdump -i "$VB" -s 64 --immediate-mode -U -n -w "$T/out.pcap" \
    "src host $B and udp port 4791" >/dev/null 2>"$T/td.err" &
td=$!
i=0
while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
>"$T/srv"
eval "$SRV --timeout 60" >"$T/srv" 2>&1 &
srv=$!
server_wait "$T/srv"
# The transfer runs for 10 s (-D), the spray (its frames made first: scapy is slow) inside them.
ip netns exec "$NA" timeout 90 "$R" peer --client $B --op read --size 65536 -D 10 --window 4 --timeout 60 \
    >"$T/cli" 2>&1 &
cli=$!
sleep 0.3
s0=$(date +%s)
ip netns exec "$NA" /usr/bin/python3 "$D/spray.py" $B $A 10.81.0.99 0x11 1500 7 >"$T/spray" 2>&1
sp=$?
[ $(($(date +%s) - s0)) -lt 10 ] || fail "the spray took longer than the transfer: $(($(date +%s) - s0)) s"
wait $cli
crc=$?
wait $srv
src=$?
sleep 0.3
kill $td 2>/dev/null
wait $td 2>/dev/null
[ $sp -eq 0 ] && pass "$(cat "$T/spray")" || fail "spray: $(tail -c 300 "$T/spray")"
# The client compares what it READ with the pattern the server holds; the server says the test was whole.
if [ $crc -eq 0 ] && [ $src -eq 0 ]
then pass "a READ transfer under the spray completes, its data verified (both ends exit 0)"
else fail "transfer under the spray: client $crc, server $src: $(tail -c 300 "$T/cli") / $(tail -c 300 "$T/srv")"; fi
# The server counted what it dropped, as rxe's check_addr and check_keys drop it.
da=$(sed -n 's/^ dropped unread: \([0-9]*\) packets from an address other than the client.s, \([0-9]*\) of another partition.*/\1 \2/p' "$T/srv")
if [ -n "$da" ] && [ "${da% *}" -ge 100 ] && [ "${da#* }" -ge 100 ]
then pass "the server dropped and counted ${da% *} packets from other addresses, ${da#* } of another partition"
else fail "the server's count of dropped packets: '$da': $(grep -i dropped "$T/srv")"; fi
# The server's R_Key and buffer address, as the client got them: drawn at random, not rxe's first
# index with a fixed key byte (0x0001005a) at a fixed address.
rk=$(sed -n 's/.*remote address: .* RKey \(0x[0-9a-f]*\) VAddr \(0x[0-9a-f]*\).*/\1 \2/p' "$T/cli")
lk=$(sed -n 's/.*local address: .* RKey \(0x[0-9a-f]*\) VAddr \(0x[0-9a-f]*\).*/\1 \2/p' "$T/cli")
case "$rk $lk" in
*0x0001005a*|*0x0000000010000000*|" ") fail "R_Keys and addresses: the server's $rk, the client's $lk" ;;
*) if [ "$rk" != "$lk" ]; then pass "random R_Keys and addresses: the server's $rk, the client's $lk"
   else fail "R_Keys and addresses: the same at both ends, $rk"; fi ;;
esac
other=$(tcpdump -n -r "$T/out.pcap" "not dst host $A" 2>/dev/null | wc -l)
all=$(tcpdump -n -r "$T/out.pcap" 2>/dev/null | wc -l)
if [ "$all" -gt 0 ] && [ "$other" -eq 0 ]; then pass "the server sent $all RoCE frames, none to an address that did not connect"
else fail "the server sent $other of $all RoCE frames elsewhere than $A"; fi

echo "hostile: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
