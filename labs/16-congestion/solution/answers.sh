#!/bin/sh
# Lab 16, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# The questions are about the last step, the two flows (flows.awk finds them).
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
HERE=$(dirname "$0")
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -e frame.number -e ip.src -e frame.time_relative \
    -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn -e ip.dsfield.ecn -e frame.len 2>/dev/null |
awk "$(cat "$HERE/flows.awk")"'
END {
    if (!flows()) exit
    for (i = first1; i <= n; i++) {
        # A CNP is opcode 129 (0x81, IBA A17.9.2); CE is ECN 11 (3) in the IP header (RFC 3168).
        if (op[i] == 129) { cnps++; if (!cnp1) cnp1 = no[i] }
        if (req(i) && ecn[i] == 3) ce++
    }
    print "1: " cnps + 0
    print "2: " ce + 0
    print "3: " q2
    if (cnp1) print "4: " cnp1
}'
