#!/bin/sh
# Lab 04, the multiple-choice answers: w1 read off a capture with Wireshark's own InfiniBand
# dissector (tshark), the rest from why.txt (the IBA's clauses beside them).
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
CAP=${1:?usage: why.sh CAPTURE}
HERE=$(dirname "$0")
# w1: the A bit (AckReq) of each packet of the client's first SEND of three or more packets.
# SEND opcodes (IBA Table 38): 0 First, 1 Middle, 2 Last, 3 Last with Immediate. The options, in
# lab.def's order: a every packet, b First and Last, c First only, d Last only, e none.
tshark -r "$CAP" -Y 'infiniband.bth.opcode <= 3' -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode -e infiniband.bth.a 2>/dev/null |
awk -F '\t' '
NR == 1 { client = $1 }
$1 != client || done || ($2, $3) in seen { next }
{ seen[$2, $3] = 1 }
$4 == 0 { n = 1; qp = $2; first = $5; mid_any = 0; mid_all = 1; next }
n && $2 == qp && $4 == 1 { n++; if ($5) mid_any = 1; else mid_all = 0; next }
n && $2 == qp && ($4 == 2 || $4 == 3) {
    if (++n >= 3) {
        done = 1
        if (first && mid_all && $5) print "w1: a"
        else if (!mid_any) print "w1: " (first ? ($5 ? "b" : "c") : ($5 ? "d" : "e"))
    }
    n = 0
}'
grep -o '^w[0-9]*: [a-f]' "$HERE/why.txt"
