#!/bin/sh
# Lab 04, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the first SEND's packets, its last packet's
# payload and pad, its first packet's UDP length.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# SEND opcodes (IBA Table 38): 0 First, 1 Middle, 2 Last, 3 Last with Immediate, 4 Only, 5 Only with Immediate.
tshark -r "$CAP" -Y 'infiniband.bth.opcode <= 5' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt 2>/dev/null |
awk -F '\t' '
# The payload: UDP length less the UDP header (8), the BTH (12), the ICRC (4) and the pad.
{ n++; if (n == 1) first = $2; payload = $2 - 8 - 12 - 4 - $3; pad = $3 }
$1 >= 2 { printf "p1: %d\np2: %d\np3: %d\np4: %d\n", n, payload, pad, first; exit }'
