#!/bin/sh
# t-layers.sh: what one scheduler is stays in its places. Its enum names
# only scheduler.c (the table), the back-ends gen-*.c and launcher.c
# (srun's row); ddprank's modules read the detected row, so no scheduler
# variable is spelt in their code; the doctor's files call down their
# layers, and the files of src/ call one way, with no cycle; and every
# part of the shell skeleton a back-end's job includes exists for each
# shell scheduler. Only the mains include exitcode.h or name an exit
# status.
. "$(dirname "$0")/lib.sh"

src=$srcdir/src
named=$(cd "$src" && grep -lE 'SCHED_(SLURM|HPCPACK|FLUX|PBS|LSF|LOCAL)\b' ./*.c |
    sed 's|^\./||' | grep -vxE 'scheduler\.c|gen-[a-z]+\.c|launcher\.c')
expect_eq "scheduler ids outside the table, the back-ends and srun's row" \
    "$named" ""

# Code, not comments: a line that is not a comment line names no
# scheduler variable.
code_vars() {
	grep -nE '"(SLURM|SLURMD|CCP|PBS|LSB|FLUX|CSM|DDPGEN_LOCAL)_[A-Z_]*' "$@" |
	    grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)'
}
for f in rank.c doctor.c doctor-check.c doctor-sys.c doctor-wire.c \
    doctor-report.c doctor-dir.c doctor-net.c doctor-vars.c \
    exchange.c exchange-dir.c exchange-table.c exchange-msg.c \
    exchange-clean.c restart.c; do
	check "$f exists" test -f "$src/$f" || continue
	expect_eq "$f spells no scheduler variable" \
	    "$(code_vars "$src/$f")" ""
done

# The doctor's files call one way, down these layers: the gather
# (doctor-net, doctor-dir) above the report, the report above the checks
# and the wire format, all of them above the findings (doctor.c), the
# system seam and the known variables. A file calls no function defined
# in a file of its own layer or above it; the gather's two files are one
# layer, so only what is below them is checked.
doctor_layers='
doctor.c 0
doctor-sys.c 0
doctor-vars.c 0
doctor-check.c 1
doctor-bind.c 1
doctor-wire.c 1
doctor-report.c 2
doctor-net.c 3
doctor-dir.c 3'
# The functions a file defines for other files (not static), one a line.
exported() {
	awk '/^[a-z_][a-z0-9_]*\(/ && prev !~ /^static/ {
		sub(/\(.*/, ""); print } { prev = $0 }' "$1"
}
# The functions of file $2 that file $1 calls, outside comment lines.
calls() {
	for fn in $(exported "$src/$2"); do
		grep -nE "(^|[^a-z0-9_])$fn\(" "$src/$1" |
		    grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)' |
		    sed "s|^|$1 calls $2's $fn at |"
	done
}
layer() { echo "$doctor_layers" | awk -v f="$1" '$1 == f { print $2 }'; }
doctor_files=$(echo "$doctor_layers" | awk '{ print $1 }')
for f in $doctor_files; do
	check "$f exists" test -f "$src/$f"
done
upward=$(for f in $doctor_files; do
	l=$(layer "$f")
	[ "$l" -lt 3 ] || continue
	for g in $doctor_files; do
		[ "$g" != "$f" ] && [ "$(layer "$g")" -ge "$l" ] || continue
		calls "$f" "$g"
	done
done)
expect_eq "the doctor's files call only the layers below their own" \
    "$upward" ""

# Calls go one way between all the files of src/: no file calls, by
# however long a way, back into a file it calls. callgraph prints
# "A B FN FILE:LINE" for each call in file A of a function that file B
# defines for other files (not static), outside comments and strings;
# files that define the same functions (build-time alternatives:
# mac-openssl.c and mac-own.c, exchange-mpi.c and exchange-nompi.c ...)
# are one node, "a.c|b.c", and main is no file's.
callgraph() {
	(cd "$1" && awk '
	function code(s) {
		if (s ~ /^[ \t]*(\/\*|\*|\/\/)/)
			return ""
		gsub(/'\''([^'\''\\]|\\.)'\''/, "0", s)
		gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
		gsub(/\/\*.*\*\//, "", s)
		sub(/\/[*\/].*/, "", s)
		return s
	}
	function node(f) { return (f in alt) ? alt[f] : f }
	FNR == 1 { file = FILENAME; sub(/^\.\//, "", file) }
	pass == 1 && /^[a-z_][a-z0-9_]*\(/ {
		fn = $0
		sub(/\(.*/, "", fn)
		own[file, fn] = 1
		if (prev !~ /^static/ && fn != "main") {
			d = (fn in def) ? def[fn] "|" file : file
			def[fn] = d
		}
	}
	pass == 1 { prev = $0; next }
	!grouped {
		for (fn in def)
			if (def[fn] ~ /\|/) {
				n = split(def[fn], g, "|")
				for (i = 1; i <= n; i++)
					alt[g[i]] = def[fn]
			}
		grouped = 1
	}
	{
		s = code($0)
		while (match(s, /[a-z_][a-z0-9_]*\(/)) {
			fn = substr(s, RSTART, RLENGTH - 1)
			before = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
			s = substr(s, RSTART + RLENGTH)
			# A member (g->vars(), o.check()) is no call by name.
			if (before ~ /[A-Za-z0-9_.>]/ || !(fn in def) ||
			    own[file, fn])
				continue
			split(def[fn], g, "|")
			if (node(file) != node(g[1]))
				print node(file), node(g[1]), fn, \
				    file ":" FNR
		}
	}' pass=1 ./*.c pass=2 ./*.c)
}
# cycles: of callgraph's lines, each call from A into B where B leads
# back to A, with the shortest way back; one line per such call.
cycles() {
	awk '
	!(($1, $2) in at) { at[$1, $2] = $3 " at " $4; out[$1] = out[$1] " " $2 }
	function way(a, b,    q, from, h, t, x, n, i, y) {
		h = t = 1
		q[1] = a
		from[a] = ""
		while (h <= t) {
			n = split(out[x = q[h++]], y, " ")
			for (i = 1; i <= n; i++) {
				if (y[i] in from)
					continue
				from[y[i]] = x
				q[++t] = y[i]
				if (y[i] != b)
					continue
				for (x = b; from[x] != ""; x = from[x])
					b = from[x] " -> " b
				return b
			}
		}
		return ""
	}
	END {
		for (e in at) {
			split(e, ab, SUBSEP)
			if ((back = way(ab[2], ab[1])) != "")
				print ab[1] " calls " ab[2] "\047s " at[e] \
				    "; back: " back
		}
	}' | sort
}
# The detector finds a cycle of three and the pair inside a longer chain.
expect_eq "cycles finds a cycle" "$(printf '%s\n' 'a.c b.c f a.c:1' \
    'b.c c.c g b.c:2' 'c.c a.c h c.c:3' 'c.c d.c i c.c:4' | cycles)" \
"a.c calls b.c's f at a.c:1; back: b.c -> c.c -> a.c
b.c calls c.c's g at b.c:2; back: c.c -> a.c -> b.c
c.c calls a.c's h at c.c:3; back: a.c -> b.c -> c.c"
callgraph "$src" >"$T/calls"
check "the call graph holds ddprank.c's call of rank_compute" \
    grep -q '^ddprank\.c rank\.c rank_compute ' "$T/calls"
check "the call graph joins the MAC's alternatives" \
    grep -q '^auth\.c mac-openssl\.c|mac-own\.c ' "$T/calls"
expect_eq "calls between files go one way" "$(cycles <"$T/calls")" ""

# Exit statuses are the mains' decision (issue 25): lower layers return
# a category of failure (fault.h), and only ddpgen.c and ddprank.c
# include exitcode.h or name an exit status, outside comment lines.
mains='ddpgen\.c|ddprank\.c'
expect_eq "exitcode.h is included by the mains alone" \
    "$(cd "$src" && grep -l '^#include "exitcode\.h"' ./*.c ./*.h |
    sed 's|^\./||' | grep -vxE "$mains")" ""
expect_eq "no file but the mains and exitcode.h names an exit status" \
    "$(cd "$src" && grep -nE '(^|[^A-Za-z0-9_])XC_[A-Z]+' ./*.c ./*.h |
    sed 's|^\./||' | grep -vE "^($mains|exitcode\.h):" |
    grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)')" ""

# Each shell scheduler's template is the skeleton, and renders alone.
for s in slurm flux pbs lsf local; do
	expect_eq "templates/$s.sh includes the skeleton" \
	    "$(grep -v '^{{!\|^    ' "$srcdir/templates/$s.sh")" "{{>job}}"
	check "templates/$s/directives.sh" test -f "$srcdir/templates/$s/directives.sh"
done
finish
