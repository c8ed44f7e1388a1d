#!/bin/sh
# Lab 03, the multiple-choice answers: no capture decides them, so they come from why.txt, which
# cites the IBA clause (or the program) beside each.
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
: "${1:?usage: why.sh CAPTURE}"
grep -o '^w[0-9]*: [a-f]' "$(dirname "$0")/why.txt"
