#!/bin/sh
# t-env-default.sh: the profile key env_default. A job script (Slurm,
# PBS, LSF, Flux) exports an entry only when it does not have the
# variable (the user's own, or a module's, wins); env and -e leave their
# names out; on HPC Pack, whose jobs see no submitting environment, the
# entries join env.
. "$(dirname "$0")/lib.sh"

need_built
command -v bash >/dev/null || skip "needs bash"
cd "$T" || exit 1
mkdir -p cfg/ddpgen/profiles
XDG_CONFIG_HOME=$T/cfg
export XDG_CONFIG_HOME
cat >cfg/ddpgen/profiles/d.conf <<'CONF'
extends = "slurm"
env_default = {"A=1", "B=from default", "C=3", "D=$HOME/d", "A=2"}
env = {"C=9"}
CONF
check "ddpgen with env_default" \
    "$DDPGEN" -s d -N 2 -e B=7 --ddprank /x/ddprank -o job.sh train.py || finish
# Only A and D: B and C are given by -e and env. A's last value counts.
expect_eq "the defaults in the script" \
    "$(grep '^ddpgen_default ' job.sh)" \
    "ddpgen_default A 2
ddpgen_default D \"\${HOME-}\"/d"
check "env's C" grep -q '^export C=9$' job.sh
check "-e's B" grep -q '^export B=7$' job.sh
check "bash -n" bash -n job.sh
if command -v shellcheck >/dev/null; then
	expect_eq "shellcheck" "$(shellcheck -s bash job.sh 2>&1)" ""
fi

# The block, run: A set before (even empty) stays; D is set.
sed -n '/^ddpgen_default() {/,/^}$/p;/^ddpgen_default /p' job.sh >block.sh
got=$(env -u D A= HOME=/h bash -c 'set -eu; . ./block.sh
	printf "%s|%s" "${A-unset}" "${D-unset}"')
expect_eq "A kept, D set" "$got" "|/h/d"
got=$(env -u A -u D HOME=/h bash -c 'set -eu; . ./block.sh
	printf "%s|%s" "${A-unset}" "${D-unset}"')
expect_eq "A and D set" "$got" "2|/h/d"

# The other shell-script schedulers export the same block: PBS (qsub
# runs the script with the job's environment, and setup lines may load
# modules), LSF (bsub passes the submitting environment) and Flux.
for sched in polaris lsf tuolumne; do
	cat >cfg/ddpgen/profiles/d-$sched.conf <<CONF
extends = "$sched"
env_default = {"A=1", "B=from default", "D=\$HOME/d", "A=2"}
CONF
	check "ddpgen $sched with env_default" "$DDPGEN" -s "d-$sched" -N 2 \
	    --ddprank /x/ddprank -o "job-$sched.sh" train.py || continue
	# Polaris's env names none of these; B stays a default.
	sed -n '/^ddpgen_default() {/,/^}$/p;/^ddpgen_default /p' \
	    "job-$sched.sh" >"block-$sched.sh"
	got=$(env -u D -u B A= HOME=/h bash -c 'set -eu; . "$1"
		printf "%s|%s|%s" "${A-unset}" "${B-unset}" "${D-unset}"' \
	    sh "./block-$sched.sh")
	expect_eq "$sched: A kept, B and D set" "$got" "|from default|/h/d"
done

# HPC Pack: the defaults are job variables like env's.
cat >cfg/ddpgen/profiles/h.conf <<'CONF'
extends = "hpcpack"
env_default = {"A=1", "C=3"}
env = {"C=9"}
CONF
check "ddpgen hpcpack with env_default" \
    "$DDPGEN" -s h -N 2 -f xml -o job.xml /app/train.py || finish
check "A as a job variable" grep -q '<Name>A</Name>' job.xml
expect_eq "C once, env's" "$(grep -c '<Name>C</Name>' job.xml)" 1
check "env's C value" grep -q '<Value>9</Value>' job.xml
finish
