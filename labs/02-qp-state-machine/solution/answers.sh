#!/bin/sh
# Lab 02, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark), the way a learner reads them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18 (READ responses, Acknowledge, ATOMIC Acknowledge): IBA 9.2, Table 38.
function response(op) { return op >= 13 && op <= 18 }
# tshark prints the QPN as 0x000012: 0x12
function hex(v,    s) {
    if (v !~ /^0[xX]/) return sprintf("0x%x", v + 0)
    s = tolower(substr(v, 3))
    sub(/^0+/, "", s)
    return "0x" (s == "" ? "0" : s)
}
{
    n++
    src = $1 != "" ? $1 : $2
    if (!response($3) && client == "") {
        client = src
        dqp = hex($4)
        psn = $5
    } else if ($3 == 17 && client != "" && src != client && ackqp == "") {
        ackqp = hex($4)
    }
}
END {
    if (dqp != "") print "1: " dqp
    if (psn != "") print "2: " psn
    if (ackqp != "") print "3: " ackqp
    print "4: " n + 0
}'
# The TCP exchange, as Follow TCP Stream shows it: each end's "LID:QPN:PSN:GID"
# line and its NUL, in hex in tcp.payload. The client writes first.
tshark -r "$CAP" -Y 'tcp.len == 52' -T fields -E separator=/t -e ip.src -e ipv6.src -e tcp.payload 2>/dev/null |
awk -F '\t' '
function text(h,    s, i, c) {
    s = ""
    for (i = 1; i < length(h); i += 2) {
        c = index("0123456789abcdef", substr(h, i, 1)) * 16 + index("0123456789abcdef", substr(h, i + 1, 1)) - 17
        if (c == 0) break
        s = s sprintf("%c", c)
    }
    return s
}
{
    src = $1 != "" ? $1 : $2
    if (split(text(tolower($3)), f, ":") != 4) next
    if (client == "") client = src
    if (src == client && gid == "") gid = substr(f[4], 1, 4)
    if (src != client) psn = f[3]
}
END {
    if (psn != "") print "5: 0x" psn
    if (gid != "") print "6: 0x" gid
}'
