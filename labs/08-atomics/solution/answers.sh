#!/bin/sh
# Lab 08, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
# The 64-bit values stay the strings tshark prints (decimal): awk's numbers
# are doubles and would round them. A capture without CmpSwap (the --gen one)
# gets no answers 4 and 5.
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.atomiceth.swapdt -e infiniband.atomiceth.cmpdt -e infiniband.atomicacketh.origremdt 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
# The original value of the first ATOMIC Acknowledge (18) from the server after frame i with PSN psn.
function orig(i, psn,    j) {
    for (j = i + 1; j <= n; j++)
        if (op[j] == 18 && src[j] != client && p[j] == psn)
            return org[j]
    return ""
}
{
    n++
    src[n] = $2; op[n] = $3; p[n] = $4; swp[n] = $5; cmp[n] = $6; org[n] = $7
    if (!response($3) && client == "") client = $2
}
END {
    for (i = 1; i <= n; i++) {
        if (src[i] != client) continue
        if (op[i] == 20) { if (!fa1) fa1 = i; fa2 = i }   # RC FetchAdd
        if (op[i] == 19) { if (!cs1) cs1 = i; cs2 = i }   # RC CmpSwap
    }
    if (fa1) {
        print "1: " swp[fa1]
        if ((v = orig(fa1, p[fa1])) != "") print "2: " v
        if ((v = orig(fa2, p[fa2])) != "") print "3: " v
    }
    if (cs1) {
        print "4: " cmp[cs1]
        if ((v = orig(cs2, p[cs2])) != "") print "5: " v
    }
}'
