#!/bin/sh
# Lab 08, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): how far the PSN went from the client's first
# Fetch&Add to its last, the ATOMIC Acknowledges that answer them, the MSN of the last one's
# answer, and how much the word grew from the first original value to the last.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# Opcodes (IBA Table 38): 20 RC FetchAdd, 18 RC ATOMIC Acknowledge (same PSN as its request).
# The 64-bit original values stay strings (tshark prints them in decimal, awk's doubles would round
# them): the growth, far below 10^9, is the difference of their last nine digits.
tshark -r "$CAP" -Y 'infiniband.bth.opcode == 20 || infiniband.bth.opcode == 18' -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.msn \
    -e infiniband.atomicacketh.origremdt 2>/dev/null |
awk -F '\t' '
function low9(d) { return substr(d, length(d) > 9 ? length(d) - 8 : 1) + 0 }
$2 == 20 && client == "" { client = $1 }
$2 == 20 && $1 == client && !($3 in fa) { fa[$3] = 1; if (first == "") first = $3; last = $3 }
$2 == 18 && $1 != client && ($3 in fa) {
    answers++
    if (!($3 in orig)) orig[$3] = $5
    if ($3 == last) msn = $4
}
END {
    printf "p1: %d\np2: %d\np3: %d\np4: %d\n", (last - first + 16777216) % 16777216, answers, msn,
        (low9(orig[last]) - low9(orig[first]) + 1000000000) % 1000000000
}'
