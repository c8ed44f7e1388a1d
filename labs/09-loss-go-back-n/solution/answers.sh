#!/bin/sh
# Lab 09, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
{
    if (!response($3) && client == "") client = $2
    if (!response($3) && $2 == client) {
        # A resend: a PSN this sender used before in the capture.
        if ($4 in sent) {
            resends++
            if (resends == 1) { resend_frame = $1; resend_psn = $4 }
        }
        sent[$4] = 1
    } else if ($3 == 17 && $5 == 96) {
        # NAK, PSN sequence error: syndrome 0x60 (type 11, code 0).
        naks++
        if (naks == 1) nak_psn = $4
    }
}
END {
    print "1: " naks + 0
    if (naks) print "2: " nak_psn
    if (resends) print "3: " resend_frame
    print "4: " resends + 0
    if (resends) print "5: " resend_psn
}'
