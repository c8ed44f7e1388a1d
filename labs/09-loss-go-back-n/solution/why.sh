#!/bin/sh
# Lab 09, the multiple-choice answers: w1 read off a capture with Wireshark's own InfiniBand
# dissector (tshark), the rest from why.txt (the IBA's clauses beside them).
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
CAP=${1:?usage: why.sh CAPTURE}
HERE=$(dirname "$0")
# w1: which request the first PSN sequence error NAK (Acknowledge, opcode 17, syndrome 0x60)
# answers, and which PSN it carries. The lost packet is the first one the client sends again after
# that NAK (a PSN it had sent before, to the same QP). The options, in lab.def's order: a the lost
# packet, with its PSN; b the last packet in order, with its PSN (the NAK's PSN is the lost one's
# less 1); c the first after the gap, with its own PSN (the lost one's plus 1); d the first after the
# gap, with the lost one's PSN: the NAK's PSN is the lost one's and the packet after it had gone out
# before the NAK (without it, a). Responses are opcodes 13 to 18 (IBA Table 38).
tshark -r "$CAP" -Y 'infiniband.bth' -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
function diff(a, b) { d = (a - b) % 16777216; if (d < 0) d += 16777216; return d >= 8388608 ? d - 16777216 : d }
{ resp = $4 >= 13 && $4 <= 18 }
!resp && client == "" { client = $1 }
resp && $4 == 17 && $5 == 96 && nak == "" { nak = $3; next }
resp || $1 != client || lost != "" { next }
nak != "" && ($2, $3) in sent { lost = $3; qp = $2; next }
nak == "" { before[$2, $3] = 1 }
{ sent[$2, $3] = 1 }
END {
    if (lost == "") exit
    d = diff(nak, lost)
    if (d == 1) print "w1: c"
    else if (d == -1) print "w1: b"
    else if (d == 0) print "w1: " ((qp, (lost + 1) % 16777216) in before ? "d" : "a")
}'
grep -o '^w[0-9]*: [a-f]' "$HERE/why.txt"
