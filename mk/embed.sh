#!/bin/sh
# mk/embed.sh OUT NAME=FILE...: a C header holding each FILE as the string
# constant NAME, for the files rocelab writes into its output (the report
# page's script and styles). Each line becomes a literal ending in \n; '\',
# '"' and '?' are escaped ('?' so that no "??x" reads as a trigraph under
# -std=c11). Written to OUT.tmp and renamed: a failed run leaves no header.
set -eu
out=$1
shift
{
	echo "/* Made by mk/embed.sh from $*: do not edit. */"
	for arg; do
		name=${arg%%=*}
		file=${arg#*=}
		echo "static const char $name[] ="
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$file"
		printf '\t"";\n'
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
