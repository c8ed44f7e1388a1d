#!/bin/sh
# Lab 04's quiz, the parameters inferred from its capture with tshark: a First packet's payload is
# the path MTU, a message's payloads added up its size, and the messages are counted by their
# First (or Only) packets.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y 'infiniband.bth.opcode <= 5' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt 2>/dev/null |
awk -F '\t' '
{ payload = $2 - 8 - 12 - 4 - $3 }
$1 == 0 { if (!mtu) mtu = payload; n++ }
$1 == 4 { n++ }
!done { size += payload }
$1 == 2 || $1 == 4 { done = 1 }
END { printf "qmtu: %d\nqsize: %d\nqcount: %d\n", mtu ? mtu : size, size, n }'
