#!/bin/sh
# t-profile-values.sh: what a centre's profiles say reaches the job as
# written: true line numbers in errors, no expansion at load time, env
# entries keyed by name, templates beside their profile, --show-site
# round trips.
. "$(dirname "$0")/lib.sh"

gen() { "$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank "$@"; }

# A copy of the shipped cori.conf, commented as every shipped profile
# is, with a typo on a late line: the error names that line.
sed 's/^cpus_per_task =/cpus_per_tsk =/' "$srcdir/profiles/cori.conf" \
    >"$T/cori.conf"
line=$(grep -n '^cpus_per_tsk' "$T/cori.conf" | cut -d: -f1)
gen --site "$T/cori.conf" train.py >/dev/null 2>"$T/err"
expect_eq "cori typo: status" "$?" 3
expect_eq "cori typo: line" "$(cat "$T/err")" \
    "ddpgen: $T/cori.conf:$line: unknown key 'cpus_per_tsk'"

# Nothing in a profile is expanded when it loads, whatever ddpgen's own
# environment holds: the setup line reaches the job as written, and the
# job expands it when it runs.
mkdir -p "$T/bin"
cat >"$T/bin/srun" <<'STUB'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in --*) shift ;; *) break ;; esac
done
exec "$@"
STUB
cat >"$T/bin/ddprank" <<'STUB'
#!/bin/sh
case $1 in
ip)	echo 192.0.2.1; exit 0 ;;
doctor)	exit 0 ;;
exec)	while [ "$1" != -- ]; do shift; done
	shift
	exec "$@" ;;
esac
exit 9
STUB
cat >"$T/bin/torchrun" <<'STUB'
#!/bin/sh
printf '%s\n' "${TMPDIR-(unset)}" "${OLDSTYLE-(unset)}" >"$REC"
STUB
chmod +x "$T/bin/srun" "$T/bin/ddprank" "$T/bin/torchrun"
cat >"$T/dollar.conf" <<'EOF2'
description = "setup lines with job variables"
scheduler = slurm
setup = {"export TMPDIR=/scratch/${SLURM_JOB_ID}",
         "export OLDSTYLE=\${SLURM_JOB_ID}-${SLURM_JOB_ID:-none}"}
env = {"DATA=/d/${SLURM_JOB_ID}"}
EOF2
SLURM_JOB_ID=111 gen --site "$T/dollar.conf" --ddprank "$T/bin/ddprank" \
    -o "$T/job.sh" train.py
expect_eq "no expansion: ddpgen status" "$?" 0
check "setup line rewritten: $(grep TMPDIR "$T/job.sh")" \
    grep -qxF 'export TMPDIR=/scratch/${SLURM_JOB_ID}' "$T/job.sh"
check "env value rewritten: $(grep DATA= "$T/job.sh")" \
    grep -q '^export DATA=.*/d/.*SLURM_JOB_ID' "$T/job.sh"
REC=$T/rec
export REC
(cd "$T" && PATH="$T/bin:$PATH" SLURM_JOB_ID=4242 SLURM_NNODES=1 \
    bash ./job.sh) >"$T/out" 2>&1
expect_eq "no expansion: job status" "$?" 0
expect_eq "no expansion: job-time values" "$(cat "$T/rec" 2>/dev/null)" \
    "/scratch/4242
4242-4242"
# Without the variable in ddpgen's environment, the same script.
(unset SLURM_JOB_ID; gen --site "$T/dollar.conf" \
    --ddprank "$T/bin/ddprank" -o "$T/job2.sh" train.py)
sed 1,3d "$T/job.sh" >"$T/job.body"
sed 1,3d "$T/job2.sh" >"$T/job2.body"
expect_eq "no expansion: same script" \
    "$(cmp -s "$T/job.body" "$T/job2.body" && echo same)" same
# Env entries are keyed by name: the child's "env +=" replaces the
# base's value, -e replaces both, and each name is exported once, in the
# order names first appear.
mkdir -p "$T/envp"
printf 'description = "base"\nscheduler = slurm\nenv = {"OMP_NUM_THREADS=1", "A=a"}\n' \
    >"$T/envp/base.conf"
printf 'extends = "base.conf"\nenv += {"OMP_NUM_THREADS=8", "B=b"}\n' \
    >"$T/envp/child.conf"
gen --site "$T/envp/child.conf" -e OMP_NUM_THREADS=4 -e C=c train.py \
    >"$T/env.sh"
expect_eq "env by name: status" "$?" 0
expect_eq "env by name: exports" \
    "$(grep -E '^export (OMP_NUM_THREADS|A|B|C)=' "$T/env.sh" | tr -d "'\"" | tr '\n' ' ')" \
    "export OMP_NUM_THREADS=4 export A=a export B=b export C=c "
gen --site "$T/envp/child.conf" train.py >"$T/env.sh"
expect_eq "env by name: child wins" \
    "$(grep -E '^export OMP_NUM_THREADS=' "$T/env.sh" | tr -d "'\"")" \
    "export OMP_NUM_THREADS=8"
# A template path in a profile is relative to the file that sets it: a
# centre ships one beside its profile, a user extends the profile from
# elsewhere and runs ddpgen from anywhere.
mkdir -p "$T/centre/tmpl" "$T/home" "$T/elsewhere" "$T/other"
cp "$srcdir/templates/slurm.sh" "$T/centre/tmpl/c.sh"
printf '# centre marker\n' >>"$T/centre/tmpl/c.sh"
printf 'description = "centre"\nscheduler = slurm\ntemplate = "tmpl/c.sh"\n' \
    >"$T/centre/site.conf"
printf 'extends = "../centre/site.conf"\naccount = "m1"\n' >"$T/home/user.conf"
(cd "$T/elsewhere" && gen --site ../home/user.conf train.py) >"$T/tmpl.sh"
expect_eq "relative template: status" "$?" 0
expect_eq "relative template: used" "$(tail -n 1 "$T/tmpl.sh")" "# centre marker"
# --show-site prints a path that loads back, from another directory.
(cd "$T/home" && gen --show-site ./user.conf) >"$T/other/dump.conf"
expect_eq "round trip: --show-site status" "$?" 0
(cd / && gen --site "$T/other/dump.conf" train.py) >"$T/tmpl2.sh"
expect_eq "round trip: status" "$?" 0
sed 1,3d "$T/tmpl.sh" >"$T/tmpl.body"
sed 1,3d "$T/tmpl2.sh" >"$T/tmpl2.body"
expect_eq "round trip: same job" \
    "$(cmp -s "$T/tmpl.body" "$T/tmpl2.body" && echo same)" same
(cd "$T/other" && gen --show-site ./dump.conf) | grep -v '^#' >"$T/dump2.body"
grep -v '^#' "$T/other/dump.conf" >"$T/dump.body"
expect_eq "round trip: same dump" \
    "$(cmp -s "$T/dump.body" "$T/dump2.body" && echo same)" same
# sbatch_extra items are options as typed after sbatch; each is one word
# of its #SBATCH line, an option's value joined to it.
printf 'description = "x"\nscheduler = slurm\nsbatch_extra = {"-w node1", "--nodelist a b", "--mail-type=END"}\n' \
    >"$T/sbx.conf"
gen --site "$T/sbx.conf" train.py >"$T/sbx.sh"
expect_eq "sbatch_extra: status" "$?" 0
expect_eq "sbatch_extra: lines" "$(grep -e '^#SBATCH -w' -e '^#SBATCH .*--nodelist' \
    -e '^#SBATCH --mail' "$T/sbx.sh")" "#SBATCH -wnode1
#SBATCH '--nodelist=a b'
#SBATCH --mail-type=END"
# A template's names are all checked when it loads, in sections that
# this job does not render too.
{ cat "$srcdir/templates/slurm.sh"; printf '{{?qos}}\n#SBATCH --qos={{qso}}\n{{/qos}}\n'; } \
    >"$T/typo.sh"
gen -T "$T/typo.sh" train.py >/dev/null 2>"$T/err"
expect_eq "template typo: status" "$?" 3
expect_eq "template typo: message" "$(cat "$T/err")" \
    "ddpgen: $T/typo.sh:$(wc -l <"$T/typo.sh" | awk '{ print $1 - 1 }'): unknown variable 'qso'"
finish
