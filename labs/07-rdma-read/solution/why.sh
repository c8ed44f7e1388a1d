#!/bin/sh
# Lab 07, the multiple-choice answers: w2 read off a capture with Wireshark's own InfiniBand
# dissector (tshark), the rest from why.txt (the IBA's clauses beside them).
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
CAP=${1:?usage: why.sh CAPTURE}
HERE=$(dirname "$0")
grep -o '^w[0-9]*: [a-f]' "$HERE/why.txt"
# w2: which responses to the first READ carry an AETH, if there are three or more. Opcodes (IBA
# Table 38): 12 READ Request; responses 13 First, 14 Middle, 15 Last, 16 Only. The options, in
# lab.def's order: a every response, b First and Last, c First only, d Last only, e none.
tshark -r "$CAP" -Y 'infiniband.bth.opcode >= 12 && infiniband.bth.opcode <= 16' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
$1 == 12 { req = 1; next }
!req || done { next }
{ has = $2 != "" }
$1 == 13 { n = 1; first = has; mid_any = 0; mid_all = 1; next }
n && $1 == 14 { n++; if (has) mid_any = 1; else mid_all = 0; next }
n && $1 == 15 {
    done = 1
    if (++n < 3) next
    if (first && mid_all && has) print "w2: a"
    else if (!mid_any) print "w2: " (first ? (has ? "b" : "c") : (has ? "d" : "e"))
}
$1 == 16 { done = 1 }'
