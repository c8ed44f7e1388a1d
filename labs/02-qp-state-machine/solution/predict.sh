#!/bin/sh
# Lab 02, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the Destination QP of the client's first request
# and of the server's first Acknowledge, and the RoCE frames in all.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e infiniband.bth.opcode -e infiniband.bth.destqp 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18, the Acknowledge 17 (IBA 9.2, Table 38).
function response(op) { return op >= 13 && op <= 18 }
# tshark prints the QPN as 0x000012: 0x12
function hex(v,    s) {
    s = tolower(substr(v, 3))
    sub(/^0+/, "", s)
    return "0x" (s == "" ? "0" : s)
}
{ n++ }
!response($1) && req == "" { req = hex($2) }
$1 == 17 && ack == "" { ack = hex($2) }
END { printf "p1: %s\np2: %s\np3: %d\n", req, ack, n }'
