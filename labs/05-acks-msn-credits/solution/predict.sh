#!/bin/sh
# Lab 05, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the client's request packets, the server's ACKs,
# the last ACK's MSN, and how far the client's PSN went from its first request to its last.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# SEND opcodes (IBA Table 38) are 0 to 5; an ACK is an RC Acknowledge (17) whose AETH syndrome
# type (Wireshark: infiniband.aeth.syndrome.opcode) is 0.
tshark -r "$CAP" -Y 'infiniband.bth.opcode <= 5 || (infiniband.bth.opcode == 17 && infiniband.aeth.syndrome.opcode == 0)' \
    -T fields -E separator=/t -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.msn 2>/dev/null |
awk -F '\t' '
$1 <= 5 { if (!n++) first = $2; last = $2 }
$1 == 17 { acks++; msn = $3 }
END { printf "p1: %d\np2: %d\np3: %d\np4: %d\n", n, acks, msn, (last - first + 16777216) % 16777216 }'
