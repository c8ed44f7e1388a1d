#!/bin/sh
# Lab 01, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=' ' \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.msn 2>/dev/null |
awk '
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
{
    n++
    if (!response($3) && client == "") client = $2
    if (!response($3) && $2 == client) {
        reqs++
        if (reqs == 1) psn_a = $4
        # A SEND starts with a First (0) or an Only (4, 5): the step is from one SEND to the next.
        if (reqs > 1 && ($3 == 0 || $3 == 4 || $3 == 5) && step == "") step = ($4 - psn_a + 16777216) % 16777216
    } else if (!response($3) && psn_b == "") {
        psn_b = $4
    } else if ($3 == 17 && $2 != client && ack == "" && ($4 - psn_a + 16777216) % 16777216 < 8388608) {
        ack = $1; msn = $5
    }
}
END {
    print "1: " n
    print "2a: " psn_a
    print "2b: " psn_b
    print "3: " step
    print "4a: " ack
    print "4b: " msn
}'
