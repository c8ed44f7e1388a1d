#!/bin/sh
# Lab 03, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the CM messages before the first data packet,
# the RoCE frames up to the last CM message (the DREP), and how far the server's second RDMA READ's
# PSN lies past its first's.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e infiniband.bth.destqp -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.mad.mgmtclass 2>/dev/null |
awk -F '\t' '
# CM messages are MADs of class 0x07 to QP1 (IBA 13.4.2). RC responses are opcodes 13-18, an
# RDMA READ request is 12 (IBA 9.2, Table 38).
function response(op) { return op >= 13 && op <= 18 }
{
    n++
    src = $1 != "" ? $1 : $2
    if (n == 1) client = src
    if ($3 == "0x000001" && $6 == "0x07") { last_cm = n; if (!data) cm++; next }
    if (!response($4)) data = 1
    if ($4 == 12 && src != client) {
        if (read1 == "") read1 = $5
        else if (read2 == "" && $5 != read1) read2 = $5
    }
}
END { printf "p1: %d\np2: %d\np3: %d\n", cm, last_cm, (read2 - read1 + 16777216) % 16777216 }'
