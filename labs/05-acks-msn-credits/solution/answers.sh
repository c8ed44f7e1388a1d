#!/bin/sh
# Lab 05, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.a \
    -e infiniband.aeth.syndrome -e infiniband.aeth.msn 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
# The AckReq bit, however tshark spells a boolean.
function set(b) { return b == "1" || b == "True" || b == "true" }
{
    if (!response($3) && client == "") client = $2
    if (!response($3) && $2 == client) {
        reqs++
        if (reqs == 1) first = $4
        if (set($5)) ackreq++
    } else if ($3 == 17 && $2 != client && $6 != "" && int($6 / 32) % 4 == 0) {
        # An ACK: RC Acknowledge with AETH syndrome type 00 (bits 6-5 of the syndrome).
        acks++
        if (acks == 1) {
            credits = $6 % 32
            d = ($4 - first + 1 + 16777216) % 16777216
        } else {
            d = ($4 - prev + 16777216) % 16777216
        }
        if (d > most) most = d
        prev = $4
        msn = $7
    }
}
END {
    print "1: " reqs + 0
    print "2: " acks + 0
    print "3: " ackreq + 0
    if (acks) {
        print "4: " msn
        print "5: " most
        print "6: " credits
    }
}'
