#!/bin/sh
# Lab 16, the multiple-choice answers, from why.txt (the paper's sections and the clauses beside them).
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
: "${1:?usage: why.sh CAPTURE}"
grep -o '^w[0-9]*: [a-f]' "$(dirname "$0")/why.txt"
