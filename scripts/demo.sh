#!/bin/sh
# The main job of `make demo`: lab 01 end to end. As root it runs rocelab peer
# in two network namespaces joined by a veth pair and captures real RoCEv2;
# without root the lab runs on a capture from rocelab gen and says so.
set -eu
ROCELAB=${1:-build/rocelab}

echo "== rocelab lab run 01: a SEND ping-pong between two hosts, captured on the wire"
"$ROCELAB" lab run 01
echo
echo "== the first frame field by field: rocelab explain -v -c 1"
"$ROCELAB" explain -v -q -c 1 labs/out/01-first-capture.pcap
echo
echo "== see it: labs/out/01-first-capture.html, the capture drawn by rocelab report:"
echo "   open it in a web browser (it needs no network) and click an arrow"
echo
echo "== next: the guide, labs/01-first-capture/README.md (中文: README.zh-CN.md);"
echo "   all the labs: $ROCELAB lab list"
