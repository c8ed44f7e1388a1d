#!/bin/sh
# Lab 01's quiz, the parameters inferred from its capture with tshark: one message's payloads
# added up (the UDP length less UDP 8, BTH 12, ICRC 4 and the pad) are its size, and the rounds
# are the messages the first sender sent, counted by the packets that end one (Last or Only).
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y 'infiniband.bth.opcode <= 5' -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt 2>/dev/null |
awk -F '\t' '
client == "" { client = $1 }
!done { size += $3 - 8 - 12 - 4 - $4 }
$2 >= 2 { done = 1; if ($1 == client) rounds++ }
END { printf "qsize: %d\nqcount: %d\n", size, rounds }'
