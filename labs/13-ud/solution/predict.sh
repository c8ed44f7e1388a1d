#!/bin/sh
# Lab 13, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the UDP length and the pad count of the client's
# first datagram, and the RC Acknowledges in the whole capture.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# Opcode 100 (0x64) is UD SEND Only, 101 UD SEND Only with Immediate; 17 the RC Acknowledge
# (IBA Table 38). The client is whoever sent the first UD SEND.
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt 2>/dev/null |
awk -F '\t' '
($3 == 100 || $3 == 101) && udplen == "" { udplen = $4; pad = $5 }
$3 == 17 { acks++ }
END { printf "p1: %d\np2: %d\np3: %d\n", udplen, pad, acks }'
