#!/bin/sh
# Lab 08, the multiple-choice answers: no capture decides them; why.txt has them, the IBA's
# clauses beside them.
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
: "${1:?usage: why.sh CAPTURE}"
grep -o '^w[0-9]*: [a-f]' "$(dirname "$0")/why.txt"
