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
for f in rank.c doctor.c doctor-dir.c doctor-net.c doctor-vars.c \
    exchange.c exchange-dir.c exchange-table.c exchange-msg.c \
    exchange-clean.c restart.c; do
	check "$f exists" test -f "$src/$f" || continue
	expect_eq "$f spells no scheduler variable" \
	    "$(code_vars "$src/$f")" ""
done

# Each shell scheduler's template is the skeleton, and renders alone.
for s in slurm flux pbs lsf local; do
	expect_eq "templates/$s.sh includes the skeleton" \
	    "$(grep -v '^{{!\|^    ' "$srcdir/templates/$s.sh")" "{{>job}}"
	check "templates/$s/directives.sh" test -f "$srcdir/templates/$s/directives.sh"
done
finish
