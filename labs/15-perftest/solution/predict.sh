#!/bin/sh
# Lab 15, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark), in the ib_send_bw step (the frames before the
# client's first RDMA WRITE): the packets of the first SEND, the client's SEND packets in all, and
# the MSN of the server's last ACK.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
    -e infiniband.aeth.syndrome -e infiniband.aeth.msn 2>/dev/null |
awk -F '\t' '
# A number as tshark prints it: decimal, or hex with 0x.
function num(s,    v, i, c) {
    if (s !~ /^0[xX]/) return s + 0
    v = 0
    for (i = 3; i <= length(s); i++) {
        c = index("0123456789abcdef", tolower(substr(s, i, 1)))
        v = v * 16 + c - 1
    }
    return v
}
# RC opcodes (IBA 9.2, Table 38): SEND First 0, Middle 1, Last 2, Last with Immediate 3, Only 4,
# Only with Immediate 5; RDMA WRITE 6 .. 11; READ responses 13 .. 16, Acknowledge 17, ATOMIC
# Acknowledge 18: the responder'"'"'s.
function response(op) { return op >= 13 && op <= 18 }
{
    src = $1 != "" ? $1 : $2
    op = $3 + 0
    if (!response(op) && client == "") client = src
    mine = src == client
    if (mine && op >= 6 && op <= 11) exit   # ib_write_bw has begun
    # p1: the first SEND, packet by packet to its Last (an Only is one packet)
    if (mine && !sdone && op <= 5) {
        if (!sn && (op == 0 || op == 4 || op == 5)) sqp = $4
        if (sn || op == 0 || op == 4 || op == 5) if ($4 == sqp) { sn++; if (op >= 2) sdone = 1 }
    }
    # p2: every SEND packet, a PSN sent again counted once
    if (mine && op <= 5 && !(($4, $5) in seen)) { seen[$4, $5] = 1; sends++ }
    # p3: the ACKs (AETH syndrome bits 6-5 00, IBA 9.7.5.1); the MSN of the last
    if (!mine && op == 17 && $6 != "" && int(num($6) / 32) == 0) msn = num($7)
}
END { printf "p1: %d\np2: %d\np3: %d\n", sn, sends, msn }'
