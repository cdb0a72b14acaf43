# test/emu/lib.sh: the emulation driver, sourced after test/lib.sh by the
# tests that play a scheduler no Debian package provides: the
# t-*-emulate.sh tests (the scheduler on the namespace nodes of a
# test/cluster cluster) and the t-*requeue-script.sh tests (a generated
# script under stand-ins that log what they are asked). The stand-ins
# are files, one directory per scheduler beside this one, each naming
# its sources in its head comment:
#   lsf/         LSF (lsf-run, blaunch, jsrun, bkill, bstatus, brequeue,
#                bsub)
#   pbs/         PBS Pro MoM's launchers (mpiexec, pbsdsh, qstat, qsub)
#   flux/        Flux (flux, in Python)
#   hpcpack/     (none: t-hpcpack-emulate.sh's node agent is the test)
#   slurm-stub/  logging srun, squeue, scontrol, scancel, sbatch
#   flux-stub/   logging flux, ddprank
#   lsf-stub/    logging blaunch, bkill, bstatus, brequeue, bsub, ddprank
#   pbs-stub/    logging mpiexec, qsub, qstat, ddprank
# emu_setup and emu_stubs copy one directory into $T/bin.
# srcdir and T come from test/lib.sh; what emu_setup and emu_stubs set
# (cluster, check_job, TASK_PATH, stub) is the tests'.
# shellcheck shell=sh disable=SC2034,SC2154

# emu_bin DIR: the stand-ins of test/emu/DIR, executable, in $T/bin.
emu_bin() {
	mkdir -p "$T/bin"
	[ -d "$srcdir/test/emu/$1" ] || return 0
	cp "$srcdir/test/emu/$1"/* "$T/bin/"
	chmod 0755 "$T/bin"/*
}

# emu_setup SCHED COMMAND...: the prologue of an emulation on the
# namespace cluster. Skips unless the cluster can be made (need_cluster
# COMMAND...: root, its tools and COMMAND...) and ddpgen and ddprank are
# built; makes T absolute (the nodes start in other directories), sets
# cluster and check_job (test/cluster's scripts) and TASK_PATH (a task's
# minimal PATH), exports the source tree's profile and template paths,
# makes $T/home (a new user's empty home) and $T/work, and puts the
# stand-ins of test/emu/SCHED in $T/bin.
emu_setup() {
	emu_sched=$1
	shift
	T=$(cd "$T" && pwd)
	cluster=$srcdir/test/cluster/cluster.sh
	check_job=$srcdir/test/cluster/check_job.py
	TASK_PATH=/usr/sbin:/usr/bin:/sbin:/bin
	need_cluster "$@"
	need_built ddpgen ddprank
	DDPGEN_PROFILE_PATH=$srcdir/profiles
	DDPGEN_TEMPLATE_PATH=$srcdir/templates
	export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH
	mkdir -p "$T/home" "$T/work"
	emu_bin "$emu_sched"
}

# emu_login_torch PATH: skips unless python3 of a bash login shell with
# PATH and the empty $T/home imports torch.distributed, as the tasks'
# login shells must (a site's /etc/profile would see to it).
emu_login_torch() {
	env -i PATH="$1" HOME="$T/home" bash -lc \
	    'python3 -c "import torch.distributed"' 2>/dev/null ||
	    skip "python3 of a login shell with PATH $1 cannot import torch"
}

# emu_stubs SCHED: skips without bash; the logging stand-ins of
# test/emu/SCHED-stub in $T/bin, which stub names.
emu_stubs() {
	command -v bash >/dev/null || skip "no bash"
	stub=$T/bin
	emu_bin "$1-stub"
}

# emu_argv ARGS...: ARGS NUL-separated in $T/argv, for check_job.py's
# --argv-file.
emu_argv() {
	for a; do printf '%s\0' "$a"; done >"$T/argv"
}

# emu_show FILE...: the end of each job output FILE, without torch's
# noise, for a failed check.
emu_show() {
	for f; do
		echo "--- $f"
		grep -v -e OMP_NUM_THREADS -e '^\*\*\*' -e 'WARNING:torch' "$f" |
		    tail -n 25 | cut -c 1-400
	done
}
