#!/bin/sh
# The main job of `make demo`: write a small RoCEv2 capture and explain it.
set -eu
ROCELAB=${1:-build/rocelab}
OUT=build/demo
mkdir -p "$OUT"

echo "== rocelab gen demo: SEND, RDMA WRITE, RDMA READ, Fetch&Add, SEND with immediate, run by the reference transport between two simulated hosts"
"$ROCELAB" gen demo -o "$OUT/demo.pcap"
echo
echo "== rocelab explain $OUT/demo.pcap"
"$ROCELAB" explain "$OUT/demo.pcap"
echo
echo "== one packet field by field: rocelab explain -v -c 7 (the 7th frame, an RDMA WRITE First)"
"$ROCELAB" explain -v -q -c 7 "$OUT/demo.pcap" | awk '/^Frame 7:/{p=1} p'
echo "== next: open $OUT/demo.pcap in Wireshark (filter: infiniband), or try"
echo "   $ROCELAB gen --list     and     $ROCELAB explain --help"
