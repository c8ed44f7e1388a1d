#!/bin/sh
# Lab 13, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
# Tab-separated, so that an empty field (no DETH) stays a field of its own.
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e udp.length -e infiniband.bth.opcode \
    -e infiniband.deth.q_key -e infiniband.deth.srcqp 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
# tshark prints 0x-hex with leading zeros (Wireshark 4.0 shows the Q_Key as 64 bits): 0x0000000011111111 -> 0x11111111
function hex(v,    s) {
    if (v !~ /^0[xX]/) return sprintf("0x%x", v + 0)
    s = tolower(substr(v, 3))
    sub(/^0+/, "", s)
    return "0x" (s == "" ? "0" : s)
}
{
    src = $1 != "" ? $1 : $2
    if (!response($4) && client == "") client = src
    if ($5 != "" && qkey == "") qkey = hex($5)
    if (src == client) {
        if (op == "") { op = $4; udplen = $3 }
        if ($6 != "" && srcqp == "") srcqp = hex($6)
    }
    if ($4 == 17) acks++
}
END {
    if (qkey != "") print "1: " qkey
    if (srcqp != "") print "2: " srcqp
    if (op != "") print "3: " op
    print "4: " acks + 0
    if (udplen != "") print "5: " udplen
}'
