#!/bin/sh
# SPDX-License-Identifier: MIT
# No call cycles among the supervisor's files: from the objects of
# supervisor/sysgate, which object defines and which uses each global
# symbol (nm), the object -> object graph; any strongly connected set of
# more than one object fails the test and is printed with the symbols
# that tie it.  The loop sits on top; a file below it never calls back up.
# Run from the top build directory after the build (TESTS).
set -eu
dir=${top_builddir:-.}/supervisor
NM=${NM:-nm}
command -v "$NM" >/dev/null 2>&1 || { echo "layering: $NM not found" >&2; exit 1; }
objs=$(ls "$dir"/sysgate-*.o 2>/dev/null || true)
if [ -z "$objs" ]; then
	echo "layering: no objects in $dir (build first)" >&2
	exit 1
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for o in $objs; do
	n=$(basename "$o" .o)
	n=${n#sysgate-}
	# An object left from a source file since removed is not the program's.
	[ -f "${srcdir:-.}/supervisor/$n.c" ] || continue
	"$NM" --defined-only -g "$o" | awk -v n="$n" 'NF == 3 { print "D", n, $3 }'
	"$NM" -u "$o" | awk -v n="$n" '{ print "U", n, $NF }'
done > "$tmp"
nobj=$(echo "$objs" | wc -w)
[ "$nobj" -ge 10 ] || { echo "layering: only $nobj objects found" >&2; exit 1; }
awk '
$1 == "D" { def[$3] = $2; node[$2] = 1; next }
$1 == "U" { use[++nu] = $2 " " $3; node[$2] = 1 }
END {
	n = 0
	for (x in node) name[++n] = x
	for (i = 1; i <= n; i++) idx[name[i]] = i
	for (k = 1; k <= nu; k++) {
		split(use[k], f, " ")
		if (!(f[2] in def) || def[f[2]] == f[1])
			continue
		a = idx[f[1]]; b = idx[def[f[2]]]
		r[a, b] = 1
		if (!((a, b) in why)) why[a, b] = f[2]
		else if (index(" " why[a, b] " ", " " f[2] " ") == 0)
			why[a, b] = why[a, b] " " f[2]
		edges++
	}
	for (k = 1; k <= n; k++)
		for (i = 1; i <= n; i++)
			if ((i, k) in r)
				for (j = 1; j <= n; j++)
					if ((k, j) in r)
						r[i, j] = 1
	bad = 0
	for (i = 1; i <= n; i++) {
		if (done[i] || !((i, i) in r))
			continue
		bad++
		printf "layering: cycle among:"
		for (j = 1; j <= n; j++)
			if ((i, j) in r && (j, i) in r) {
				done[j] = 1
				printf " %s.o", name[j]
				comp[j] = bad
			}
		printf "\n"
		for (a = 1; a <= n; a++)
			for (b = 1; b <= n; b++)
				if (comp[a] == bad && comp[b] == bad && (a, b) in why)
					printf "  %s.o -> %s.o: %s\n", name[a], name[b], why[a, b]
	}
	if (!bad) {
		# The level of an object: 0 calls no other, else one above the
		# highest it calls.
		for (pass = 0; pass < n; pass++)
			for (a = 1; a <= n; a++)
				for (b = 1; b <= n; b++)
					if ((a, b) in why && lvl[a] < lvl[b] + 1)
						lvl[a] = lvl[b] + 1
		top = 0
		for (a = 1; a <= n; a++)
			if (lvl[a] > top)
				top = lvl[a]
		for (l = top; l >= 0; l--) {
			line = ""
			for (a = 1; a <= n; a++)
				if (lvl[a] == l)
					line = line " " name[a] ".o"
			if (line != "")
				printf "layering: level %d:%s\n", l, line
		}
	}
	printf "layering: %d objects, %d uses across files, %d cycle(s)\n", n, edges, bad
	exit bad ? 1 : 0
}' "$tmp"
