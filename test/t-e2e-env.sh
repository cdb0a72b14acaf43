#!/bin/sh
# t-e2e-env.sh: environment values and setup lines in real jobs. A
# 2-node cluster of test/cluster comes up; "ddpgen ... >job.sh && sbatch
# --wait job.sh" runs torchrun with a training script that records its
# environment (test/e2e/envdump.py, no torch: cheap), and each node's
# record must show:
# - -e 'PATH=/opt/venv/bin:$PATH' and other $NAME / ${NAME} references
#   expanded in the job, and nothing else expanded;
# - --env API_KEY passing the submitting shell's value, which is never
#   written to job.sh: by default, with "sbatch --export=API_KEY" under
#   SBATCH_EXPORT=NONE, and a clear failure when the job does not get it;
# - setup lines run without -u (source /etc/bash.bashrc reads PS1);
# - a profile's ${SLURM_JOB_ID} in env and setup meaning the job's.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh

# --- what the test needs -------------------------------------------------------
need_cluster sbatch srun scancel torchrun timeout
need_built ddpgen ddprank
[ -f /etc/bash.bashrc ] || skip "no /etc/bash.bashrc to source in a setup line"
[ -n "$T" ] && [ -d "$T" ] || { echo "FAIL: no temporary directory"; exit 1; }
T=$(cd "$T" && pwd)

DDPGEN_PROFILE_PATH=$srcdir/test/e2e:$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# --- the cluster ---------------------------------------------------------------
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
export CLUSTER_DIR
on_exit '"$cluster" down'
trap 'exit 130' INT TERM HUP
check "cluster.sh up" "$cluster" up 2 || finish
eval "$("$cluster" env)"

# --- the job -------------------------------------------------------------------
# The secret holds what would run if it were expanded or written raw.
secret='s3cr3t $(touch pwned) `touch pwned` '\''q'\'' "dq" *'
envdump=$srcdir/test/e2e/envdump.py

# A profile whose values use the job's variables, as a centre writes
# them: expanded when the job runs, never when ddpgen loads the profile.
cat >"$T/envtest.conf" <<'EOF'
extends = "e2e-slurm"
env = {"PROFILE_DIR=/scratch/${SLURM_JOB_ID}/p", "PROFILE_OLD=\${SLURM_JOB_ID}"}
setup = {"export PROFILE_SETUP=/scratch/${SLURM_JOB_ID}"}
EOF

# gen NAME DDPGEN-ARGS...: $T/NAME/job.sh, recording into $T/NAME/rec.
gen() {
	name=$1
	shift
	mkdir -p "$T/$name/rec"
	if ! check "$name: ddpgen" \
	    "$DDPGEN" -s "$T/envtest.conf" -N 2 -n 1 -t 2 "$@" "$envdump" \
	    "$T/$name/rec" >"$T/$name/job.sh" 2>"$T/$name/ddpgen.err"; then
		cat "$T/$name/ddpgen.err"
		return 1
	fi
	check "$name: the secret is in job.sh" \
	    ! grep -n s3cr3t "$T/$name/job.sh"
}

# submit NAME [SBATCH-ARGS...]: sbatch --wait from $T/NAME with the
# secret in the environment; sets RC, JOBID and OUT.
submit() {
	name=$1
	shift
	(cd "$T/$name" && API_KEY=$secret exec timeout 120 sbatch --parsable \
	    --wait "$@" job.sh >sbatch.out 2>sbatch.err)
	RC=$?
	JOBID=$(sed -n '1{s/;.*//;p;}' "$T/$name/sbatch.out")
	OUT=$T/$name/ddp-$JOBID.out
	check "$name: no job id: $(cat "$T/$name/sbatch.err")" test -n "$JOBID"
}

# value FILE VAR: VAR in a node's record, "<unset>" when missing.
value() {
	python3 -c 'import json, sys
env = json.load(open(sys.argv[1]))
print(env.get(sys.argv[2], "<unset>"))' "$1" "$2"
}

show() { echo "--- $OUT"; cut -c 1-300 "$OUT"; cat "$T/$1/sbatch.err"; }

# --- job-time expansion, --env NAME, setup lines -------------------------------
submit_path=$PATH
if gen vars -e 'PATH=/opt/venv/bin:$PATH' \
    -e 'JOBDIR=/scratch/${SLURM_JOB_ID}/run' \
    -e 'NODES=$SLURM_JOB_NUM_NODES' \
    -e 'LIT=\$HOME ${SLURM_JOB_ID:-x} $(touch pwned) `touch pwned` * ~' \
    -e 'EMPTY=${ENVTEST_UNSET}' \
    --env API_KEY \
    -S 'source /etc/bash.bashrc' \
    -S 'export FROM_SETUP="$SLURM_JOB_ID $ENVTEST_UNSET"'; then
	submit vars
	expect_eq "vars: sbatch --wait exit status" "$RC" 0
	expect_eq "vars: records (one per node)" "$(ls "$T/vars/rec" | wc -l)" 2
	for f in "$T"/vars/rec/*; do
		[ -e "$f" ] || continue
		n=vars:$(basename "$f")
		expect_eq "$n: PATH" "$(value "$f" PATH)" "/opt/venv/bin:$submit_path"
		expect_eq "$n: JOBDIR" "$(value "$f" JOBDIR)" "/scratch/$JOBID/run"
		expect_eq "$n: NODES" "$(value "$f" NODES)" 2
		expect_eq "$n: LIT" "$(value "$f" LIT)" \
		    '$HOME ${SLURM_JOB_ID:-x} $(touch pwned) `touch pwned` * ~'
		expect_eq "$n: EMPTY" "$(value "$f" EMPTY)" ""
		expect_eq "$n: API_KEY" "$(value "$f" API_KEY)" "$secret"
		expect_eq "$n: FROM_SETUP" "$(value "$f" FROM_SETUP)" "$JOBID "
		expect_eq "$n: PROFILE_DIR" "$(value "$f" PROFILE_DIR)" "/scratch/$JOBID/p"
		expect_eq "$n: PROFILE_OLD" "$(value "$f" PROFILE_OLD)" "$JOBID"
		expect_eq "$n: PROFILE_SETUP" "$(value "$f" PROFILE_SETUP)" "/scratch/$JOBID"
	done
	[ "$RC" = 0 ] || show vars
	check "vars: a value ran as code" test -z "$(find "$T" -name pwned)"
fi

# --- under SBATCH_EXPORT=NONE, as documented: sbatch --export=API_KEY -------------
# PYTHONPATH carries the test cluster's torchrun fix (test/cluster/README.md).
SBATCH_EXPORT=NONE
export SBATCH_EXPORT
if gen none --env API_KEY; then
	submit none --export=API_KEY,PYTHONPATH
	expect_eq "none: sbatch --wait exit status" "$RC" 0
	expect_eq "none: records (one per node)" "$(ls "$T/none/rec" | wc -l)" 2
	for f in "$T"/none/rec/*; do
		[ -e "$f" ] || continue
		expect_eq "none:$(basename "$f"): API_KEY" \
		    "$(value "$f" API_KEY)" "$secret"
	done
	[ "$RC" = 0 ] || show none
fi

# --- the variable does not reach the job: it stops, naming it -----------------------
if gen missing --env API_KEY; then
	submit missing
	check "missing: sbatch --wait exit status 0" test "$RC" != 0
	expect_eq "missing: records" "$(ls "$T/missing/rec" | wc -l)" 0
	check "missing: the output does not name API_KEY" \
	    grep -q "^ddpgen job: API_KEY is not in the job's environment" "$OUT" ||
		show missing
fi
unset SBATCH_EXPORT

finish
