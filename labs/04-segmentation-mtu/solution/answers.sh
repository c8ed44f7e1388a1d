#!/bin/sh
# Lab 04, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
# A question the capture cannot answer (the rocelab gen capture holds one
# SEND, not four) is left out.
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e frame.number -e ip.src -e udp.length -e infiniband.bth.opcode -e infiniband.bth.destqp \
    -e infiniband.bth.padcnt -e infiniband.bth.psn 2>/dev/null |
awk -F '\t' '
# The low 5 bits of the OpCode name the operation, the high 3 the transport (IBA 9.2, Table 38).
# SEND: 0 First, 1 Middle, 2 Last, 3 Last with Immediate, 4 Only, 5 Only with Immediate,
# 22 Last with Invalidate, 23 Only with Invalidate; RDMA WRITE: 6 First, 7 Middle, 8 Last,
# 9 Last with Immediate, 10 Only, 11 Only with Immediate.
function low(op) { return op % 32 }
function in_msg(l) { return l <= 11 || l == 22 || l == 23 }
function starts(l) { return l == 0 || l == 4 || l == 5 || l == 6 || l == 10 || l == 11 || l == 23 }
function ends(l) { return l != 0 && l != 1 && l != 6 && l != 7 }
{
    op = $4 + 0; l = low(op); key = $2 "/" $5
    if (!in_msg(l)) next
    if ((key, $7) in seen) next            # a resend: this sender used the PSN before
    seen[key, $7] = 1
    if (starts(l)) {
        n = ++msgs; cur[key] = n; pkts[n] = 0; pad[n] = $6
    } else if (key in cur) {
        n = cur[key]
    } else {
        next                               # the start of this message is not in the capture
    }
    pkts[n]++
    if (l == 1 && mid_op == "") mid_op = op
    if (l == 1 && !(n in mid_len)) mid_len[n] = $3
    if (ends(l)) delete cur[key]
}
END {
    for (i = 1; i <= 3; i++)
        if (i <= msgs) print i ": " pkts[i]
    if (mid_op != "") print "4: " mid_op
    if (msgs >= 4) print "5: " pad[4]
    if (2 in mid_len) print "6: " mid_len[2]
}'
