#!/bin/sh
# t-layers.sh: what one scheduler is stays in its places. Its enum names
# only scheduler.c (the table), the back-ends gen-*.c and launcher.c
# (srun's row); ddprank's modules read the detected row, so no scheduler
# variable is spelt in their code; and every part of the shell skeleton
# a back-end's job includes exists for each shell scheduler.
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

# Each shell scheduler's template is the skeleton, and renders alone.
for s in slurm flux pbs lsf local; do
	expect_eq "templates/$s.sh includes the skeleton" \
	    "$(grep -v '^{{!\|^    ' "$srcdir/templates/$s.sh")" "{{>job}}"
	check "templates/$s/directives.sh" test -f "$srcdir/templates/$s/directives.sh"
done
finish
