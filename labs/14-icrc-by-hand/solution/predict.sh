#!/bin/sh
# Lab 14, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): over how many bytes frame 1's ICRC runs, its pad
# count and its UDP length.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# The CRC runs over 8 bytes of ones for the LRH, then the IPv4 header up to the byte before the
# 4-byte ICRC (IBA A17.3.3): 8 + (IPv4 total length - 4).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e frame.number -e ip.len -e infiniband.bth.padcnt -e udp.length 2>/dev/null |
awk -F '\t' '$1 == 1 && $2 != "" { printf "p1: %d\np2: %d\np3: %d\n", 8 + $2 - 4, $3, $4 }'
