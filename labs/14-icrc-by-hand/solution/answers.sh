#!/bin/sh
# Lab 14, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e infiniband.invariant.crc -e ip.ttl -e ip.len -e udp.checksum 2>/dev/null |
awk -F '\t' '
# Frame 1 only, and only if it is a RoCE frame over IPv4 (Wireshark shows the ICRC as the
# four bytes on the wire, read as one big-endian number).
$1 == 1 {
    if ($2 != "") print "1: " $2
    if ($3 != "") {
        print "2: " $3
        # 8 bytes of ones for the LRH, then the IP header up to the byte before the ICRC.
        print "3: " 8 + $4 - 4
    }
    if ($5 != "") print "4: " $5
}'
