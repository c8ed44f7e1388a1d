#!/bin/sh
# Lab 16, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark). They are about the last step, two flows on one
# port (flows.awk finds them): the requests sent again (a PSN the client sent to that QP before),
# and each flow's share of the port's bytes in the second half of the time both send, in percent
# rounded to the nearest 10 (the predictions' stated tolerance: 45 to 55 is 50).
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
HERE=$(dirname "$0")
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -e frame.number -e ip.src -e frame.time_relative \
    -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn -e ip.dsfield.ecn -e frame.len 2>/dev/null |
awk "$(cat "$HERE/flows.awk")"'
function share(mine, all) { return int((mine * 20 + all) / (2 * all)) * 10 }
END {
    if (!flows()) exit
    for (i = first1; i <= n; i++) {
        if (!req(i) || (qp[i] != q1 && qp[i] != q2)) continue
        if ((qp[i], psn[i]) in sent) resends++
        sent[qp[i], psn[i]] = 1
    }
    start = ns[first2]; end = ns[last1] < ns[last2] ? ns[last1] : ns[last2]
    mid = start + int((end - start) / 2)
    for (i = first1; i <= n; i++) {
        if (!req(i) || ns[i] < mid || ns[i] > end || (qp[i] != q1 && qp[i] != q2)) continue
        all += len[i]
        if (qp[i] == q1) b1 += len[i]; else b2 += len[i]
    }
    print "p1: " resends + 0
    if (end > start && all) printf "p2: %d\np3: %d\n", share(b1, all), share(b2, all)
}'
