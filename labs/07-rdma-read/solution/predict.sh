#!/bin/sh
# Lab 07, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the first READ's response packets, the PSN step
# from the first READ request to the second, and how many of those responses carry an AETH.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# Opcodes (IBA Table 38): 12 READ Request; responses 13 First, 14 Middle, 15 Last, 16 Only.
tshark -r "$CAP" -Y 'infiniband.bth.opcode >= 12 && infiniband.bth.opcode <= 16' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
$1 == 12 { req[++nreq] = $2; next }
!done { resp++; if ($3 != "") aeth++ }
$1 == 15 || $1 == 16 { done = 1 }
END { printf "p1: %d\np2: %d\np3: %d\n", resp, (req[2] - req[1] + 16777216) % 16777216, aeth }'
