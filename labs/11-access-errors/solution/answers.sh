#!/bin/sh
# Lab 11, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.reth.r_key -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
# A number as tshark prints it: decimal, or hex with 0x.
function num(s,    v, i, c) {
    if (s !~ /^0[xX]/) return s + 0
    v = 0
    for (i = 3; i <= length(s); i++) {
        c = index("0123456789abcdef", tolower(substr(s, i, 1)))
        v = v * 16 + c - 1
    }
    return v
}
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
{
    op = num($3)
    if (!response(op) && client == "") client = $2
    if (!response(op) && $2 == client) {
        rkey[$4] = $5          # the last request from the client with this PSN
    } else if (op == 17 && $6 != "" && int(num($6) / 32) % 4 == 3) {
        # A NAK: AETH syndrome bits 6-5 are 11; bits 4-0 are the NAK code.
        naks++
        if (naks == 1) {
            syn = num($6)
            psn = $4
            key = rkey[psn]
        }
    }
}
END {
    if (naks) {
        printf "1: 0x%02x\n", syn
        print "2: " psn
        if (key != "") {
            sub(/^0x0*/, "0x", key)
            if (key == "0x") key = "0x0"
            print "3: " key
        }
        # libibverbs enum ibv_wc_status: REM_INV_REQ_ERR 9, REM_ACCESS_ERR 10, REM_OP_ERR 11.
        code = syn % 32
        if (code >= 1 && code <= 3) print "4: " code + 8
    }
    print "5: " naks + 0
}'
