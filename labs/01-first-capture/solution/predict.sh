#!/bin/sh
# Lab 01, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the PSN step from the client's first SEND to its
# second, the MSN of the server's last ACK, how far the client's PSN went, and the frames.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.msn 2>/dev/null |
awk -F '\t' '
# The client sends the first request. SEND opcodes (IBA Table 38) are 0 to 5, a SEND starts with
# a First (0) or an Only (4, 5), and 17 is an RC Acknowledge.
{ n++ }
client == "" && $2 <= 5 { client = $1; first = $3 }
$1 == client && $2 <= 5 { last = $3; if (($2 == 0 || $2 == 4 || $2 == 5) && sends++ == 1) step = ($3 - first + 16777216) % 16777216 }
$1 != client && $2 == 17 { msn = $4 }
END { printf "p1: %d\np2: %d\np3: %d\np4: %d\n", step, msn, (last - first + 16777216) % 16777216, n }'
