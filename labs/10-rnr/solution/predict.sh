#!/bin/sh
# Lab 10, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the wait the first RNR NAK asks for, the PSN of
# the client's next try past its first request's, and the NAK's syndrome byte.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# An RNR NAK's AETH syndrome is 001 and a 5-bit timer code: 0x20..0x3f (IBA 9.7.5.1). The code's
# time in microseconds, IBA 9.7.5.2.8 Table 46 (code 0 is the longest, 655.36 ms).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
BEGIN { split("10 20 30 40 60 80 120 160 240 320 480 640 960 1280 1920 2560 3840 5120 7680 10240 " \
              "15360 20480 30720 40960 61440 81920 122880 163840 245760 327680 491520", us, " "); us[0] = 655360 }
NR == 1 { client = $1; first = $2 }
$1 != client && $3 != "" && $3 >= 32 && $3 < 64 && syn == "" { syn = $3; next }
$1 == client && syn != "" && retry == "" { retry = ($2 - first + 16777216) % 16777216 }
END { printf "p1: %d\np2: %d\np3: %d\n", us[syn - 32], retry, syn }'
