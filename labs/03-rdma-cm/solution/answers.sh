#!/bin/sh
# Lab 03, the reference answers: read off a capture with Wireshark's own
# InfiniBand dissector (tshark) and its CM fields, the way a learner reads
# them in Wireshark.
# Usage: sh answers.sh CAPTURE > answers.txt
set -eu
CAP=${1:?usage: answers.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator='|' -E occurrence=f \
    -e frame.number -e ip.src -e ipv6.src -e infiniband.bth.destqp -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.mad.mgmtclass -e infiniband.mad.attributeid -e infiniband.cm.req.serviceid.dport \
    -e infiniband.cm.req.startpsn -e infiniband.cm.rep.startpsn -e infiniband.cm.rep 2>/dev/null |
awk -F'|' '
# CM messages are MADs of class 0x07 to QP1 (IBA 13.4.2); their attribute IDs (IBA 12.6):
# REQ 0x0010, REP 0x0013, RTU 0x0014. RC responses are opcodes 13-18 (IBA 9.2, Table 38).
function hex(s,    i, c, v) {
    v = 0
    s = tolower(s)
    sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1)) - 1
        v = v * 16 + c
    }
    return v
}
function response(op) { return op >= 13 && op <= 18 }
{
    src = $2 != "" ? $2 : $3
    cm = $4 == "0x000001" && $7 == "0x07"
    data = $4 != "0x000001" && !response($5)
    if (client == "" && (cm || data)) client = src
    if (cm) {
        ncm++
        last_cm = $1
        if ($8 == "0x0010" && req == "") { req = $1; port = $9; req_psn[$1] = hex($10) }
        if ($8 == "0x0013" && src != client && rep == "") { rep = $1; comm = $12; rep_psn[$1] = hex($11) }
        if (rep != "" && $1 + 0 > rep + 0 && src == client && $8 == "0x0014" && est_b == "") est_b = $1
        next
    }
    if (!data) next
    if (before == "") before = ncm
    if (rep != "" && src == client && est_b == "") est_b = $1
    if (src != client && psn3 == "") {
        psn3 = $6
        # the REQ or REP whose Starting PSN it is: the last one before it
        for (f in req_psn) if (req_psn[f] == psn3 && f + 0 > ann + 0) ann = f
        for (f in rep_psn) if (rep_psn[f] == psn3 && f + 0 > ann + 0) ann = f
    }
    if (src == client) { nd++; dframe[nd] = $1; dpsn[nd] = $6 }
}
END {
    # the ibv_rc_pingpong step: the first data packet of the client after the last CM message;
    # the REQ or REP that announced its PSN, 0 if none did
    for (i = 1; i <= nd && last_cm != ""; i++) {
        if (dframe[i] + 0 < last_cm + 0) continue
        pp = 0
        for (f in req_psn) if (req_psn[f] == dpsn[i]) pp = f
        for (f in rep_psn) if (rep_psn[f] == dpsn[i]) pp = f
        break
    }
    print "1a: " rep
    print "1b: " est_b
    print "2: " (ncm > 0 ? before : "")
    print "3a: " psn3
    print "3b: " ann
    print "4: " port
    print "5: " pp
    print "6: " comm
}'
