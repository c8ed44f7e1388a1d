#!/bin/sh
# Lab 11, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark). They are about the last step, the client's
# requests to the QP of its last request: its first NAK's PSN past the step's first request's,
# the NAK's syndrome, and the step's WRITEs that begin before that PSN (the NAK acknowledges them).
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# Opcodes (IBA Table 38): 6 RDMA WRITE First, 10 Only; 17 Acknowledge. A NAK's syndrome is
# 0x60-0x7f (96-127, IBA 9.7.5.1).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.destqp -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
function off(p) { return (p - first + 16777216) % 16777216 }
{ src[NR] = $1; qp[NR] = $2; op[NR] = $3; psn[NR] = $4; syn[NR] = $5 }
NR == 1 { client = $1 }
$1 == client && $3 != 17 { step = $2 }
END {
    for (i = 1; i <= NR; i++) {
        if (src[i] == client && qp[i] == step && op[i] != 17 && first == "") first = psn[i]
        if (first == "") continue
        if (src[i] != client && syn[i] != "" && syn[i] >= 96 && syn[i] < 128 && nak == "") { nak = off(psn[i]); s = syn[i] }
        if (src[i] == client && qp[i] == step && (op[i] == 6 || op[i] == 10) && !(psn[i] in seen)) {
            seen[psn[i]] = 1; w[++n] = off(psn[i])
        }
    }
    for (k = 1; k <= n; k++) done += w[k] < nak
    printf "p1: %d\np2: %d\np3: %d\n", nak, s, done
}'
