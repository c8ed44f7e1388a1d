#!/bin/sh
# Lab 06, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
    -e infiniband.reth.va -e infiniband.reth.r_key -e infiniband.reth.dmalen -e infiniband.immdt 2>/dev/null |
awk -F '\t' '
# The low 5 bits of the OpCode name the operation (IBA 9.2, Table 38). SEND: 0 First, 1 Middle,
# 2 Last, 3 Last with Immediate, 4 Only, 5 Only with Immediate, 22/23 with Invalidate;
# RDMA WRITE: 6 First, 7 Middle, 8 Last, 9 Last with Immediate, 10 Only, 11 Only with Immediate.
function low(op) { return op % 32 }
function in_msg(l) { return l <= 11 || l == 22 || l == 23 }
function starts(l) { return l == 0 || l == 4 || l == 5 || l == 6 || l == 10 || l == 11 || l == 23 }
function ends(l) { return l != 0 && l != 1 && l != 6 && l != 7 }
# "0x0000000010000000" -> "0x10000000"; Immediate Data comes as bare hex digits.
function hex(s) {
    sub(/^0[xX]/, "", s)
    sub(/^0+/, "", s)
    return "0x" (s == "" ? "0" : s)
}
{
    op = $3 + 0; l = low(op); key = $2 "/" $4
    if ($7 != "" && rkey == "") { rkey = hex($7); dmalen = $8; va = hex($6) }
    if ($9 != "" && imm == "") { imm = "0x" $9; imm_op = op }
    if (!in_msg(l)) next
    if ((key, $5) in seen) next            # a resend: this sender used the PSN before
    seen[key, $5] = 1
    if (starts(l)) {
        n = ++msgs; cur[key] = n; pkts[n] = 0; write[n] = l >= 6 && l <= 11
    } else if (key in cur) {
        n = cur[key]
    } else {
        next                               # the start of this message is not in the capture
    }
    pkts[n]++
    if (ends(l)) delete cur[key]
}
END {
    if (rkey != "") {
        print "1: " rkey
        print "2: " dmalen
        print "3: " va
    }
    if (msgs >= 1 && write[1]) print "4: " pkts[1]
    if (imm != "") {
        print "5: " imm
        print "6: " imm_op
    }
}'
