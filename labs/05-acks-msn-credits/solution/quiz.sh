#!/bin/sh
# Lab 05's quiz, the parameters inferred from its capture with tshark: the window is the SENDs
# that went out before the first ACK came back (each SEND here is one packet), and the SENDs are
# counted by the packets that end a message (Last or Only).
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y 'infiniband.bth.opcode <= 5 || infiniband.bth.opcode == 17' -T fields \
    -e infiniband.bth.opcode 2>/dev/null |
awk '
$1 == 17 { acked = 1 }
$1 <= 5 && !acked { window++ }
$1 >= 2 && $1 <= 5 { sends++ }
END { printf "qwindow: %d\nqcount: %d\n", window, sends }'
