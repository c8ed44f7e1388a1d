#!/bin/sh
# Lab 15, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
    -e infiniband.reth.r_key -e infiniband.aeth.syndrome 2>/dev/null |
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
# Only with Immediate 5; RDMA WRITE First 6 .. Only with Immediate 11; RDMA READ Request 12;
# READ Response First 13, Middle 14, Last 15, Only 16; Acknowledge 17; ATOMIC Acknowledge 18.
function response(op) { return op >= 13 && op <= 18 }
# Is PSN a at or after PSN b, in 24-bit serial arithmetic?
function psn_ge(a, b) { return (a - b + 16777216) % 16777216 < 8388608 }
{
    src = $1 != "" ? $1 : $2
    op = $3 + 0
    if (!response(op) && client == "") { client = src; dqp = num($4) }
    mine = src == client
    # 1: the first SEND of the client, packet by packet to its Last (an Only is one packet)
    if (mine && !sdone && op <= 5) {
        if (!sn && (op == 0 || op == 4 || op == 5)) sqp = $4
        if (sn || op == 0 || op == 4 || op == 5) if ($4 == sqp) { sn++; if (op >= 2) sdone = 1 }
    }
    # 3: the first RDMA WRITE of the client (First, Only, Only with Immediate carry the RETH)
    if (mine && op >= 6 && op <= 11 && !wseen) { wseen = 1; if ($6 != "") rkey = $6 }
    # 4: the responses to the first READ request, from its PSN on, to the Last (or Only)
    if (mine && op == 12 && rpsn == "") rpsn = num($5)
    else if (!mine && rpsn != "" && !rdone && op >= 13 && op <= 16 && psn_ge(num($5), rpsn)) {
        rn++
        if (op >= 15) rdone = 1
    }
    # 5: the ACKs of the server before the first RDMA WRITE (AETH syndrome bits 6-5 00: ACK, IBA 9.7.5.1)
    if (!mine && op == 17 && !wseen && $7 != "" && int(num($7) / 32) == 0) acks++
}
END {
    if (sdone) print "1: " sn
    if (client != "") printf "2: 0x%x\n", dqp
    if (rkey != "") printf "3: 0x%x\n", num(rkey)
    if (rdone) print "4: " rn
    if (client != "") print "5: " acks + 0
}'
