#!/bin/sh
# Lab 06, the multiple-choice answers: w2 read off a capture with Wireshark's own InfiniBand
# dissector (tshark), the rest from why.txt (the IBA's clauses beside them).
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
CAP=${1:?usage: why.sh CAPTURE}
HERE=$(dirname "$0")
grep -o '^w[0-9]*: [a-f]' "$HERE/why.txt"
# w2: which packets of the client's first RDMA WRITE of three or more packets carry a RETH.
# WRITE opcodes (IBA Table 38): 6 First, 7 Middle, 8 Last, 9 Last with Immediate. The options, in
# lab.def's order: a every packet, b First and Last, c First only, d Last only, e none.
tshark -r "$CAP" -Y 'infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 9' -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode -e infiniband.reth.r_key 2>/dev/null |
awk -F '\t' '
NR == 1 { client = $1 }
$1 != client || done || ($2, $3) in seen { next }
{ seen[$2, $3] = 1; has = $5 != "" }
$4 == 6 { n = 1; qp = $2; first = has; mid_any = 0; mid_all = 1; next }
n && $2 == qp && $4 == 7 { n++; if (has) mid_any = 1; else mid_all = 0; next }
n && $2 == qp && ($4 == 8 || $4 == 9) {
    if (++n >= 3) {
        done = 1
        if (first && mid_all && has) print "w2: a"
        else if (!mid_any) print "w2: " (first ? (has ? "b" : "c") : (has ? "d" : "e"))
    }
    n = 0
}'
