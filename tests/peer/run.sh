#!/bin/sh
# rocelab peer against rocelab peer in two network namespaces made here,
# joined by a veth pair: every op, with and without --loss, data verified at
# both ends; tcpdump on the veth sees only RoCEv2 with good ICRCs (checked by
# rocelab explain) and no ICMP. UC: no ACK on the wire, and what the server
# says arrived whole is what tshark's fields say (uc_loss.py). Needs root (CI runs as root); the bad-use
# checks run without it.
# Usage: run.sh ROCELAB
set -u
. "$(dirname "$0")/../lib/tshark.sh"    # run_tshark
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
trap cleanup EXIT
trap 'exit 130' INT TERM

# refused CMD... -- PATTERN: exits non-zero and says PATTERN
refused() {
    name=$1
    pat=$2
    shift 2
    if ${IN:-} "$R" peer "$@" >"$T/out" 2>&1; then fail "$name (exit 0)"
    elif grep -q -- "$pat" "$T/out"; then pass "$name"
    else fail "$name: $(head -c 300 "$T/out")"; fi
}
refused "--server and an address" "--server waits for a client, but 10.0.0.1 is a server's address" --server 10.0.0.1
refused "both --server and --client" "--server and --client together: say one" --server --client 10.0.0.1
refused "unknown --op" "unknown --op 'bogus'" --client 10.0.0.1 --op bogus
refused "--mtu not an IB MTU" "--mtu wants 256" --client 10.0.0.1 --mtu 1500
refused "--loss out of range" "--loss wants a fraction" --client 10.0.0.1 --loss 1.5
refused "atomics with --size 64" "atomics work on 8 bytes" --client 10.0.0.1 --op fetch-add --size 64
refused "--transport bogus" "--transport wants rc, ud or uc" --client 10.0.0.1 --transport bogus
# UC: no responses at all, so no READ and no atomics (IBA 9.8.3); nor rdma_cm, which has no UC port space.
for a in "--op read" "--op fetch-add" "--op cmp-swap" "--cm --op send"; do
    # shellcheck disable=SC2086  # the options, one word each
    "$R" peer --client 10.0.0.1 -t uc $a >"$T/out" 2>&1
    st=$?
    if [ $st -eq 2 ] && grep -q -- "--transport uc carries SEND and RDMA WRITE only\|--cm connects RC QPs .* not UC" "$T/out"
    then pass "UC refuses $a (exit 2)"
    else fail "UC with $a: exit $st, $(head -c 300 "$T/out")"; fi
done
refused "UD carries SEND only" "carries SEND only" --client 10.0.0.1 --transport ud --op write
refused "UD message larger than any MTU" "a UD message is one packet" --client 10.0.0.1 -t ud --size 5000
refused "--compat with another tool" "--compat knows these tools: pingpong" --client 10.0.0.1 --compat perftest
refused "--compat pingpong with --op write" "no --op write" --client 10.0.0.1 --compat pingpong --op write
refused "--gid-index not a number" "--gid-index wants 0..255" --client 10.0.0.1 --gid-index one
refused "--interface too long" "--interface wants an interface name" --client 10.0.0.1 --interface abcdefghijklmnopq
refused "not an address" "not an IPv4 or IPv6 address" --client nowhere.invalid
refused "--ipv6 with an IPv4 address" "--ipv6, but '10.0.0.1' is an IPv4 address" --client 10.0.0.1 --ipv6
refused "link-local IPv6" "a link-local one names no interface. RoCE itself may run over the link-local GIDs: -g 0" --client fe80::1
refused "nobody listening" "nobody listens at 127.0.0.1 port 1" --client 127.0.0.1 --port 1
if "$R" peer --help | grep -q "usage: rocelab peer \[options\]  *server (no address)"; then pass "--help"; else fail "--help"; fi

# --compat rping: rping's own flags (rdma-core librdmacm/examples/rping.c), refused as clearly as ours.
refused "rping: neither -s nor -c" "say -s (server) or -c (client)" --compat rping -C 1
refused "rping: -s and -c together" "-s and -c together" --compat rping -s -c -a 10.0.0.1
refused "rping: client without -a" "needs -a ADDR" --compat rping -c -C 1
refused "rping: -S below rping's RPING_MIN_BUFSIZE" "-S wants a ping data size of 23 to 65535" --compat rping -c -a 10.0.0.1 -S 22
refused "rping: -S at rping's RPING_BUFSIZE" "-S wants a ping data size of 23 to 65535" --compat rping -c -a 10.0.0.1 -S 65536
refused "rping: -C negative" "-C wants 0..2147483647" --compat rping -c -a 10.0.0.1 -C -1
refused "rping: -a not an address" "-a wants an IPv4 or IPv6 address" --compat rping -c -a nowhere
refused "rping: -p out of range" "-p wants 1..65535" --compat rping -c -a 10.0.0.1 -p 70000
refused "rping: -P not supported" "persistent server) is not supported" --compat rping -s -P
refused "rping: -q not supported" "self-created QP) is not supported" --compat rping -c -a 10.0.0.1 -q
refused "rping: an option rping does not have" "invalid option" --compat rping -c -a 10.0.0.1 -x
refused "rping: --op is not rping's" "unrecognized option" --compat rping -c -a 10.0.0.1 --op write
refused "rping: --corrupt is the server's" "--corrupt is the server's" --compat rping -c -a 10.0.0.1 --corrupt
refused "rping: -I on the server" "-I is the client's source address" --compat rping -s -I 10.0.0.1
refused "--cm with --compat pingpong" "say one of them" --client 10.0.0.1 --cm --compat pingpong
refused "--srq without --compat pingpong" "use it with --compat pingpong" --client 10.0.0.1 --srq 4
refused "--srq with -t ud" "without -t ud" --client 10.0.0.1 --compat pingpong -t ud --srq 4
refused "--srq 0" "--srq" --client 10.0.0.1 --compat pingpong --srq 0
# --compat ucmatose / udaddy: the tools' own flags (rdma-core librdmacm/examples/cmatose.c, udaddy.c).
refused "ucmatose: -c 0" "-c wants 1..16" --compat ucmatose -c 0
refused "ucmatose: -c above 16" "-c wants 1..16" --compat ucmatose -s 10.0.0.1 -c 17
refused "ucmatose: -s not an address" "-s wants an IPv4 or IPv6 address" --compat ucmatose -s nowhere
refused "ucmatose: -b and -s of two families" "-b fd00::1 and -s 10.0.0.1 are of different address families" \
    --compat ucmatose -s 10.0.0.1 -b fd00::1
refused "ucmatose: -P ib" "-P ib: only tcp is supported" --compat ucmatose -P ib
refused "ucmatose: -t not supported" "-t (type of service) is not supported" --compat ucmatose -t 4
refused "ucmatose: -a not supported" "-a (ACK timeout) is not supported" --compat ucmatose -a 14
refused "udaddy: -p is the port space" "udaddy's -p is the port space: only 0x111" --compat udaddy -p 7174
refused "udaddy: no -m" "invalid option" --compat udaddy -m
refused "udaddy: -S above any MTU" "a UD message is one packet" --compat udaddy -s 10.0.0.1 -S 5000
refused "--compat udaddy written with --comp" "write it as '--compat udaddy'" --comp udaddy -s 10.0.0.1
# --compat ib_*: perftest's own flags (linux-rdma/perftest perftest_parameters.c), refused as clearly.
refused "perftest: UC for ib_atomic_bw" "-c UC has no RDMA READ and no atomics" --compat ib_atomic_bw -c UC
refused "perftest: UD for ib_write_bw" "-c UD carries SEND only" --compat ib_write_bw -c UD
refused "perftest: ib_atomic_bw -s 16" "ib_atomic_bw works on 8 bytes" --compat ib_atomic_bw -s 16
refused "perftest: -n below perftest's MIN_ITER" "-n wants 5..100000000" --compat ib_send_lat -n 4
refused "perftest: ib_atomic_bw -a" "ib_atomic_bw works on 8 bytes: no -a" --compat ib_atomic_bw -a
refused "perftest: -R with UC" "UC is not supported in librdmacm" --compat ib_send_bw -R -c UC
refused "perftest: -D with -a" "-D and -a: perftest runs one or the other" --compat ib_write_bw -D 2 -a
refused "perftest: two addresses" "unexpected argument '10.0.0.2'" --compat ib_send_bw 10.0.0.1 10.0.0.2
refused "perftest: the server not an address" "the server address wants an IPv4 or IPv6 address" --compat ib_read_bw nowhere
refused "perftest: -m not an MTU" "-m wants 256, 512, 1024, 2048 or 4096" --compat ib_read_lat -m 1500
refused "perftest: ib_send_lat -q 2" "Multiple QPs only available on bw tests" --compat ib_send_lat -q 2
refused "perftest: --op is not perftest's" "unrecognized option" --compat ib_send_bw --op write
refused "perftest: nobody listening" "nobody listens at 127.0.0.1 port 1: start the server there first (perftest's" \
    --compat ib_send_bw -p 1 127.0.0.1
if "$R" peer --help | grep -q "rocelab peer --compat ib_send_bw \[-d IF\] \[-x GID\] \[-s size\] \[-n iters\] \[-c RC|UC|UD\] \[-F\] SERVER" &&
   "$R" peer --help | grep -q "the 108-byte key message"
then pass "--help documents --compat ib_send_bw and the other perftest tools"
else fail "--help for --compat ib_*"; fi
if "$R" peer --help | grep -q "rocelab peer --compat ucmatose -s addr \[-b addr\] \[-c conns\]" &&
   "$R" peer --help | grep -q "rocelab peer --compat udaddy \[-s addr\]"
then pass "--help documents --compat ucmatose and udaddy"
else fail "--help for --compat ucmatose and udaddy"; fi
if "$R" peer --help | grep -q "rocelab peer --compat rping -c \[-vVd\]" &&
   "$R" peer --help | grep -q "through rdma_cm on QP1 (REQ, REP, RTU; DREQ, DREP)" && ! "$R" peer --help | grep -q TEMPORARY &&
   "$R" peer --help | grep -q "^  -R, --cm  *connect through the CM on QP1"
then pass "--help documents --compat rping and --cm, both through rdma_cm on QP1"
else fail "--help for --compat rping and --cm"; fi

# What rping -v prints, built from rping.c's own recipe (not from our output): ping N's start buffer
# is "rdma-ping-N: " then the letters 65..122 from 65 + N % 58 on, round again; its last byte is the
# NUL, so a line holds SIZE - 1 characters of it. rping_expected PREFIX COUNT SIZE.
rping_expected() {
    awk -v pre="$1" -v n="$2" -v size="$3" 'BEGIN {
        for (p = 0; p < n; p++) {
            s = sprintf("rdma-ping-%d: ", p); c = 65 + p % 58
            while (length(s) < size - 1) { s = s sprintf("%c", c); c = c == 122 ? 65 : c + 1 }
            print pre s
        }
    }'
}
FX=$(dirname "$0")/../fixtures/rxe
# The recipe checked against what the real rping printed (kernel Soft-RoCE at both ends, -C 4 -S 64 -v).
if [ "$(grep '^ping data: ' "$FX/rping.txt")" = "$(rping_expected "ping data: " 4 64)" ] &&
   [ "$(grep '^server ping data: ' "$FX/rping.txt")" = "$(rping_expected "server ping data: " 4 64)" ]
then pass "rping's -v text as built here is what the real rping printed (both sides)"
else fail "rping -v recipe differs from the real rping's output in $FX/rping.txt"; fi

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
ip -n "$NA" addr add fd79::1/64 dev "$VA" nodad
ip -n "$NB" addr add fd79::2/64 dev "$VB" nodad
for ns in "$NA" "$NB"; do
    ip -n "$ns" link set lo up
done
ip -n "$NA" link set "$VA" up
ip -n "$NB" link set "$VB" up

# pair NAME CLIENT-OPTIONS...: server in B, client in A, tcpdump in A; all must agree.
# The capture keeps RoCE and ICMP errors (ICMPv6 types below 128), not neighbour discovery.
# td_opts: tcpdump's ring options. In --immediate-mode libpcap's ring has one slot per frame of the
# snapshot length (262144 by default on a veth, which has offloads): -B 16384 then held 64 frames and
# CI's loaded machine dropped hundreds of a burst. A slot of the link's largest frame (MTU + Ethernet
# and VLAN headers; nothing here sends GSO) in a 64 MiB ring holds thousands. SNAPLEN: a smaller -s.
td_opts() {
    echo "-s ${SNAPLEN:-$(( $(ip netns exec "$NA" cat /sys/class/net/"$VA"/mtu) + 18 ))} -B 65536"
}
ADDR=10.79.0.2
pair() {
    name=$1
    shift
    pair_cmd "$name" "--server $SERVER_OPTS" --client "$ADDR" "$@"
}
# pair_run "SERVER-ARGS" CLIENT-ARGS...: run both ends with tcpdump in A, their exit statuses in
# crc and src, outputs in $T/cli and $T/srv, the capture in $T/cap.pcap; nothing checked.
pair_run() {
    srvargs=$1
    shift
    rm -f "$T/cap.pcap" "$T/td.err"
    # shellcheck disable=SC2046  # td_opts: several words
    ip netns exec "$NA" timeout 60 tcpdump -i "$VA" --immediate-mode $(td_opts) -U -n -w "$T/cap.pcap" \
        'udp port 4791 or icmp or (icmp6 and ip6[40] < 128)' >/dev/null 2>"$T/td.err" &
    td=$!
    i=0
    while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    ip netns exec "$NB" timeout 60 "$R" peer --timeout 40 $srvargs >"$T/srv" 2>&1 &
    srv=$!
    sleep 0.3
    ip netns exec "$NA" timeout 60 "$R" peer --timeout 40 "$@" >"$T/cli" 2>&1
    crc=$?
    wait $srv
    src=$?
    sleep 0.3
    kill "$td" 2>/dev/null
    wait "$td" 2>/dev/null
}
# pair_cmd NAME "SERVER-ARGS" CLIENT-ARGS...: pair's checks with the whole command lines given.
pair_cmd() {
    name=$1
    shift
    pair_run "$@"
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$name: client exit $crc, server exit $src: $(tail -c 300 "$T/cli") / $(tail -c 300 "$T/srv")"
        return
    fi
    if ! grep -q "data verified" "$T/srv"; then fail "$name: the server did not verify the data"; return; fi
    sum=$("$R" explain "$T/cap.pcap" 2>&1 | grep -- '^--- ')
    roce=$(echo "$sum" | sed -n 's/^--- \([0-9]*\) frames: \([0-9]*\) RoCE.*/\2/p')
    total=$(echo "$sum" | sed -n 's/^--- \([0-9]*\) frames.*/\1/p')
    if [ "$(tcpdump -n -r "$T/cap.pcap" 'icmp or icmp6' 2>/dev/null | wc -l)" -ne 0 ]; then
        fail "$name: ICMP on the wire: $(tcpdump -n -r "$T/cap.pcap" 'icmp or icmp6' 2>/dev/null | head -n 2 | tr '\n' ' ')"
    elif [ -z "$roce" ] || [ "$roce" -eq 0 ] || [ "$roce" != "$total" ]; then
        fail "$name: capture not all RoCE: $sum; the others: $(tcpdump -n -r "$T/cap.pcap" 'not udp port 4791' 2>/dev/null | head -n 3 | tr '\n' ' ')"
    elif ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures, 0 unknown opcodes"; then
        fail "$name: capture has bad frames: $sum"
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
# WRITE with immediate (IBV_WR_RDMA_WRITE_WITH_IMM): by tshark, each message's last packet is a WRITE
# Last (or Only) with Immediate holding the message's number from 1, and the server's completions are
# IBV_WC_RECV_RDMA_WITH_IMM with the WRITE's length and that immediate.
SERVER_OPTS=--show-wc
pair "write-imm 3000 bytes" --op write-imm --size 3000 --iters 5
imm=$(run_tshark -r - -Y 'infiniband.bth.opcode == 9 || infiniband.bth.opcode == 11' -T fields -E occurrence=f -e infiniband.immdt \
    <"$T/cap.pcap" 2>/dev/null | tr '\n' ' ')
ops=$(run_tshark -r - -Y 'ip.src == 10.79.0.1' -T fields -e infiniband.bth.opcode <"$T/cap.pcap" 2>/dev/null | sort -u | tr '\n' ' ')
wcs=$(grep -c "opcode IBV_WC_RECV_RDMA_WITH_IMM, qp 0x[0-9a-f]*, byte_len 3000, imm_data 0x0000000[1-5]$" "$T/srv")
[ "$imm" = "00000001 00000002 00000003 00000004 00000005 " ] && [ "$ops" = "6 7 9 " ] && [ "$wcs" -eq 5 ] &&
    pass "write-imm: tshark reads WRITE First/Middle/Last with Immediate, immediates 1..5; the server's 5 completions say so" ||
    fail "write-imm: immediates '$imm', opcodes '$ops', $wcs completions: $(grep completion "$T/srv" | head -n 2)"
pair "write-imm 1 KiB, one packet each" --op write-imm --size 1024 --iters 3
ops=$(run_tshark -r - -Y 'ip.src == 10.79.0.1' -T fields -e infiniband.bth.opcode <"$T/cap.pcap" 2>/dev/null | sort -u | tr '\n' ' ')
[ "$ops" = "11 " ] && pass "write-imm 1 KiB: RDMA WRITE Only with Immediate (11), by tshark" || fail "write-imm 1 KiB: opcodes '$ops'"
SERVER_OPTS="--no-recv --timeout 3"
pair_run "--server $SERVER_OPTS" --client "$ADDR" --op write-imm --size 1024 --iters 1 --rnr-retry 1
rnr=$(run_tshark -r - -Y 'infiniband.aeth.syndrome >= 0x20 && infiniband.aeth.syndrome < 0x40' -T fields -e frame.number \
    <"$T/cap.pcap" 2>/dev/null | wc -l)
[ "$crc" -ne 0 ] && [ "$rnr" -ge 1 ] && grep -q "IBV_WC_RNR_RETRY_EXC_ERR" "$T/cli" &&
    pass "write-imm to a server with no receive posted: $rnr RNR NAKs by tshark, IBV_WC_RNR_RETRY_EXC_ERR (it needs a receive)" ||
    fail "write-imm with no receive: client exit $crc, $rnr RNR NAKs: $(tail -c 300 "$T/cli")"
SERVER_OPTS=
# --drop-request 3: the server loses the third request packet that reaches it, so by tshark its PSN
# sequence error NAK names the third PSN the client sent (IBA 9.7.5.2.1), and go-back-N delivers all.
SERVER_OPTS="--drop-request 3"
pair "write, the server loses its 3rd request packet (--drop-request 3)" --op write --size 1024 --iters 6 --window 4
first=$(run_tshark -r - -Y 'ip.src == 10.79.0.1 && infiniband' -T fields -e infiniband.bth.psn <"$T/cap.pcap" 2>/dev/null | head -n 1)
nak=$(run_tshark -r - -Y 'infiniband.aeth.syndrome == 0x60' -T fields -e infiniband.bth.psn <"$T/cap.pcap" 2>/dev/null | head -n 1)
[ -n "$first" ] && [ -n "$nak" ] && [ $((nak - first)) -eq 2 ] &&
    pass "--drop-request 3: tshark reads the NAK on the third PSN sent ($nak, the first $first)" ||
    fail "--drop-request 3: first PSN '$first', NAK PSN '$nak'"
SERVER_OPTS=

# --qpn: the numbers both ends chose, as Wireshark's own dissector reads them off the wire.
SERVER_OPTS="--qpn 0x345"
pair "send with --qpn at both ends" --op send --iters 5 --qpn 0x1234
q=$(run_tshark -r - -Y infiniband -T fields -e ip.src -e infiniband.bth.destqp <"$T/cap.pcap" 2>/dev/null | sort -u | tr '\t\n' ': ')
[ "$q" = "10.79.0.1:0x000345 10.79.0.2:0x001234 " ] && pass "--qpn: requests go to QP 0x345, ACKs to QP 0x1234" ||
    fail "--qpn: tshark reads '$q'"

SERVER_OPTS="--loss 0.02 --seed 3"
pair "write, 2% loss at both ends" --op write --iters 60 --loss 0.02 --seed 4
if grep -q '0 dropped on purpose' "$T/cli"; then fail "--loss dropped nothing at the client"; else pass "--loss dropped frames"; fi
pair "read, 2% loss at both ends" --op read --iters 60 --loss 0.02 --seed 5
pair "send, 2% loss at both ends" --op send --iters 60 --loss 0.02 --seed 6
pair "fetch-add, 2% loss at both ends (a resent atomic runs once)" --op fetch-add --iters 200 --loss 0.02 --seed 8
pair "cmp-swap, 2% loss at both ends" --op cmp-swap --iters 200 --loss 0.02 --seed 9
pair "pingpong, 2% loss at both ends" --op pingpong --iters 200 --loss 0.02 --seed 7
SERVER_OPTS=

# UD: SEND only, one packet per message, a GRH area in every receive buffer, nothing resent.
SERVER_OPTS="-t ud"
pair "UD send 1 KiB" -t ud --op send --iters 500
if grep -q "delivered 500 of 500" "$T/cli"; then pass "UD without --loss delivers every message"
else fail "UD delivery: $(grep delivered "$T/cli")"; fi
pair "UD send 1 byte" -t ud --op send --size 1 --iters 300
pair "UD pingpong" -t ud --op pingpong --iters 300
if grep -q "0 of 300 rounds lost" "$T/cli"; then pass "UD pingpong without --loss loses nothing"
else fail "UD pingpong rounds: $(grep lost "$T/cli")"; fi
pair "UD json" -t ud --op send --iters 20 --json
if grep -q '"transport":"ud"' "$T/cli" && grep -q '"delivered":20' "$T/cli"; then pass "UD --json"
else fail "UD --json: $(cat "$T/cli")"; fi
SERVER_OPTS="-t ud --loss 0.05 --seed 3"
pair "UD send, 5% loss at the server" -t ud --op send --iters 300
if grep -q "delivered 300 of 300" "$T/cli"; then fail "UD --loss lost nothing"
elif grep -q "delivered [0-9]* of 300" "$T/cli"; then pass "UD loss stays lost: $(grep -o 'delivered [0-9]* of 300' "$T/cli")"
else fail "UD loss: $(tail -3 "$T/cli")"; fi
pair "UD pingpong, 5% loss at both ends" -t ud --op pingpong --iters 200 --loss 0.05 --seed 4
if grep -q "^ [1-9][0-9]* of 200 rounds lost" "$T/cli"; then
    pass "UD pingpong counts lost rounds: $(grep -o '[0-9]* of 200 rounds lost' "$T/cli")"
else fail "UD pingpong --loss: no lost round counted: $(grep 'rounds lost' "$T/cli")"; fi
SERVER_OPTS="-t rc"
refused_pair() {
    ip netns exec "$NB" timeout 10 "$R" peer --server --timeout 5 $SERVER_OPTS >/dev/null 2>&1 &
    srv=$!
    sleep 0.3
    IN="ip netns exec $NA" refused "$@"
    kill $srv 2>/dev/null
    wait $srv 2>/dev/null
}
refused_pair "UD client, RC server" "give both the same --transport" --client 10.79.0.2 -t ud --iters 5 --timeout 5
refused_pair "UC client, RC server" "give both the same --transport" --client 10.79.0.2 -t uc --iters 5 --timeout 5

# UC: SEND and WRITE segmented as RC's, but never acknowledged and never resent (IBA 9.8.3).
# uc_quiet NAME CLIENT-IP [pingpong]: by tshark, every frame carries a UC opcode (transport 001,
# 0x20..0x3f): no ACK, no NAK; and but in a pingpong, every frame was sent by the client.
uc_quiet() {
    q=$(run_tshark -r - -Y infiniband -T fields -e ip.src -e infiniband.bth.opcode <"$T/cap.pcap" 2>/dev/null |
        awk -v c="$2" -v pp="${3:-}" '{ n++ } $1 != c && pp == "" { srv++ } $2 < 32 || $2 > 63 { other++ }
                                      END { printf "%d %d %d", n, srv, other }')
    case $q in
        "0 "*) fail "$1: tshark read no RoCE frames" ;;
        *" 0 0") pass "$1: by tshark, ${q%% *} frames, every one a UC request${3:+ (both ways)}, no ACK or NAK" ;;
        *) fail "$1: by tshark (frames, from the server, not UC): $q" ;;
    esac
}
# Nothing paces a UC sender: the bursts here fit the receiver's socket buffer (4 MiB) even on a busy machine.
SERVER_OPTS="-t uc"
pair "UC write 16 KiB" -t uc --op write --size 16384 --iters 100
if grep -q "delivered 100 of 100" "$T/cli"; then pass "UC write without --loss: every message arrived"
else fail "UC write delivery: $(grep delivered "$T/cli")"; fi
uc_quiet "UC write" 10.79.0.1
pair "UC send 3000 bytes (3 packets each)" -t uc --op send --size 3000 --iters 300
uc_quiet "UC send" 10.79.0.1
pair "UC pingpong" -t uc --op pingpong --iters 200
if grep -q "0 of 200 rounds lost (UC" "$T/cli"; then pass "UC pingpong without --loss loses nothing"
else fail "UC pingpong rounds: $(grep lost "$T/cli")"; fi
pair "UC json" -t uc --op send --iters 20 --json
if grep -q '"transport":"uc"' "$T/cli" && grep -q '"delivered":20' "$T/cli"; then pass "UC --json"
else fail "UC --json: $(cat "$T/cli" "$T/srv")"; fi
SERVER_OPTS="-t uc --loss 0.02 --seed 3"
pair "UC send, 2% loss at the server" -t uc --op send --size 3000 --iters 200
got=$(sed -n 's/^ delivered \([0-9]*\) of 200 messages (UC.*/\1/p' "$T/cli")
if [ -n "$got" ] && [ "$got" -lt 200 ] && grep -q "served send: $got messages received, data verified" "$T/srv" &&
   grep -q "^ UC: $((200 - got)) of 200 messages lost" "$T/srv"
then pass "UC loss stays lost: $got of 200 delivered, every one whole"
else fail "UC send loss: $(grep -h 'delivered\|served\|UC:' "$T/cli" "$T/srv")"; fi
pair "UC pingpong, 3% loss at both ends" -t uc --op pingpong --size 3000 --iters 200 --loss 0.03 --seed 4
if grep -q "^ [1-9][0-9]* of 200 rounds lost (UC" "$T/cli"; then
    pass "UC pingpong counts lost rounds: $(grep -o '[0-9]* of 200 rounds lost' "$T/cli")"
else fail "UC pingpong --loss: no lost round counted: $(grep 'rounds lost' "$T/cli")"; fi

# --tx-loss at the client: what it drops never reaches the wire, so the capture is what the server got,
# and tests/peer/uc_loss.py works out from tshark's fields alone which messages arrived whole and which
# packets follow a lost one of their own message: the server must report exactly those (IBA 9.8.3).
# The client's first PSN is an input of that oracle (the header's "local address ... PSN").
# tcpdump may miss frames of a burst on a loaded machine: then the capture is not the oracle; again.
UCL=$(dirname "$0")/uc_loss.py
uc_exact() {
    name=$1
    size=$2
    npkts=$3
    shift 3
    SNAPLEN=1600
    for attempt in 1 2 3; do
        pair "$name" -t uc --size "$size" --iters 150 --tx-loss 0.02 "$@"
        grep -q "^0 packets dropped by kernel" "$T/td.err" && break
        echo "note $name: tcpdump missed frames ($(grep 'dropped by kernel' "$T/td.err")); again"
    done
    unset SNAPLEN
    psn0=$(sed -n 's/^ local address:.* PSN \(0x[0-9a-f]*\) .*/\1/p' "$T/cli")
    o=$(run_tshark -r - -Y infiniband -T fields -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn \
        <"$T/cap.pcap" 2>/dev/null | python3 "$UCL" 10.79.0.1 "$psn0" "$npkts" 150)
    dl=${o#delivered=}; dl=${dl%% *}
    lost=${o#*lost=}; lost=${lost%% *}
    disc=${o#*discarded=}; disc=${disc%% *}
    part=${o#*partial=}; part=${part%% *}
    case $o in *"from_server=0 non_uc=0") ;; *) fail "$name: by tshark: $o"; return ;; esac
    if [ "$lost" -gt 0 ] && [ "$part" -gt 0 ] && grep -q "served [a-z]*: $dl messages received, data verified" "$T/srv" &&
       grep -q "^ UC: $lost of 150 messages lost; .* ($disc packets discarded" "$T/srv" &&
       grep -q "^ delivered $dl of 150 messages (UC" "$T/cli"
    then pass "$name: as tshark's fields say, $dl of 150 arrived whole, $part lost in part, and the $disc packets that followed a lost one were dropped"
    else fail "$name: tshark's fields say $o; the server: $(grep -h 'served\|UC:' "$T/srv")"; fi
}
SERVER_OPTS="-t uc"
uc_exact "UC send, 2% lost on the way" 3000 3 --op send --seed 11
uc_exact "UC write, 2% lost on the way" 4096 4 --op write --seed 12
SERVER_OPTS="-t rc"

# IPv6: the GIDs are the addresses themselves; the ICRC masks flow label, traffic class and hop limit.
SERVER_OPTS="--ipv6"
ADDR=fd79::2
pair "IPv6 write 64 KiB" --op write --iters 200
pair "IPv6 read 64 KiB" --op read --iters 200
pair "IPv6 fetch-add" --op fetch-add --iters 200
pair "IPv6 pingpong, 2% loss" --op pingpong --iters 200 --loss 0.02 --seed 5
if grep -q "GID: fd79::1" "$T/cli"; then pass "IPv6 GID in the header"; else fail "IPv6 GID: $(grep GID "$T/cli")"; fi
SERVER_OPTS="--ipv6 -t ud"
pair "IPv6 UD pingpong" -t ud --op pingpong --iters 200
ADDR=10.79.0.2

# --interface and --gid-index: the GID table is rxe's (0 link-local, 1 the IPv4 address, 2 the IPv6 one).
SERVER_OPTS="--interface $VB"
pair "--interface, --gid-index 1" --interface "$VA" --gid-index 1 --op send --iters 50
if grep -q "GID index       : 1.*Interface      : $VA" "$T/cli"; then pass "GID index and interface in the header"
else fail "header: $(grep 'GID index' "$T/cli")"; fi
SERVER_OPTS=
# Index 0, the link-local default GID: RoCEv2 over IPv6 link-local when both ends take it (as the kernel);
# against the other end's IPv4 GID, RTR is refused as the kernel refuses it (EINVAL).
SERVER_OPTS="-g 0"
pair "--gid-index 0 at both ends: RoCEv2 over IPv6 link-local" -g 0 --op send --iters 50
if grep -q "GID: fe80::" "$T/cli" && grep -q "GID index       : 0" "$T/cli"; then pass "link-local GID in the header"
else fail "link-local header: $(grep GID "$T/cli")"; fi
SERVER_OPTS=
# The server moves to RTR first: it is the one that refuses, with the kernel's words; the client is told to look there.
ip netns exec "$NB" timeout 10 "$R" peer --server --timeout 5 >"$T/srv" 2>&1 &
srv=$!
sleep 0.3
ip netns exec "$NA" "$R" peer --client 10.79.0.2 -g 0 --timeout 5 >"$T/cli" 2>&1
crc=$?
wait $srv
if [ $crc -ne 0 ] && grep -q "Failed to modify QP to RTR: Invalid argument (the other side's GID fe80::.* is IPv6, ours, ::ffff:10.79.0.2 at index 1, is IPv4" "$T/srv" &&
   grep -q "the server hung up during the connection exchange: its own output says why" "$T/cli"; then
    pass "--gid-index 0 against an IPv4 GID: refused at the server's RTR, as the kernel (EINVAL)"
else fail "--gid-index 0 against an IPv4 GID: $(cat "$T/cli") / $(cat "$T/srv")"; fi
refused_pair "--gid-index of the wrong family" "GID index 2 (fd79::1) is IPv6" --client 10.79.0.2 -g 2
refused_pair "--gid-index past the table" "GID index 9 is not in the GID table of $VA, which has 3" \
    --client 10.79.0.2 -x 9
SERVER_OPTS="-g 0"
refused_pair "a server with an unusable --gid-index: the client says to read the server's output" \
    "the server hung up during the connection exchange: its own output says why" --client 10.79.0.2 --iters 5 --timeout 5
SERVER_OPTS=
refused_pair "--interface that does not exist" "no such interface" --client 10.79.0.2 --interface nosuch0
refused_pair "no route" "no route to 10.80.0.9" --client 10.80.0.9

# --compat pingpong: the pingpong tools' exchange and data (0x7b, rounds of SEND each way).
# Like the tools, both sides are told the size and the number of rounds.
SERVER_OPTS="--compat pingpong --iters 200"
pair "compat pingpong RC" --compat pingpong --iters 200
if grep -q "bytes in .* seconds = .* Mbit/sec" "$T/cli" && grep -q "200 iters in .* usec/iter" "$T/cli"; then
    pass "compat pingpong prints ibv_rc_pingpong's summary"
else fail "compat summary: $(tail -3 "$T/cli")"; fi
SERVER_OPTS="--compat pingpong --iters 100 --loss 0.03 --seed 2"
pair "compat pingpong RC, 3% loss at both ends" --compat pingpong --iters 100 --loss 0.03 --seed 3
SERVER_OPTS="--compat pingpong -t uc --iters 200"
pair "compat pingpong UC" --compat pingpong -t uc --iters 200
uc_quiet "compat pingpong UC" 10.79.0.1 pingpong
SERVER_OPTS="--compat pingpong -t uc --iters 100 --loss 0.03 --seed 2"
pair "compat pingpong UC, 3% loss at both ends" --compat pingpong -t uc --iters 100 --loss 0.03 --seed 3
if grep -q "^ [1-9][0-9]* of 100 rounds lost (UC" "$T/cli"; then pass "compat pingpong UC counts the rounds lost"
else fail "compat pingpong UC --loss: $(grep 'rounds lost' "$T/cli")"; fi
SERVER_OPTS="--compat pingpong -t ud --size 1024 --iters 200"
pair "compat pingpong UD" --compat pingpong -t ud --size 1024 --iters 200
# --srq N: ibv_srq_pingpong's N QPs on one shared receive queue, an exchange line per QP.
SERVER_OPTS="--compat pingpong --srq 4 --iters 200"
pair "compat pingpong --srq 4" --compat pingpong --srq 4 --iters 200
if grep -q "^200 iters in .* usec/iter" "$T/cli" && [ "$(grep -c 'remote address: LID' "$T/cli")" -eq 4 ] &&
    [ "$(grep -c 'local address:  LID' "$T/srv")" -eq 4 ]; then
    pass "compat --srq 4 prints ibv_srq_pingpong's 4 address lines each side and its summary"
else fail "compat --srq summary: $(tail -3 "$T/cli")"; fi
SERVER_OPTS="--compat pingpong --srq 8 --iters 300 --loss 0.03 --seed 2"
pair "compat pingpong --srq 8, 3% loss at both ends" --compat pingpong --srq 8 --iters 300 --loss 0.03 --seed 3
SERVER_OPTS="--compat pingpong --srq 3 --iters 20"
refused_pair "--srq 2 against a server with 3 QPs" "hung up during the exchange" \
    --client 10.79.0.2 --compat pingpong --srq 2 --iters 20 --timeout 5
SERVER_OPTS=
refused_pair "compat UD default size on MTU 1500" "size 2048 is more than the path MTU 1024" \
    --client 10.79.0.2 --compat pingpong -t ud
# The exchange as the real tools do it (a stand-in for ibv_rc_pingpong's TCP side, from its source).
if [ -x /usr/bin/python3 ]; then
    for gid in ffff0a4f0001 zero; do
        ip netns exec "$NB" timeout 10 "$R" peer --server --compat pingpong --timeout 3 >"$T/srv" 2>&1 &
        srv=$!
        sleep 0.3
        ip netns exec "$NA" /usr/bin/python3 "$(dirname "$0")/pingpong_exchange.py" client 10.79.0.2 "$gid" >"$T/py" 2>&1
        prc=$?
        wait $srv
        if [ "$gid" = zero ]; then
            if grep -q "started without a GID index.*-g N" "$T/srv"; then pass "GID 0 from the other side: says to give -g"
            else fail "GID 0 refused: $(cat "$T/srv")"; fi
        elif [ $prc -eq 0 ]; then pass "server side of the exchange as ibv_rc_pingpong reads it: $(cat "$T/py")"
        else fail "exchange as ibv_rc_pingpong: $(cat "$T/py")"; fi
    done
    ip netns exec "$NB" /usr/bin/python3 "$(dirname "$0")/pingpong_exchange.py" server 10.79.0.2 ffff0a4f0002 >"$T/py" 2>&1 &
    py=$!
    sleep 0.3
    ip netns exec "$NA" timeout 10 "$R" peer --client 10.79.0.2 --compat pingpong --iters 1 --timeout 2 >/dev/null 2>&1
    if wait $py; then pass "client side of the exchange as ibv_rc_pingpong reads it: $(cat "$T/py")"
    else fail "client exchange as ibv_rc_pingpong: $(cat "$T/py")"; fi
else
    fail "/usr/bin/python3 not found: the pingpong exchange checks cannot run"
fi

# cm_ok NAME PCAP CLIENT-IP WANT: the capture's CM messages and the data after them, read by tshark's own
# CM dissector (tests/peer/cm_frames.py says what each word means), are WANT.
CMF=$(dirname "$0")/cm_frames.py
cm_words() {
    # shellcheck disable=SC2046  # one -e per field
    run_tshark -r - -T fields -E separator=/t -E occurrence=f $(python3 "$CMF" --print-fields) <"$1" 2>/dev/null |
        python3 "$CMF" "$2"
}
cm_ok() {
    got=$(cm_words "$2" "$3")
    case " $got " in
        *BAD*) fail "$1: the CM exchange and the data disagree, by tshark: $got" ;;
        *) if [ "$got" = "$4" ]; then pass "$1, by tshark's CM dissector: $got"
           else fail "$1, by tshark's CM dissector: '$got', wanted '$4'"; fi ;;
    esac
}

# wait_server: until the server just started in B (stderr in $T/srv.err, removed before) says it waits for a
# client, or (--json: it says nothing) has UDP port 4791 open; 5 s at most. Before that, a REQ would find
# the port closed, and the kernel answers with ICMP port unreachable.
wait_server() {
    i=0
    while ! grep -q "waiting for a client" "$T/srv.err" 2>/dev/null && [ $i -lt 50 ] &&
          [ -z "$(ip netns exec "$NB" ss -Hlun 'sport = :4791' 2>/dev/null)" ]; do sleep 0.1; i=$((i + 1)); done
}
# --compat rping: rocelab peer -s in B, -c in A. rping_pair NAME "SERVER-FLAGS" CLIENT-FLAGS...
# leaves the outputs in $T/srv, $T/srv.err, $T/cli, $T/cli.err, the exits in $src and $crc, the
# capture in $T/cap.pcap.
rping_pair() {
    name=$1
    srvopts=$2
    shift 2
    rm -f "$T/cap.pcap" "$T/td.err" "$T/srv.err"
    # shellcheck disable=SC2046  # td_opts: several words
    ip netns exec "$NA" timeout 60 tcpdump -i "$VA" --immediate-mode $(td_opts) -U -n -w "$T/cap.pcap" \
        'udp port 4791 or icmp or (icmp6 and ip6[40] < 128)' >/dev/null 2>"$T/td.err" &
    td=$!
    i=0
    while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    # shellcheck disable=SC2086  # the server's flags, one word each
    ip netns exec "$NB" timeout 60 "$R" peer --compat rping -s --timeout 20 $srvopts >"$T/srv" 2>"$T/srv.err" &
    srv=$!
    wait_server
    ip netns exec "$NA" timeout 60 "$R" peer --compat rping -c -a "${RPING_ADDR:-10.79.0.2}" --timeout 20 "$@" \
        >"$T/cli" 2>"$T/cli.err"
    crc=$?
    wait $srv
    src=$?
    sleep 0.3
    kill "$td" 2>/dev/null
    wait "$td" 2>/dev/null
}

# rping_ok NAME COUNT SIZE: both ends exit 0, print exactly rping's -v lines, and the wire is clean RoCEv2.
rping_ok() {
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$1: client exit $crc, server exit $src: $(tail -c 300 "$T/cli.err") / $(tail -c 300 "$T/srv.err")"
        return 1
    fi
    if [ "$(grep -v '^{' "$T/cli")" != "$(rping_expected "ping data: " "$2" "$3")" ]; then
        fail "$1: the client's -v lines are not rping's: $(head -c 200 "$T/cli")"; return 1
    fi
    if [ "$(grep -v '^{' "$T/srv")" != "$(rping_expected "server ping data: " "$2" "$3")" ]; then
        fail "$1: the server's -v lines are not rping's: $(head -c 200 "$T/srv")"; return 1
    fi
    sum=$("$R" explain "$T/cap.pcap" 2>&1 | grep -- '^--- ')
    if ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures, 0 unknown opcodes" ||
       [ "$(tcpdump -n -r "$T/cap.pcap" 'icmp or icmp6' 2>/dev/null | wc -l)" -ne 0 ]; then
        fail "$1: the capture is not clean RoCEv2: $sum"; return 1
    fi
    pass "$1: both ends exit 0, -v is rping's text for $2 pings of $3 bytes on both sides, every ICRC ok"
}

# The BTH opcodes each side sent on its RC QP (not QP1: the kernel's capture has the CM there), as
# tshark reads them: "client: ..." and "server: ...". rping_opcodes PCAP CLIENT-IP [requests]: with
# "requests", only requests and READ responses (no ACK, opcode 17), each PSN once (resends left out).
rping_opcodes() {
    run_tshark -r - -Y 'infiniband && infiniband.bth.destqp != 1' -T fields -E separator=, -e ip.src -e ipv6.src \
        -e infiniband.bth.opcode -e infiniband.bth.psn <"$1" 2>/dev/null |
        awk -F, -v c="$2" -v req="${3:-}" '
            { src = $1 $2 }
            req != "" && ($3 == 17 || seen[src " " $3 " " $4]++) { next }
            { if (src == c) a = a " " $3; else b = b " " $3 }
            END { print "client:" a; print "server:" b }'
}
# The oracle: the real rping (kernel Soft-RoCE at both ends, -C 4 -S 64), client 10.77.0.3.
KERNEL_OPS=$(rping_opcodes "$FX/rping.pcap" 10.77.0.3)
KERNEL_REQS=$(rping_opcodes "$FX/rping.pcap" 10.77.0.3 requests)
case $KERNEL_OPS in
    *"client: 4 16 17 4 17 17"*) pass "tshark reads the kernel's rping data phase: $(echo "$KERNEL_OPS" | tr '\n' ' ' | cut -c1-60)..." ;;
    *) fail "tshark cannot read the kernel's rping capture: $KERNEL_OPS" ;;
esac

rping_pair "rping -C 4 -S 64 -v" "-v" -C 4 -S 64 -v
if rping_ok "rping -C 4 -S 64 -v" 4 64; then
    ours=$(rping_opcodes "$T/cap.pcap" 10.79.0.1)
    if [ "$ours" = "$KERNEL_OPS" ]; then
        pass "rping data phase: each side sends the kernel's rping opcodes in the kernel's order (SEND, READ, go-ahead, SEND, WRITE, go-ahead, and every ACK)"
    else fail "rping opcodes differ from the kernel's: ours $(echo "$ours" | tr '\n' ' ') / kernel's $(echo "$KERNEL_OPS" | tr '\n' ' ')"; fi
    grep -q "^client DISCONNECT EVENT...$" "$T/cli.err" && grep -q "^server DISCONNECT EVENT...$" "$T/srv.err" &&
        grep -q "^wait for RDMA_READ_ADV state 10$" "$T/srv.err" &&
        pass "rping's ends on stderr, as the real rping's in $FX/rping.txt" || fail "rping's disconnect lines: $(cat "$T/srv.err")"
    cm_ok "rping -C 4 -S 64 -v" "$T/cap.pcap" 10.79.0.1 "seq=REQ,REP,RTU,DREQ,DREP resent= rep_qpn=ok rep_psn=ok req_qpn=ok req_psn=ok"
fi

rping_pair "rping -C 20 -S 5000 -v -V (READ and WRITE of 5 packets)" "-v -S 5000" -C 20 -S 5000 -v -V
rping_ok "rping -C 20 -S 5000 -v -V (READ and WRITE of 5 packets)" 20 5000

for side in server client; do
    if [ $side = server ]; then srvloss="--loss 0.2 --seed 2"; cliloss=""; else srvloss=""; cliloss="--loss 0.2 --seed 5"; fi
    # shellcheck disable=SC2086
    rping_pair "rping -C 4 -S 64 -v, 20% loss at the $side" "-v --json $srvloss" -C 4 -S 64 -v --json $cliloss
    if rping_ok "rping -C 4 -S 64 -v, 20% loss at the $side" 4 64; then
        if [ $side = server ]; then j=$T/srv; else j=$T/cli; fi
        if grep -q '"dropped_by_loss":0,' "$j"; then fail "rping --loss at the $side dropped nothing: $(cat "$j")"
        else pass "rping --loss at the $side: $(grep -o '"dropped_by_loss":[0-9]*' "$j"), $(grep -ho '"retransmits":[0-9]*' "$T/srv" "$T/cli" | tr '\n' ' ')"; fi
        ours=$(rping_opcodes "$T/cap.pcap" 10.79.0.1 requests)
        if [ "$ours" = "$KERNEL_REQS" ]; then pass "rping with loss at the $side: the requests, each PSN once, are the kernel's in its order"
        else fail "rping requests with loss differ: ours $(echo "$ours" | tr '\n' ' ') / kernel's $(echo "$KERNEL_REQS" | tr '\n' ' ')"; fi
        # The first frame each side receives is dropped with these seeds (the REQ at the server, the REP
        # at the client): the CM resends it, and the connection is made all the same.
        got=$(cm_words "$T/cap.pcap" 10.79.0.1)
        case " $got " in
            *BAD*|*" resent= "*|*" seq= "*) fail "rping, loss at the $side: no CM resend, or CM and data disagree: $got" ;;
            *"seq=REQ,REP,RTU,DREQ,DREP "*) pass "rping, loss at the $side: CM messages lost and resent, still connected, by tshark: $got" ;;
            *) fail "rping, loss at the $side: CM exchange by tshark: $got" ;;
        esac
    fi
done

# IPv6, as rping takes it: the family of -a (the server listens on -a ADDR).
RPING_ADDR=fd79::2 rping_pair "rping over IPv6" "-a fd79::2 -v" -C 3 -S 64 -v -V
if rping_ok "rping over IPv6" 3 64; then
    # The kernel's first 3 pings: 6 frames each way per ping (advertisement or READ, ACKs, go-aheads).
    kernel3=$(echo "$KERNEL_OPS" | awk '{ s = $1; for (i = 2; i <= 19; i++) s = s " " $i; print s }')
    ours=$(rping_opcodes "$T/cap.pcap" fd79::1)
    [ "$ours" = "$kernel3" ] && pass "rping over IPv6: each side sends the opcodes of the kernel's first 3 pings" ||
        fail "rping over IPv6 opcodes: ours $(echo "$ours" | tr '\n' ' ') / kernel's $(echo "$kernel3" | tr '\n' ' ')"
    cm_ok "rping over IPv6" "$T/cap.pcap" fd79::1 "seq=REQ,REP,RTU,DREQ,DREP resent= rep_qpn=ok rep_psn=ok req_qpn=ok req_psn=ok"
fi

# -V finds wrong data: the server's --corrupt (rocelab's own, for this) changes one letter before the WRITE back.
rping_pair "rping -V against a corrupting server" "--corrupt" -C 3 -S 64 -v -V
if [ $crc -ne 0 ] && grep -q "^data mismatch!$" "$T/cli.err" && grep -q "^rping client failed: -1$" "$T/cli.err" &&
   [ ! -s "$T/cli" ] && [ $src -eq 0 ]; then
    pass "rping -V: 'data mismatch!', the client fails (exit $crc) before printing the ping; the server ends well, as rping's"
else fail "rping -V with wrong data: client exit $crc, server exit $src, $(cat "$T/cli.err" | tr '\n' ' ')"; fi
rping_pair "rping -v without -V against a corrupting server" "--corrupt" -C 1 -S 64 -v
if [ $crc -eq 0 ] && [ "$(cat "$T/cli")" != "$(rping_expected "ping data: " 1 64)" ] && grep -q '^ping data: rdma-ping-0: .*#' "$T/cli"
then pass "rping without -V prints the changed data and does not check it, as rping"
else fail "rping -v, corrupt, no -V: exit $crc: $(cat "$T/cli")"; fi

# -d: rping's DEBUG_LOG lines; the rdma_cm events are only those that happen here (no CONNECT_RESPONSE).
rping_pair "rping -d" "-d" -d -C 1 -S 64
ev() { sed -n 's/^cma_event type \(RDMA_CM_EVENT_[A-Z_]*\) cma_id 0x[0-9a-f]* (\(parent\|child\))$/\1 \2/p' "$1" | tr '\n' ' '; }
if [ $crc -eq 0 ] && [ $src -eq 0 ] &&
   [ "$(ev "$T/cli")" = "RDMA_CM_EVENT_ADDR_RESOLVED parent RDMA_CM_EVENT_ROUTE_RESOLVED parent RDMA_CM_EVENT_ESTABLISHED parent RDMA_CM_EVENT_DISCONNECTED parent " ] &&
   [ "$(ev "$T/srv")" = "RDMA_CM_EVENT_CONNECT_REQUEST child RDMA_CM_EVENT_ESTABLISHED child RDMA_CM_EVENT_DISCONNECTED child " ]
then pass "rping -d: the rdma_cm events in rping's format: client $(ev "$T/cli" | wc -w) words, server $(ev "$T/srv" | wc -w)"
else fail "rping -d events: client '$(ev "$T/cli")' server '$(ev "$T/srv")'"; fi
if grep -q "^count 1$" "$T/cli" && grep -q "^RDMA addr [0-9a-f]* rkey [0-9a-f]* len 64$" "$T/cli" &&
   grep -q "^Received rkey [0-9a-f]* addr [0-9a-f]* len 64 from peer$" "$T/srv" &&
   grep -q "^server posted rdma read req $" "$T/srv" && grep -q "^rdma write from lkey [0-9a-f]* laddr [0-9a-f]* len 64$" "$T/srv"
then pass "rping -d: the option, advertisement and READ/WRITE lines in rping's format"
else fail "rping -d lines: $(head -c 300 "$T/cli")"; fi

# A REQ for a port nobody listens on: the server's CM answers REJ reason 8 (invalid service ID), as the kernel's.
ip netns exec "$NB" timeout 20 "$R" peer --compat rping -s --timeout 8 >/dev/null 2>&1 &
srv=$!
sleep 0.3
IN="ip netns exec $NA" refused "rping: nobody listens on the port (REJ 8)" \
    "nobody listens at 10.79.0.2 port 1 (REJ reason 8, invalid service ID): start 'rocelab peer --compat rping -s'" \
    --compat rping -c -a 10.79.0.2 -p 1 -C 1 --timeout 8
grep -q "^cma event RDMA_CM_EVENT_REJECTED, error 8$" "$T/out" && pass "rping: the REJ as rping prints it" ||
    fail "rping REJ: $(head -c 300 "$T/out")"
kill $srv 2>/dev/null
wait $srv 2>/dev/null

# --compat ucmatose and udaddy, rocelab at both ends, held against the real tools (kernel Soft-RoCE at
# both ends, -c 2 -C 2 -S 64, client 10.77.0.3): their output in $FX/TOOL.txt, their frames in $FX/TOOL.pcap.
# ct_pair TOOL NAME "SERVER-FLAGS" CLIENT-FLAGS...: server in B, client in A, as rping_pair.
ct_pair() {
    tool=$1
    name=$2
    srvopts=$3
    shift 3
    # srv.err goes too: the last server's line would start the client before this server has its port
    rm -f "$T/cap.pcap" "$T/td.err" "$T/srv.err"
    # shellcheck disable=SC2046  # td_opts: several words
    ip netns exec "$NA" timeout 60 tcpdump -i "$VA" --immediate-mode $(td_opts) -U -n -w "$T/cap.pcap" \
        'udp port 4791 or icmp or (icmp6 and ip6[40] < 128)' >/dev/null 2>"$T/td.err" &
    td=$!
    i=0
    while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    # shellcheck disable=SC2086  # the server's flags, one word each
    ip netns exec "$NB" timeout 60 "$R" peer --compat "$tool" --timeout 20 $srvopts >"$T/srv" 2>"$T/srv.err" &
    srv=$!
    wait_server
    ip netns exec "$NA" timeout 60 "$R" peer --compat "$tool" -s 10.79.0.2 --timeout 20 "$@" >"$T/cli" 2>"$T/cli.err"
    crc=$?
    wait $srv
    src=$?
    sleep 0.3
    kill "$td" 2>/dev/null
    wait "$td" 2>/dev/null
}
# ct_expected TOOL ROLE: what the real tool printed in that role (the fixture's text, not our output).
ct_expected() {
    case $2 in
        client) sed -n '/^# guest 1 .*client:/,/^# guest 0/{/^#/d;p}' "$FX/$1.txt" ;;
        server) sed -n '/^# guest 0 .*server:/,${/^#/d;p}' "$FX/$1.txt" ;;
    esac
}
# ct_ok NAME TOOL: both ends exit 0 and print the real tool's lines (a --json line aside), the wire is clean.
ct_ok() {
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$1: client exit $crc, server exit $src: $(tail -c 300 "$T/cli" "$T/cli.err") / $(tail -c 300 "$T/srv" "$T/srv.err")"
        return 1
    fi
    for role in client server; do
        [ $role = client ] && out=$T/cli || out=$T/srv
        if [ "$(grep -v '^{' "$out")" != "$(ct_expected "$2" $role)" ]; then
            fail "$1: the $role's output is not the real $2's: $(head -c 300 "$out")"; return 1
        fi
    done
    sum=$("$R" explain "$T/cap.pcap" 2>&1 | grep -- '^--- ')
    if ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures, 0 unknown opcodes" ||
       [ "$(tcpdump -n -r "$T/cap.pcap" 'icmp or icmp6' 2>/dev/null | wc -l)" -ne 0 ]; then
        fail "$1: the capture is not clean RoCEv2: $sum $(tcpdump -n -r "$T/cap.pcap" 'not udp port 4791' 2>/dev/null | head -n 3 | tr '\n' ' ')"
        return 1
    fi
    pass "$1: both ends exit 0 and print the real $2's lines, every ICRC ok, no ICMP"
}
# What each side sent, by tshark: CM messages by name (QP1), the rest by BTH opcode (op4 SEND Only,
# op17 Acknowledge, op101 UD SEND Only with Immediate), counted, and which side sent the first request.
# ct_tokens PCAP CLIENT-IP [requests]: with "requests", each CM message (transaction ID) and each request
# (QP, PSN) once, no ACK: what is left once resends are.
ct_tokens() {
    run_tshark -r - -Y infiniband -T fields -E separator=, -e ip.src -e ipv6.src -e infiniband.bth.opcode \
        -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.mad.attributeid -e infiniband.mad.transactionid \
        <"$1" 2>/dev/null |
        awk -F, -v c="$2" -v req="${3:-}" '
            BEGIN { split("10 REQ 11 MRA 12 REJ 13 REP 14 RTU 15 DREQ 16 DREP 17 SIDR_REQ 18 SIDR_REP", n, " ")
                    for (i = 1; i < 18; i += 2) cm["0x00" n[i]] = n[i + 1] }
            { side = ($1 $2 == c) ? "client" : "server" }
            $4 == "0x000001" { t = cm[$6]; key = t " " $7 }
            $4 != "0x000001" { t = "op" $3; key = side " " $3 " " $4 " " $5
                               if (t != "op17" && first == "") first = side }
            req != "" && (t == "op17" || seen[key]++) { next }
            { count[side ": " t]++ }
            END { for (k in count) print k "=" count[k]; print "first: " first }' | sort |
        awk -F': ' '$1 == "first" { f = $2; next } { s[$1] = s[$1] " " $2 }
            END { print "client:" s["client"]; print "server:" s["server"]; print "first request: " f }'
}
for tool in ucmatose udaddy; do
    KERNEL_CT=$(ct_tokens "$FX/$tool.pcap" 10.77.0.3)
    case "$KERNEL_CT" in
        *client:*op*server:*op*"first request: "?*) pass "tshark reads the kernel's $tool: $(echo "$KERNEL_CT" | tr '\n' ' ')" ;;
        *) fail "tshark cannot read the kernel's $tool capture: $KERNEL_CT" ;;
    esac
    ct_pair $tool "$tool -c 2 -C 2 -S 64" "-c 2 -C 2 -S 64" -c 2 -C 2 -S 64
    if ct_ok "$tool -c 2 -C 2 -S 64" $tool; then
        ours=$(ct_tokens "$T/cap.pcap" 10.79.0.1)
        [ "$ours" = "$KERNEL_CT" ] &&
            pass "$tool -c 2: each side sends what the kernel's $tool sends, as many, the same side first ($(echo "$ours" | tr '\n' ' '))" ||
            fail "$tool -c 2 differs from the kernel's: ours $(echo "$ours" | tr '\n' ' ') / kernel's $(echo "$KERNEL_CT" | tr '\n' ' ')"
    fi
done
# One connection: tshark's CM dissector, and the data on the QPNs, PSNs and Q_Key the CM announced.
ct_pair ucmatose "ucmatose -c 1 -C 3 -S 1000" "-C 3 -S 1000 --json" -C 3 -S 1000
grep -q '"replies_match":true' "$T/srv" && pass "ucmatose: the client's replies echo the server's data" ||
    fail "ucmatose echo: $(grep '^{' "$T/srv")"
cm_ok "ucmatose -c 1" "$T/cap.pcap" 10.79.0.1 "seq=REQ,REP,RTU,DREQ,DREP resent= rep_qpn=ok rep_psn=ok req_qpn=ok req_psn=ok"
ct_pair udaddy "udaddy -c 1 -C 3 -S 1000" "-C 3 -S 1000" -C 3 -S 1000
cm_ok "udaddy -c 1" "$T/cap.pcap" 10.79.0.1 "seq=SIDR_REQ,SIDR_REP resent= sidr_qpn=ok sidr_qkey=ok"
# Loss: RC resends, so ucmatose ends as on a clean wire; each request (and CM message) once is the kernel's.
KERNEL_CT=$(ct_tokens "$FX/ucmatose.pcap" 10.77.0.3 requests)
ct_pair ucmatose "ucmatose -c 2 -C 2 -S 64, 20% loss at both ends" "-c 2 -C 2 -S 64 --loss 0.2 --seed 3 --json" \
    -c 2 -C 2 -S 64 --loss 0.2 --seed 4 --json
if ct_ok "ucmatose -c 2 -C 2 -S 64, 20% loss at both ends" ucmatose; then
    drops=$(grep -ho '"dropped_by_loss":[0-9]*' "$T/srv" "$T/cli" | tr '\n' ' ')
    case "$drops" in *":0 "*) fail "ucmatose --loss dropped nothing at one end: $drops" ;;
        *) pass "ucmatose --loss: $drops$(grep -ho '"retransmits":[0-9]*\|"cm_resends":[0-9]*' "$T/srv" "$T/cli" | tr '\n' ' ')" ;; esac
    ours=$(ct_tokens "$T/cap.pcap" 10.79.0.1 requests)
    [ "$ours" = "$KERNEL_CT" ] && pass "ucmatose with loss: each request and CM message once, they are the kernel's" ||
        fail "ucmatose with loss differs: ours $(echo "$ours" | tr '\n' ' ') / kernel's $(echo "$KERNEL_CT" | tr '\n' ' ')"
fi
# UD: a datagram lost is never resent, and udaddy waits for every one: only the CM recovers. With seed 7 the
# server's --loss drops the first frame it receives (a SIDR_REQ) and none of the next 15: the client's CM
# sends it again and the test completes. (A small seed always drops the first frame: xorshift starts low.)
KERNEL_CT=$(ct_tokens "$FX/udaddy.pcap" 10.77.0.3 requests)
ct_pair udaddy "udaddy -c 2 -C 2 -S 64, a SIDR_REQ lost at the server" "-c 2 -C 2 -S 64 --loss 0.2 --seed 7 --json" \
    -c 2 -C 2 -S 64 --json
if ct_ok "udaddy -c 2 -C 2 -S 64, a SIDR_REQ lost at the server" udaddy; then
    # seq and resent only: cm_frames.py's sidr_qpn holds one connection's QPN, and there are two
    got=$(cm_words "$T/cap.pcap" 10.79.0.1 | tr ' ' '\n' | grep -E '^(seq|resent)=' | tr '\n' ' ')
    case " $got " in *" resent=SIDR_REQ "*) pass "udaddy: the lost SIDR_REQ was sent again, by tshark: $got" ;;
        *) fail "udaddy with a lost SIDR_REQ: $got" ;; esac
    ours=$(ct_tokens "$T/cap.pcap" 10.79.0.1 requests)
    [ "$ours" = "$KERNEL_CT" ] && pass "udaddy with a lost SIDR_REQ: each message once, they are the kernel's" ||
        fail "udaddy with loss differs: ours $(echo "$ours" | tr '\n' ' ') / kernel's $(echo "$KERNEL_CT" | tr '\n' ' ')"
fi
# A datagram lost: the client waits for it until --timeout, then fails and says why (the real udaddy waits
# forever). This seed keeps the client's first frame (the SIDR_REP) and drops its 2nd and 4th (replies).
ct_pair udaddy "udaddy, a reply lost" "-C 3 -S 64" -C 3 -S 64 --timeout 3 --loss 0.5 --seed 582057716445789124
if [ $crc -ne 0 ] && grep -q "completions, then nothing for 3 s (--timeout): a datagram lost is not resent" "$T/cli.err" &&
   grep -q "^return status -110$" "$T/cli"
then pass "udaddy: a lost datagram fails the client after --timeout, saying why ($(grep -o 'connection 0: [0-9]* of 3' "$T/cli.err"))"
else fail "udaddy with a lost reply: client exit $crc: $(cat "$T/cli" "$T/cli.err" | tail -c 400)"; fi
# More connections than the server takes: its CM rejects the second (cmatose's "failing connection request").
ct_pair ucmatose "ucmatose -c 2 against a -c 1 server" "-C 1 --timeout 5" -c 2 -C 1 --timeout 5
# The server then ends (connect_events() returns connect_handler()'s -ENOMEM), and its connection goes down
# as the kernel takes it down when cmatose exits: a DREQ, so the client ends with the REJ's status.
if grep -q "^cmatose: failing connection request$" "$T/srv" && grep -q "^return status -12$" "$T/srv" &&
   grep -q "^cmatose: event: RDMA_CM_EVENT_REJECTED, error: 28$" "$T/cli" && grep -q "^return status 28$" "$T/cli"
then pass "ucmatose: the connection beyond the server's -c is refused (REJ reason 28, consumer reject), as cmatose's"
else fail "ucmatose -c 2 against -c 1: $(cat "$T/srv" "$T/cli" | tail -c 400)"; fi

# --cm: every op (and UD through SIDR) connected by the CM, as perftest -R; the server learns the test from the REQ.
SERVER_OPTS="--cm"
CM_RC="seq=REQ,REP,RTU,DREQ,DREP resent= rep_qpn=ok rep_psn=ok req_qpn=ok"
pair "--cm write" --cm --op write --iters 200
cm_ok "--cm write" "$T/cap.pcap" 10.79.0.1 "$CM_RC"
grep -q "Data ex. method : rdma_cm (port 18515, service ID 0x0000000001064853; REQ/REP/RTU)" "$T/cli" &&
    pass "--cm: the header names rdma_cm and the service ID" || fail "--cm header: $(grep 'Data ex' "$T/cli")"
pair "--cm read" --cm --op read --iters 200
cm_ok "--cm read" "$T/cap.pcap" 10.79.0.1 "$CM_RC"
pair "--cm send" --cm --op send --iters 200
cm_ok "--cm send" "$T/cap.pcap" 10.79.0.1 "$CM_RC"
pair "--cm pingpong" --cm --op pingpong --iters 200
cm_ok "--cm pingpong" "$T/cap.pcap" 10.79.0.1 "$CM_RC req_psn=ok"
pair "--cm fetch-add" --cm --op fetch-add --iters 200
cm_ok "--cm fetch-add" "$T/cap.pcap" 10.79.0.1 "$CM_RC"
pair "--cm cmp-swap" --cm --op cmp-swap --iters 200
cm_ok "--cm cmp-swap" "$T/cap.pcap" 10.79.0.1 "$CM_RC"
grep -q "served cmp-swap: 0 messages received, data verified" "$T/srv" &&
    pass "--cm: the server ran the op the REQ's private data named (cmp-swap), with no --op of its own" ||
    fail "--cm server's op: $(cat "$T/srv")"
SERVER_OPTS="--cm --loss 0.02 --seed 3"
pair "--cm send, 2% loss at both ends (the first REQ and REP lost)" --cm --op send --iters 100 --loss 0.02 --seed 4
got=$(cm_words "$T/cap.pcap" 10.79.0.1)
case " $got " in
    *BAD*|*" resent= "*) fail "--cm with loss: no CM resend, or CM and data disagree: $got" ;;
    *) pass "--cm with loss: CM messages resent, connected, data verified, by tshark: $got" ;;
esac
SERVER_OPTS="--cm -t ud"
pair "--cm UD send (SIDR)" --cm -t ud --op send --iters 200
cm_ok "--cm UD send (SIDR)" "$T/cap.pcap" 10.79.0.1 "seq=SIDR_REQ,SIDR_REP resent= sidr_qpn=ok sidr_qkey=ok"
grep -q "served send: 200 messages received, data verified" "$T/srv" && pass "--cm UD: the server counted all 200" ||
    fail "--cm UD server: $(cat "$T/srv")"
pair "--cm UD pingpong (SIDR)" --cm -t ud --op pingpong --iters 200
cm_ok "--cm UD pingpong (SIDR)" "$T/cap.pcap" 10.79.0.1 "seq=SIDR_REQ,SIDR_REP resent= sidr_qpn=ok sidr_qkey=ok"
SERVER_OPTS="--cm --ipv6"
ADDR=fd79::2
pair "--cm IPv6 read" --cm --op read --iters 100
cm_ok "--cm IPv6 read" "$T/cap.pcap" fd79::1 "$CM_RC"
ADDR=10.79.0.2
SERVER_OPTS="--cm"
refused_pair "--cm: UD client, RC server (SIDR_REP status 1)" "SIDR_REP status 1: nothing serves UD at 10.79.0.2 port 18515" \
    --client 10.79.0.2 --cm -t ud --iters 5 --timeout 8
refused_pair "--cm: client without a server on its port (REJ 8)" "nobody listens at 10.79.0.2 port 9 (REJ reason 8" \
    --client 10.79.0.2 --cm --port 9 --iters 5 --timeout 8
SERVER_OPTS=

# perftest's and ibv_rc_pingpong's flags: no address is the server, the address comes last.
# What went on the wire is read by tshark (Wireshark's own dissector), not from our table.
# wire_lens PCAP SRC OPCODE HDR: the payload sizes of SRC's packets of OPCODE, as tshark reads them:
# the UDP length less HDR (UDP, BTH, extended headers, ICRC) and the BTH's pad count.
wire_lens() {
    run_tshark -r - -Y "ip.src == $2 && infiniband.bth.opcode == $3" -T fields -e udp.length \
        -e infiniband.bth.padcnt <"$1" 2>/dev/null | awk -v h="$4" '{ print $1 - h - $2 }' | sort -n | uniq | tr '\n' ' '
}
opcount() {
    run_tshark -r - -Y "ip.src == $2 && ($3)" -T fields -e frame.number <"$1" 2>/dev/null | wc -l
}
pair_cmd "perftest style: -x 1 at both ends, -s 4096 -n 50 --op send ADDR" "-x 1" -x 1 -s 4096 -n 50 --op send 10.79.0.2
if grep -q "^ 4096 *50 " "$T/cli" && grep -q "served send: 50 messages received, data verified" "$T/srv" &&
   [ "$(opcount "$T/cap.pcap" 10.79.0.1 'infiniband.bth.opcode == 0 || infiniband.bth.opcode == 4')" -eq 50 ]
then pass "-s 4096 -n 50: 50 SENDs started on the wire (tshark), the server counted 50"
else fail "-s/-n: $(tail -c 300 "$T/cli") / $(tail -c 200 "$T/srv")"; fi
pair_cmd "-s 010 is ten bytes" "" -s 010 -n 3 --op send 10.79.0.2
# A SEND Only of 10 bytes: UDP 8 + BTH 12 + 10 + ICRC 4.
l=$(wire_lens "$T/cap.pcap" 10.79.0.1 4 24)
[ "$l" = "10 " ] && pass "-s 010: SENDs of 10 bytes on the wire (tshark), not 8" || fail "-s 010: tshark sees '$l'"
pair_cmd "-c UD, -a: every size to the path MTU" "-c UD" -c UD --op pingpong -a -n 3 10.79.0.2
l=$(wire_lens "$T/cap.pcap" 10.79.0.1 100 32)
rows=$(grep -c '^ [0-9][0-9]* *3 ' "$T/cli")
if [ "$l" = "2 4 8 16 32 64 128 256 512 1024 " ] && [ "$rows" -eq 10 ]; then
    pass "-c UD -a: UD SENDs of 2..1024 bytes on the wire (tshark), a row of the table each"
else fail "-c UD -a: tshark sees sizes '$l', $rows rows: $(tail -c 300 "$T/cli")"; fi
pair_cmd "-a: every size from 2 to 2^23" "-a" -a -n 2 10.79.0.2
# Each message starts with a WRITE First (6) or is a WRITE Only (10), whose RETH gives its length:
# the 23 sizes, each once at least (tcpdump may miss a frame of the 33000 at this rate).
w=$(run_tshark -r - -Y 'ip.src == 10.79.0.1 && (infiniband.bth.opcode == 6 || infiniband.bth.opcode == 10)' \
    -T fields -e infiniband.reth.dmalen <"$T/cap.pcap" 2>/dev/null | sort -n | uniq | tr '\n' ' ')
want=$(awk 'BEGIN { for (n = 2; n <= 8388608; n *= 2) printf "%d ", n }')
rows=$(grep -c '^ [0-9][0-9]* *2 ' "$T/cli")
if [ "$w" = "$want" ] && [ "$rows" -eq 23 ] && grep -q "^ 8388608 *2 " "$T/cli" && grep -q "^ 2 *2 " "$T/cli" &&
   grep -q "served write: 0 messages received, data verified" "$T/srv"; then
    pass "-a: WRITEs of each size from 2 to 8388608 bytes on the wire (tshark's RETH), a row each, data verified"
else fail "-a: tshark's WRITE lengths '$w', $rows rows: $(tail -c 300 "$T/cli")"; fi
t0=$(date +%s)
pair_cmd "-D 2: send for two seconds" "" -D 2 --op send -s 256 10.79.0.2
t1=$(date +%s)
n=$(sed -n 's/^ 256 *\([0-9][0-9]*\) .*/\1/p' "$T/cli")
w=$(opcount "$T/cap.pcap" 10.79.0.1 'infiniband.bth.opcode == 4')
# (tcpdump may miss some at this rate: the wire shows that they ran, the server's count how many.)
if [ -n "$n" ] && [ "$n" -gt 0 ] && [ $((t1 - t0)) -ge 2 ] && [ "$w" -gt 0 ] &&
   grep -q "served send: $n messages received, data verified" "$T/srv"; then
    pass "-D 2: $n SENDs in $((t1 - t0)) s, as many counted by the server, $w of them captured (tshark)"
else fail "-D 2: n='$n' in $((t1 - t0)) s, $w on the wire: $(tail -c 300 "$T/cli") / $(tail -c 200 "$T/srv")"; fi
pair_cmd "-D 1 fetch-add: the server's counter is the count" "" -D 1 --op fetch-add 10.79.0.2
pair_cmd "-d IF is the interface, -i 1, -q 1, -R (--cm)" "-d $VB -R" -d "$VA" -i 1 -q 1 -R --op read -n 20 10.79.0.2
if grep -q "note: -d $VA is the interface $VA" "$T/cli" && grep -q "Interface      : $VA" "$T/cli" &&
   grep -q "Data ex. method : rdma_cm" "$T/cli"; then pass "-d $VA: said, and the header's interface; -R connected through rdma_cm"
else fail "-d / -R: $(head -c 400 "$T/cli")"; fi
SERVER_OPTS=

# The README's rocelab peer lines, each run here (namespaces A and B are these, 10.0.0.2, the RDMA
# machine 192.0.2.1 and rlrxe's 10.77.0.1 are 10.79.0.2); a peer line the README gains fails this
# test until it is run below. The real tool a line pairs with is stood in for by rocelab peer
# --compat with the tool's own flags, which are rocelab peer's now (ibv_ud_pingpong: -t ud).
readme_lines() {
    awk '/^```sh/{c=1; next} /^```/{c=0} c' "$(dirname "$0")/../../README.md" |
        sed -n 's/^\(ip netns exec [A-Za-z]* \)\{0,1\}\(rocelab peer [^#&]*\).*/\2/p' | sed 's/ *$//'
}
RAN="$T/readme.ran"
: >"$RAN"
# readme_run NAME "SERVER LINE" "CLIENT LINE": both as the README writes them (rocelab peer ...)
readme_run() {
    echo "$2" >>"$RAN"
    echo "$3" >>"$RAN"
    sa=$(echo "${2#rocelab peer}" | sed 's/10\.0\.0\.2/10.79.0.2/g')
    ca=$(echo "${3#rocelab peer}" | sed -e 's/10\.0\.0\.2/10.79.0.2/g' -e 's/192\.0\.2\.1/10.79.0.2/g' -e 's/10\.77\.0\.1/10.79.0.2/g')
    ip netns exec "$NB" timeout 60 "$R" peer $sa --timeout 30 >"$T/srv" 2>&1 &
    srv=$!
    sleep 0.5
    ip netns exec "$NA" timeout 60 "$R" peer $ca --timeout 30 >"$T/cli" 2>&1
    crc=$?
    wait $srv
    src=$?
    if [ $crc -eq 0 ] && [ $src -eq 0 ]; then pass "README: $1: '$2' and '$3' both exit 0"
    else fail "README: $1: client exit $crc, server exit $src: $(tail -c 300 "$T/cli") / $(tail -c 300 "$T/srv")"; fi
}
readme_run "two namespaces" "rocelab peer -x 1" "rocelab peer -x 1 --op write -n 100 10.0.0.2"
grep -q "served write: .* data verified" "$T/srv" || fail "README two namespaces: no data verified"
readme_run "ibv_rc_pingpong -g 1 -n 100" "rocelab peer --compat pingpong -g 1 -n 100" \
    "rocelab peer --compat pingpong -g 1 -n 100 192.0.2.1"
readme_run "ibv_ud_pingpong -g 1 -s 1024 -n 100" "rocelab peer --compat pingpong -t ud -g 1 -s 1024 -n 100" \
    "rocelab peer --client 192.0.2.1 --compat pingpong -t ud -s 1024 -n 100"
readme_run "ibv_uc_pingpong -g 1 -n 100" "rocelab peer --compat pingpong -t uc -g 1 -n 100" \
    "rocelab peer --compat pingpong -t uc -g 1 -n 100 192.0.2.1"
readme_run "ib_send_bw -d rxe0 -x 1 -n 100 10.77.0.1 (rocelab serves)" "rocelab peer --compat ib_send_bw -x 1 -n 100" \
    "rocelab peer --compat ib_send_bw -x 1 -n 100 10.77.0.1"
readme_run "rping" "rocelab peer --compat rping -s -v" "rocelab peer --compat rping -c -a 10.0.0.2 -C 4 -v -V"
readme_run "ucmatose" "rocelab peer --compat ucmatose -c 2 -C 2 -S 64" "rocelab peer --compat ucmatose -s 10.0.0.2 -c 2 -C 2 -S 64"
readme_run "udaddy" "rocelab peer --compat udaddy -C 4" "rocelab peer --compat udaddy -s 10.0.0.2 -C 4"
readme_run "realrxe's ibv_rc_pingpong -g 1 -n 100 10.77.0.1" "rocelab peer --server --compat pingpong -n 100" \
    "rocelab peer --compat pingpong -g 1 -n 100 10.77.0.1"
readme_lines >"$T/readme.lines"
if [ ! -s "$T/readme.lines" ]; then fail "README: no rocelab peer lines found"
elif missing=$(grep -vxF -f "$RAN" "$T/readme.lines"); then fail "README: peer lines no test runs: $missing"
else pass "README: its $(wc -l <"$T/readme.lines") rocelab peer lines all ran"; fi
# --compat ib_*, rocelab at both ends: perftest's exchange, hand shake for hand shake (a wrong count hangs
# one side), its tables at both ends ("#bytes #iterations" as the flags say). The real tools are in
# tests/realrxe. pt_pair TOOL FLAGS [CLIENT-FLAGS...]: server in B, client in A.
pt_rows() { awk '/^ #bytes/ { getline; print $1, $2 }' "$1"; }
# pt_pair_run TOOL FLAGS [CLIENT-FLAGS...]: the run alone; $crc, $src the exit statuses, $T/cli, $T/srv the output.
# pt_pair_run TOOL FLAGS [CLIENT-ARGS...]: one run of the pair under tcpdump. A capture the kernel dropped
# packets from (tcpdump says so when it stops; a loaded machine and a burst of READ responses) cannot be
# judged frame by frame: the run is made again, at most twice.
pt_pair_run() {
    for _try in 1 2 3; do
        pt_pair_once "$@"
        _drops=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel$/\1/p' "$T/td.err")
        [ "${_drops:-0}" -eq 0 ] && return
        echo "     (tcpdump: $_drops packets dropped by the kernel; $1 $2 run again)"
    done
}
pt_pair_once() {
    tool=$1
    flags=$2
    shift 2
    rm -f "$T/cap.pcap" "$T/td.err" "$T/srv.err"
    # shellcheck disable=SC2046  # td_opts: several words
    ip netns exec "$NA" timeout 60 tcpdump -i "$VA" --immediate-mode $(td_opts) -U -n -w "$T/cap.pcap" \
        'udp port 4791 or icmp or (icmp6 and ip6[40] < 128)' >/dev/null 2>"$T/td.err" &
    td=$!
    i=0
    while ! grep -q listening "$T/td.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    # shellcheck disable=SC2086  # the tool's flags, one word each
    ip netns exec "$NB" timeout 60 "$R" peer --compat "$tool" $flags --timeout 20 >"$T/srv" 2>"$T/srv.err" &
    srv=$!
    i=0
    while ! grep -q "waiting for a client" "$T/srv.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    # shellcheck disable=SC2086
    ip netns exec "$NA" timeout 60 "$R" peer --compat "$tool" $flags --timeout 20 "$@" 10.79.0.2 >"$T/cli" 2>&1
    crc=$?
    wait $srv
    src=$?
    sleep 0.3
    kill "$td" 2>/dev/null
    wait "$td" 2>/dev/null
}
pt_pair() {
    pt_pair_run "$@"
    want=$(echo " $flags " | sed -n 's/.* -s \([0-9]*\) .*/\1/p')
    [ -n "$want" ] || case $tool in ib_atomic_bw) want=8 ;; *_lat) want=2 ;; *) want=65536 ;; esac
    want="$want $(echo " $flags " | sed -n 's/.* -n \([0-9]*\) .*/\1/p')"
    rows=1
    [ "$tool" = ib_read_lat ] && rows=0
    sum=$("$R" explain "$T/cap.pcap" 2>&1 | grep -- '^--- ')
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$tool $flags: client exit $crc, server exit $src: $(tail -c 300 "$T/cli") / $(tail -c 300 "$T/srv" "$T/srv.err")"
    elif [ "$(pt_rows "$T/cli")" != "$want" ] || [ "$(pt_rows "$T/srv" | wc -l)" -ne $rows ] ||
         { [ $rows -eq 1 ] && [ "$(pt_rows "$T/srv")" != "$want" ]; }; then
        fail "$tool $flags: the tables: client '$(pt_rows "$T/cli")', server '$(pt_rows "$T/srv")', wanted '$want'"
    elif ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures, 0 unknown opcodes" ||
         [ "$(tcpdump -n -r "$T/cap.pcap" 'icmp or icmp6' 2>/dev/null | wc -l)" -ne 0 ]; then
        fail "$tool $flags: the capture is not clean RoCEv2: $sum"
    else
        pass "$tool $flags: both ends exit 0, their tables say $want, every ICRC ok, no ICMP"
    fi
}
pt_pair ib_send_bw "-s 4096 -n 100"
pt_pair ib_write_bw "-s 4096 -n 100"
pt_pair ib_read_bw "-s 4096 -n 100"
pt_pair ib_atomic_bw "-n 100"
pt_pair ib_send_lat "-n 100"
pt_pair ib_write_lat "-s 64 -n 100"
pt_pair ib_read_lat "-n 100"
pt_pair ib_send_bw "-c UD -s 1024 -n 100"
pt_pair ib_send_lat "-c UD -n 100"
pt_pair ib_send_bw "-c UC -s 4096 -n 100"
pt_pair ib_write_bw "-c UC -s 4096 -n 100"
pt_pair ib_send_lat "-c UC -n 100"
pt_pair ib_write_lat "-c UC -n 100"
pt_pair ib_write_bw "-s 4096 -n 100" --loss 0.05 --seed 3
if grep -q "rocelab peer: [1-9][0-9]* of [0-9]* frames received dropped on purpose by --loss" "$T/cli"; then
    pass "perftest with --loss: $(grep -o '[0-9]* of [0-9]* frames received dropped' "$T/cli")"
else fail "perftest with --loss dropped nothing: $(tail -n 2 "$T/cli")"; fi
# -q N: N data QPs, a key message each in the exchange, -n on each: both tables count N times -n; by tshark's
# fields the requests go to N destination QPs and the answers (ACKs, READ responses) come back to N others
# (with -R two more each way: the exchange's QP and QP1, the CM's).
pt_qps() {
    tool=$1
    n=$2
    flags=$3
    want=$4
    pt_pair_run "$tool" "$flags"
    k=$n
    # -R: also the exchange's QP and QP1 (the CM's MADs)
    case " $flags " in *" -R "*) k=$((n + 2)) ;; esac
    qps=$(run_tshark -r "$T/cap.pcap" -T fields -e ip.src -e infiniband.bth.destqp 2>/dev/null | sort -u |
        awk '{ c[$1]++ } END { for (s in c) printf "%s%d", (k++ ? " " : ""), c[s] }')
    sum=$("$R" explain "$T/cap.pcap" 2>&1 | grep -- '^--- ')
    if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
        fail "$tool $flags: client exit $crc, server exit $src: $(tail -c 300 "$T/cli") / $(tail -c 300 "$T/srv" "$T/srv.err")"
    elif [ "$(pt_rows "$T/cli")" != "$want" ] || [ "$(pt_rows "$T/srv")" != "$want" ]; then
        fail "$tool $flags: the tables: client '$(pt_rows "$T/cli")', server '$(pt_rows "$T/srv")', wanted '$want'"
    elif [ "$(grep -c '^ Number of qps   : '"$n"'	' "$T/cli" "$T/srv" | grep -c ':1$')" -ne 2 ] ||
        [ "$(grep -c '^ local address: ' "$T/cli")" -ne "$n" ] || [ "$(grep -c '^ remote address: ' "$T/srv")" -ne "$n" ]; then
        fail "$tool $flags: the headers do not show $n QPs, $n local and $n remote keys at each end"
    elif [ "$qps" != "$k $k" ]; then
        fail "$tool $flags: by tshark the destination QPs of each side: '$qps', wanted $k from each"
    elif ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures, 0 unknown opcodes"; then
        fail "$tool $flags: the capture is not clean RoCEv2: $sum"
    else
        pass "$tool $flags: both exit 0, both tables $want, $n QPs each way by tshark, every ICRC ok"
    fi
}
pt_qps ib_send_bw 3 "-q 3 -s 4096 -n 50" "4096 150"
pt_qps ib_write_bw 4 "-q 4 -s 4096 -n 50" "4096 200"
pt_qps ib_read_bw 2 "-q 2 -s 4096 -n 50" "4096 100"
pt_qps ib_atomic_bw 2 "-q 2 -n 50" "8 100"
# -R -q 3: the exchange's connection and one for each data QP, four REQs to port 18515 and four DREQs.
pt_qps ib_write_bw 3 "-R -q 3 -s 4096 -n 50" "4096 150"
n=$("$R" explain "$T/cap.pcap" 2>/dev/null | grep -c "CM REQ .*port 18515\|CM DREQ")
if [ "$n" -eq 8 ]; then pass "ib_write_bw -R -q 3: four REQs to port 18515, four DREQs"
else fail "ib_write_bw -R -q 3: $n REQs to port 18515 and DREQs, wanted 8"; fi
# -R: perftest's exchange on a QP of its own and the data QP, both connected by rdma_cm; as tcpdump reads the
# capture, two REQs (service ID of port 18515) and a DREQ each.
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat; do
    case $t in *_bw) f="-R -s 4096 -n 100" ;; *) f="-R -n 100" ;; esac
    [ $t = ib_atomic_bw ] && f="-R -n 100"
    pt_pair $t "$f"
    n=$("$R" explain "$T/cap.pcap" 2>/dev/null | grep -c "CM REQ .*port 18515\|CM DREQ")
    if [ "$n" -eq 4 ]; then pass "$t -R: two REQs to port 18515, two DREQs"
    else fail "$t -R: $n REQs to port 18515 and DREQs, wanted 4"; fi
done
# -R -c UD: the exchange's QP connected as above, the test's UD QP found by SIDR (RDMA_PS_UDP, port 18515).
# By tshark, the CM messages REQ, REP, RTU, SIDR_REQ, SIDR_REP, DREQ, DREP, and every UD SEND of the test with
# rdma_cm's Q_Key (RDMA_UDP_QKEY 0x01234567, which only the SIDR_REP announced), one SEND with immediate
# (ib_send_lat's client, its QPN) before them.
for t in ib_send_bw ib_send_lat; do
    pt_pair $t "-R -c UD -s 1024 -n 100"
    cm=$(run_tshark -r - -Y 'infiniband.bth.destqp == 1' -T fields -e infiniband.mad.attributeid <"$T/cap.pcap" 2>/dev/null | tr '\n' ' ')
    ud=$(run_tshark -r - -Y 'infiniband.bth.destqp != 1 && infiniband.deth' -T fields -e infiniband.bth.opcode \
        -e infiniband.deth.q_key <"$T/cap.pcap" 2>/dev/null | sort | uniq -c | awk '{ printf "%s%s:%s:%s", s, $2, $3, $1; s = " " }')
    want="100:0x0000000001234567:100"
    [ $t = ib_send_lat ] && want="100:0x0000000001234567:200 101:0x0000000001234567:1"
    if [ "$cm" = "0x0010 0x0013 0x0014 0x0017 0x0018 0x0015 0x0016 " ] && [ "$ud" = "$want" ]; then
        pass "$t -R -c UD: by tshark REQ, REP, RTU, SIDR_REQ, SIDR_REP, DREQ, DREP; UD SENDs (opcode:Q_Key:count) $ud"
    else fail "$t -R -c UD: by tshark CM attributes '$cm', UD SENDs '$ud', wanted '$want'"; fi
done
# The two ends disagreeing on -c: the -c UD server refuses the client's RC REQ for the test's QP (REJ 28), both say why.
pt_pair_run ib_send_bw "-R -c UD -s 1024 -n 10" -c RC
if [ $crc -ne 0 ] && [ $src -ne 0 ] && grep -q "REJ reason 28, consumer reject): with -R both ends need the same tool and -c" "$T/cli" &&
    grep -q "asked for the data QP with RC (a REQ in RDMA_PS_TCP), and this side has -c UD" "$T/srv.err"; then
    pass "-R, -c UD server, RC client: both fail, saying the ends need the same -c"
else fail "-R, -c UD server, RC client: exit $crc/$src: $(tail -c 200 "$T/cli") / $(tail -c 200 "$T/srv.err")"; fi
# A CM that answers, but not on port 18515 (rping's server): REJ 8, tried again 10 times, 100 ms apart.
ip netns exec "$NB" timeout 20 "$R" peer --compat rping -s --timeout 8 >/dev/null 2>&1 &
srv=$!
sleep 0.3
IN="ip netns exec $NA" refused "perftest -R: nobody listens on the port (REJ 8, tried 10 times)" \
    "rejected 10 times: nobody listens at 10.79.0.2 port 18515" --compat ib_send_bw -R --timeout 5 10.79.0.2
kill $srv 2>/dev/null
wait $srv 2>/dev/null
# -a: a row for each power of two from 2 to 2^23 at both ends (ib_write_bw's server: the client's last);
# -D 2: one row, the same at both ends for ib_write_bw (the server prints the client's), the size -s says.
pt_all_rows() { awk '/^ #bytes/ { on = 1; next } on && /^-/ { on = 0 } on && NF { print $1, $2 }' "$1"; }
all=$(i=1; while [ $i -le 23 ]; do echo "$((1 << i)) 5"; i=$((i + 1)); done)
for t in ib_send_bw ib_write_bw ib_send_lat; do
    pt_pair_run $t "-a -n 5"
    srv_want=$all
    [ $t = ib_write_bw ] && srv_want="8388608 5"
    if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ "$(pt_all_rows "$T/cli")" = "$all" ] &&
        [ "$(pt_all_rows "$T/srv")" = "$srv_want" ]; then
        pass "$t -a -n 5: both exit 0, the client's 23 rows 2..8388608 bytes, the server's as perftest's"
    else fail "$t -a -n 5: exit $crc/$src, rows '$(pt_all_rows "$T/cli" | tr '\n' ' ')' / '$(pt_all_rows "$T/srv" | tr '\n' ' ')'"; fi
done
# -D 2 with a latency tool: perftest's duration table (t_avg, tps), one row each end, its own count each.
for t in ib_send_lat ib_write_lat; do
    pt_pair_run $t "-D 2"
    if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "^ #bytes        #iterations       t_avg\[usec\]    tps average" "$T/cli" &&
        pt_all_rows "$T/cli" | grep -qE '^2 [1-9][0-9]*$' && pt_all_rows "$T/srv" | grep -qE '^2 [1-9][0-9]*$'; then
        pass "$t -D 2: both exit 0, perftest's duration table, one row each: $(pt_all_rows "$T/cli") / $(pt_all_rows "$T/srv")"
    else fail "$t -D 2: exit $crc/$src, rows '$(pt_all_rows "$T/cli")' / '$(pt_all_rows "$T/srv")'"; fi
done
pt_pair_run ib_write_bw "-D 2 -s 4096"
if [ $crc -eq 0 ] && [ $src -eq 0 ] && pt_all_rows "$T/cli" | grep -qE '^4096 [1-9][0-9]*$' &&
    [ "$(pt_all_rows "$T/cli")" = "$(pt_all_rows "$T/srv")" ]; then
    pass "ib_write_bw -D 2: both exit 0, one row each, the same: $(pt_all_rows "$T/cli")"
else fail "ib_write_bw -D 2: exit $crc/$src, rows '$(pt_all_rows "$T/cli")' / '$(pt_all_rows "$T/srv")'"; fi

# Faults made for real between the two peers (issue 18), completions printed as libibverbs programs
# print them; tshark says what went over the wire. aeth_synd: "PSN SYNDROME" of every AETH from B.
aeth_synd() {
    run_tshark -r - -Y "infiniband.aeth && ip.src == 10.79.0.2" -T fields -e infiniband.bth.psn \
        -e infiniband.aeth.syndrome <"$T/cap.pcap" 2>/dev/null
}
# rnr_naks: the RNR NAKs (syndrome 001xxxxx, IBA 9.7.5.1), one timer code a line.
rnr_naks() { aeth_synd | awk '{ s = $2 + 0 } s >= 32 && s < 64 { print s - 32 }'; }
# No receive at the server: the SEND is RNR NAKed, retried twice (--rnr-retry 2), then fails.
pair_run "--server --no-recv" --client "$ADDR" --op send --size 64 --iters 4 --rnr-retry 2
first=$(run_tshark -r - -Y "infiniband && ip.src == 10.79.0.1" -T fields -e infiniband.bth.psn <"$T/cap.pcap" 2>/dev/null | head -n 1)
tries=$(run_tshark -r - -Y "infiniband && ip.src == 10.79.0.1 && infiniband.bth.psn == ${first:-0}" <"$T/cap.pcap" 2>/dev/null | wc -l)
# (an ICMP error quoting a NAK would count too: the client stays on the wire after its failure, so there is none)
if [ $crc -ne 0 ] && [ $src -ne 0 ] && [ "$(tcpdump -n -r "$T/cap.pcap" icmp 2>/dev/null | wc -l)" = 0 ] &&
    grep -q "completion error: IBV_WC_RNR_RETRY_EXC_ERR (13), wr_id 0, opcode IBV_WC_SEND, qp 0x11" "$T/cli" &&
    grep -q "completion error: IBV_WC_WR_FLUSH_ERR (5), wr_id 1, opcode IBV_WC_SEND" "$T/cli" &&
    grep -q "\.\.\. and 2 more IBV_WC_WR_FLUSH_ERR" "$T/cli" && grep -q "QP 0x11 is in IBV_QPS_ERR" "$T/cli" &&
    grep -q "RNR NAKs sent: 3 " "$T/srv" && ! grep -q "IBV_QPS_ERR" "$T/srv" &&
    [ "$(rnr_naks | wc -l)" = 3 ] && [ "$tries" = 3 ]; then
    pass "--no-recv, --rnr-retry 2: 3 RNR NAKs (first try + 2 retries), IBV_WC_RNR_RETRY_EXC_ERR, 3 flushed, the server's QP stays in RTS"
else fail "--no-recv --rnr-retry 2: exit $crc/$src, $(rnr_naks | wc -l) RNR NAKs, PSN $first sent $tries times: $(grep -h 'completion\|RNR\|QP 0x' "$T/cli" "$T/srv" | head -6 | tr '\n' ' ')"; fi
# Receives posted late: the first SENDs meet RNR NAKs (timer 12, the default), are retried for ever, get through.
pair_cmd "--recv-delay 200" "--server --recv-delay 200" --client "$ADDR" --op send --size 64 --iters 20
if [ "$(rnr_naks | sort -u)" = 12 ] && grep -q "RNR NAKs sent: [1-9]" "$T/srv" && grep -q "RNR NAKs received: [1-9]" "$T/cli"
then pass "--recv-delay 200: $(rnr_naks | wc -l) RNR NAKs with timer 12 on the wire, then every SEND delivered"
else fail "--recv-delay 200: RNR timers on the wire '$(rnr_naks | sort -u | tr '\n' ' ')', $(grep -h 'RNR NAKs' "$T/cli" "$T/srv" | tr '\n' ' ')"; fi
# --min-rnr-timer 14: every RNR NAK's AETH carries 14 (1.28 ms, IBA Table 46), and the requester waits that long.
pair_cmd "--min-rnr-timer 14" "--server --recv-delay 100 --min-rnr-timer 14" --client "$ADDR" --op send --size 64 --iters 5
gap=$(run_tshark -r - -Y "infiniband.aeth && ip.src == 10.79.0.2" -T fields -e frame.time_epoch -e infiniband.aeth.syndrome \
    <"$T/cap.pcap" 2>/dev/null | awk '$2 + 0 == 46 { if (t) { d = ($1 - t) * 1000; if (!m || d < m) m = d } t = $1 } END { printf "%.2f", m }')
if [ "$(rnr_naks | sort -u)" = 14 ] && awk -v g="$gap" 'BEGIN { exit !(g >= 1.28) }'
then pass "--min-rnr-timer 14: every RNR NAK's syndrome says timer 14, at least $gap ms apart (1.28 ms asked)"
else fail "--min-rnr-timer 14: timers '$(rnr_naks | sort -u | tr '\n' ' ')', shortest gap $gap ms"; fi
# -u 12: a request lost (or its ACK) is sent again after 4.096 us * 2^12 = 16.8 ms, not the default's 67 ms.
pair_cmd "-u 12 with 30% loss at the server" "--server --loss 0.3 --seed 3" --client "$ADDR" --op send --size 64 \
    --iters 20 -w 1 -u 12
resent=$(run_tshark -r - -Y "infiniband && ip.src == 10.79.0.1" -T fields -e frame.time_epoch -e infiniband.bth.psn \
    <"$T/cap.pcap" 2>/dev/null | awk '{ if ($2 in t) printf "%.1f\n", ($1 - t[$2]) * 1000; t[$2] = $1 }')
if [ -n "$resent" ] && echo "$resent" | awk '$1 < 16.7 || $1 > 50 { bad = 1 } END { exit bad }'
then pass "-u 12: $(echo "$resent" | wc -l) requests sent again, each $(echo "$resent" | sort -n | head -n 1)..$(echo "$resent" | sort -n | tail -n 1) ms after the last try"
else fail "-u 12: resends after '$(echo "$resent" | tr '\n' ' ')' ms"; fi
# A wrong R_Key: NAK remote access error; IBV_WC_REM_ACCESS_ERR at the client, the server's QP in error too.
pair_run "--server" --client "$ADDR" --op write --size 1024 --iters 4 --bad-rkey
if [ $crc -ne 0 ] && [ "$(tcpdump -n -r "$T/cap.pcap" icmp 2>/dev/null | wc -l)" = 0 ] &&
    grep -q "completion error: IBV_WC_REM_ACCESS_ERR (10), wr_id 0, opcode IBV_WC_RDMA_WRITE, qp 0x11" "$T/cli" &&
    grep -q "QP 0x11 is in IBV_QPS_ERR: R_Key not valid.*answered with NAK remote access error" "$T/srv" &&
    [ "$(aeth_synd | awk '{ print $2 }' | tr '\n' ' ')" = "98 " ]; then
    pass "--bad-rkey: one NAK 0x62 on the wire, IBV_WC_REM_ACCESS_ERR at the client, the server's QP in IBV_QPS_ERR"
else fail "--bad-rkey: exit $crc, syndromes '$(aeth_synd | tr '\n' ' ')': $(grep -h 'completion error\|IBV_QPS' "$T/cli" "$T/srv" | tr '\n' ' ')"; fi
# -Q 4: a completion for one work request in four; the run is whole.
pair "write -Q 4" --op write --size 4096 --iters 1000 -Q 4
if grep -q "completions: 250 for 1000 work requests (-Q 4" "$T/cli"; then pass "-Q 4: 250 completions for 1000 WRITEs"
else fail "-Q 4: $(grep completions "$T/cli")"; fi

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

left=$(ip netns pids "$NA" 2>/dev/null; ip netns pids "$NB" 2>/dev/null)
if [ -n "$left" ]; then fail "still running in the namespaces after the last run: $(ps -o comm= -p $left | tr '\n' ' ')"
else pass "nothing left running in the namespaces (no peer, no tcpdump)"; fi
cleanup
# --rate, --cc dcqcn and the per-second lines, in namespaces of their own (cc.sh).
if sh "$(dirname "$0")/cc.sh" "$R"; then pass "congestion control options (cc.sh)"
else fail "congestion control options (cc.sh): its FAIL lines above"; fi
echo "peer: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
