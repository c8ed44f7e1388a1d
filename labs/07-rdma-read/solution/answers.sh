#!/bin/sh
# Lab 07, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
# A question the capture cannot answer (the rocelab gen capture holds one
# READ, so no second one) is left out.
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth 2>/dev/null |
awk -F '\t' '
# RC opcodes (IBA 9.2, Table 38): 12 RDMA READ Request; 13 READ response First, 14 Middle,
# 15 Last, 16 Only; 17 Acknowledge; 18 ATOMIC Acknowledge. Responses are 13-18.
function response(op) { return op >= 13 && op <= 18 }
# PSNs are 24 bits: b is at or after a if b - a, modulo 2^24, is less than 2^23 (IBA 9.7.2).
function dist(a, b) { return (b - a + 16777216) % 16777216 }
{
    op = $3 + 0; psn = $4 + 0
    if (!response(op) && client == "") client = $2
    if (op == 12 && $2 == client) {
        if (!((psn) in req_seen)) {      # a resent request uses a PSN again: not a new READ
            req_seen[psn] = 1
            reads++
            if (reads == 1) first = psn
            if (reads == 2) step = dist(first, psn)
        }
        if (first_resp == "") before++
    }
    if (op >= 13 && op <= 16 && $2 != client) {
        if (first_resp == "") first_resp = $1
        if (reads >= 1 && last_frame == "" && dist(first, psn) < 8388608) {
            n++
            if ($5 != "") with_aeth++
            if (op == 15 || op == 16) last_frame = $1
        }
    }
}
END {
    if (last_frame != "") {
        print "1: " n
    }
    if (reads >= 2) print "2: " step
    if (last_frame != "") {
        print "3: " with_aeth + 0
        print "4: " last_frame
    }
    if (first_resp != "") print "5: " before + 0
}'
