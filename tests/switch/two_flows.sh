#!/bin/sh
# Two RoCE flows through one bottleneck, the figures of one run: namespaces A
# and B each run `rocelab peer --client` (RDMA WRITEs, -D SECONDS, --rate at
# the link's rate) to one of two `rocelab peer --server`s in C (addresses
# .3 and .4, ports 18515 and 18516), through `rocelab switch` in a router
# namespace whose port towards C is the bottleneck (every port runs at
# RATE; only C's carries two flows). Made here with unique names, removed on
# any exit; every command under timeout.
#
# Printed, one "name value" a line, each from a tool rocelab did not write
# except the switch's own counts (sw_*), which are there to be cross-checked:
#   in_frames    frames A and B sent towards C (tcpdump -Q out on A and B:
#                unicast to C's MAC, and broadcasts, which the switch floods)
#   out_frames   frames that reached C (tcpdump on C, what C did not send itself)
#   lost         in_frames - out_frames: what the router did not deliver
#   sw_dropped sw_tail sw_notect sw_marked sw_in  the switch's summary, C's port
#   sw_kernel    1 if the switch said the kernel dropped frames before it read them
#   ce           frames arriving at C CE-marked (tshark: ip.dsfield.ecn == 3)
#   cnps         CNPs C sent (tshark: infiniband.bth.opcode == 129)
#   resent       requests C received twice: a (QP, PSN) seen again (tshark), go-back-N
#   mbps_a mbps_b  each flow's data at C in Mb/s (tshark frame.time_epoch and
#                frame.len per ip.dst and infiniband.bth.destqp: both servers
#                may have the same QPN) over the steady part:
#                from 1 s after the first frame to 0.5 s before the last
#   mbps_sum jain  their sum, and Jain's index (a+b)^2 / 2(a^2+b^2)
#   ok_a ok_b    1 if that client exited 0 (its WRITEs all completed)
#   tcpdump_lost_X 1 when tcpdump at A, B or C said it dropped frames (then the counts are short)
# The clients send 4 KiB WRITEs, 16 outstanding (TWO_FLOWS_SIZE changes the size, TWO_FLOWS_PEER
# adds client options), DCQCN with the paper's parameters. With 64 KiB ones (1 MiB outstanding)
# DCQCN did not settle at 0.2 Gb/s: 52622 of 88205 frames marked, 19008 CNPs, shares 67/119 Mb/s.
# DCQCN does not hold the queue here: the windows do, so the queue (--queue) must hold both, and the
# default 400 KB does. Measured at 0.2 Gb/s with --kmin 5 --kmax 60 --pmax 0.01 (tcpdump at A and C,
# tshark times): a CE mark (made as the frame joins the queue) reaches its sender as a CNP 4.5 ms
# later (median; 90% within 9 ms): the queue's own wait, the switch and peers being processes on
# shared cores. DCQCN's T and K are 55 us: within 0.3 ms of a cut fast recovery has Rc back near
# Rt, and additive increase then adds 40 Mb/s each 55 us, so Rc is at the 0.2 Gb/s cap again
# long before the next CNP (each client's per-second lines: Rc 200 Mb/s). Each flow sends what
# its 16 x 4 KiB WRITEs allow, and the queue fills with both windows, about 135 KB of frames:
# with --queue 100, 400-25,000 frames were lost in 4 s over 7 runs (go-back-N resends add to them);
# with -w 8 (both windows 67 KB, the queue's maximum) none were. Feedback in ms against timers
# in us is inherent to user-space peers on veths, not something DCQCN's parameters here can fix.
# TWO_FLOWS_KEEP=DIR keeps the switch's and the clients' output there.
# Usage: two_flows.sh ROCELAB none|dcqcn SECONDS RATE_GBPS [switch options...]
set -u
. "$(dirname "$0")/../lib/tshark.sh"    # run_tshark
R=${1:?usage: two_flows.sh ROCELAB none|dcqcn SECONDS RATE_GBPS [switch options]}
CC=${2:?}
SECS=${3:?}
RATE=${4:?}
shift 4
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
PEER_ARGS=${TWO_FLOWS_PEER:-}   # more options for both clients
T=$(mktemp -d)
chmod 755 "$T"
NA=rlfa$$
NB=rlfb$$
NC=rlfc$$
NR=rlfr$$
PIDS=
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for n in "$NA" "$NB" "$NC" "$NR"; do ip netns del "$n" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$(dirname "$0")/topo.sh"
topo_setup || exit 1
ip -n "$NC" addr add 10.23.0.4/24 dev eth0
MC=$(ip -n "$NC" -o link show eth0 | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')

ip netns exec "$NR" timeout $((SECS + 60)) "$R" switch r1 r2 r3 --rate "$RATE" "$@" >"$T/sw.out" 2>"$T/sw.err" &
SW=$!
PIDS="$SW"
# capture NS FILE DIRECTION: tcpdump on NS's eth0, the first 96 bytes of each frame (frame.len keeps the length).
capture() {
    ip netns exec "$1" timeout $((SECS + 60)) tcpdump -i eth0 -Q "$3" -B 65536 --immediate-mode -s 96 -U -n \
        -w "$2" >/dev/null 2>"$2.err" &
    PIDS="$PIDS $!"
    i=0
    while ! grep -q listening "$2.err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
capture "$NA" "$T/a.pcap" out
capture "$NB" "$T/b.pcap" out
capture "$NC" "$T/c.pcap" inout
ip netns exec "$NC" timeout $((SECS + 60)) "$R" peer --server -p 18515 --cc "$CC" --timeout 30 >"$T/srv1" 2>&1 &
S1=$!
ip netns exec "$NC" timeout $((SECS + 60)) "$R" peer --server -p 18516 --cc "$CC" --timeout 30 >"$T/srv2" 2>&1 &
S2=$!
PIDS="$PIDS $S1 $S2"
sleep 0.5
# shellcheck disable=SC2086  # PEER_ARGS: options, one word each
ip netns exec "$NA" timeout $((SECS + 60)) "$R" peer --client 10.23.0.3 -p 18515 --op write --size "${TWO_FLOWS_SIZE:-4096}" -D "$SECS" \
    --rate "$RATE" --cc "$CC" $PEER_ARGS --timeout 30 >"$T/cli1" 2>&1 &
C1=$!
# shellcheck disable=SC2086  # as above
ip netns exec "$NB" timeout $((SECS + 60)) "$R" peer --client 10.23.0.4 -p 18516 --op write --size "${TWO_FLOWS_SIZE:-4096}" -D "$SECS" \
    --rate "$RATE" --cc "$CC" $PEER_ARGS --timeout 30 >"$T/cli2" 2>&1 &
C2=$!
wait "$C1"
ok_a=$(($? == 0))
wait "$C2"
ok_b=$(($? == 0))
wait "$S1" "$S2"
sleep 0.5
for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
PIDS=

count() { tcpdump -n -r "$1" ${2:+"$2"} 2>/dev/null | wc -l; }
in_frames=$(($(count "$T/a.pcap" "ether dst $MC or ether broadcast") + $(count "$T/b.pcap" "ether dst $MC or ether broadcast")))
out_frames=$(count "$T/c.pcap" "not ether src $MC")
swfield() { grep '^\[.*\] r3 *all' "$T/sw.out" | sed -n "s/.*[ (]$1 \([0-9]*\).*/\1/p"; }
echo "in_frames $in_frames"
echo "out_frames $out_frames"
echo "lost $((in_frames - out_frames))"
echo "sw_dropped $(swfield dropped)"
echo "sw_tail $(swfield tail)"
echo "sw_notect $(swfield not-ECT)"
echo "sw_marked $(swfield marked)"
echo "sw_in $(swfield in)"
if grep -q 'dropped by the kernel' "$T/sw.out"; then echo "sw_kernel 1"; else echo "sw_kernel 0"; fi
for f in a b c; do
    grep -q '^0 packets dropped by kernel' "$T/$f.pcap.err" || echo "tcpdump_lost_$f 1"
done
# The requests at C: "epoch len ip.dst destqp psn ecn" a line (both servers may have the same QPN).
run_tshark -r - -Y 'infiniband && eth.src != '"$MC" -T fields -e frame.time_epoch \
    -e frame.len -e ip.dst -e infiniband.bth.destqp -e infiniband.bth.psn -e ip.dsfield.ecn <"$T/c.pcap" >"$T/req" 2>/dev/null
echo "ce $(awk '$6 == 3' "$T/req" | wc -l)"
echo "cnps $(run_tshark -r - -Y 'infiniband.bth.opcode == 129 && eth.src == '"$MC" -T fields -e frame.number \
    <"$T/c.pcap" 2>/dev/null | wc -l)"
echo "resent $(awk '{ print $3, $4, $5 }' "$T/req" | sort | uniq -d | wc -l)"
awk '
    NR == 1 { t0 = $1 } { t1 = $1; e[NR] = $1; l[NR] = $2; q[NR] = $3 "/" $4 }
    END {
        lo = t0 + 1; hi = t1 - 0.5
        for (i = 1; i <= NR; i++) if (e[i] >= lo && e[i] < hi) { b[q[i]] += l[i]; seen[q[i]] = 1 }
        n = 0
        for (k in seen) r[n++] = b[k] * 8 / (hi - lo) / 1e6
        a = n > 0 ? r[0] : 0; c = n > 1 ? r[1] : 0
        printf "mbps_a %.1f\nmbps_b %.1f\nmbps_sum %.1f\n", a, c, a + c
        printf "jain %.3f\n", (a * a + c * c > 0 ? (a + c) ^ 2 / (2 * (a * a + c * c)) : 0)
        printf "flows %d\n", n
    }' "$T/req"
echo "ok_a $ok_a"
echo "ok_b $ok_b"
[ -n "${TWO_FLOWS_KEEP:-}" ] && cp "$T/sw.out" "$T/cli1" "$T/cli2" "$TWO_FLOWS_KEEP/" 2>/dev/null
true
