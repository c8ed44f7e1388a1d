#!/bin/sh
# Lab 10, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e infiniband.bth.opcode -e infiniband.aeth.syndrome 2>/dev/null |
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
BEGIN {
    # The RNR timer field in microseconds: IBA 9.7.5.2.8, Table 46.
    split("655360 10 20 30 40 60 80 120 160 240 320 480 640 960 1280 1920 " \
          "2560 3840 5120 7680 10240 15360 20480 30720 40960 61440 81920 122880 " \
          "163840 245760 327680 491520", us, " ")
}
# Opcode 17, RC Acknowledge; AETH syndrome bits 6-5: 00 ACK, 01 RNR NAK, 11 NAK.
num($2) == 17 && $3 != "" {
    syn = num($3)
    type = int(syn / 32) % 4
    if (type == 1) {
        rnr++
        if (first == "") { first = $1; timer = syn % 32 }
    } else if (type == 0 && first != "" && ack == "") {
        ack = $1
    }
}
END {
    if (first != "") {
        print "1: " first
        print "2: " timer
        print "3: " us[timer + 1]
    }
    print "4: " rnr + 0
    if (ack != "") print "5: " ack
}'
