#!/bin/sh
# t-ddpgen-hostile.sh: hostile training arguments and --env values go
# through a generated Slurm script and reach the training command byte for
# byte. The script's srun line (mpiexec for the PBS site polaris) runs
# for real with stand-ins for srun, mpiexec, ddprank and torchrun that
# record what they receive.
. "$(dirname "$0")/lib.sh"

# deps.sh installs shellcheck: without it the scripts go unchecked.
check "shellcheck installed" command -v shellcheck >/dev/null || finish
mkdir -p "$T/bin"
# The job's node count, which srun's options take from Slurm.
SLURM_NNODES=2
export SLURM_NNODES
# srun stand-in: drop srun's own options, run the task once.
cat >"$T/bin/srun" <<'STUB'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -N|-n) shift 2 ;; --*) shift ;; *) break ;; esac
done
exec "$@"
STUB
# ddprank stand-in: "ip" prints an address; "doctor" (the preflight)
# passes; "exec" records its argv and runs what follows "--".
cat >"$T/bin/ddprank" <<'STUB'
#!/bin/sh
case $1 in
ip)	echo 192.0.2.1; exit 0 ;;
doctor)	exit 0 ;;
exec)	for a; do printf '%s\0' "$a"; done >"$REC.ddprank"
	while [ "$1" != -- ]; do shift; done
	shift
	exec "$@" ;;
esac
exit 9
STUB
# torchrun stand-in: records argv and the variables under test (an unset
# one as "(unset)").
cat >"$T/bin/torchrun" <<'STUB'
#!/bin/sh
for a; do printf '%s\0' "$a"; done >"$REC"
printf '%s\0' "${HOSTILE_ENV-(unset)}" "${MASTER_ADDR-(unset)}" >"$REC.env"
STUB
# mpiexec stand-in (PBS, polaris): drop -n N --ppn 1, run the command.
cat >"$T/bin/mpiexec" <<'STUB'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -n|--ppn) shift 2 ;; *) break ;; esac
done
exec "$@"
STUB
# module and conda stand-ins for the profiles' setup lines.
printf '#!/bin/sh\nexit 0\n' >"$T/bin/module"
cp "$T/bin/module" "$T/bin/conda"
chmod +x "$T/bin/srun" "$T/bin/ddprank" "$T/bin/torchrun" "$T/bin/module" \
    "$T/bin/mpiexec" "$T/bin/conda"
# A PBS job's node file and id (polaris); the timer of requeue, which
# would outlive the job here, is left out with --no-requeue.
printf 'node1\nnode1\n' >"$T/nodefile"
PBS_NODEFILE=$T/nodefile PBS_JOBID=1234.pbs
export PBS_NODEFILE PBS_JOBID

nl='
'
tab=$(printf '\t')
q="'" dq='"'
set -- "plain" "two words" "it's" 'say "hi"' '$(touch pwned)' '`touch pwned`' \
    "a${nl}b" "${nl}" "${tab}x" '*' '?' '[ab]' '~' '--' '-' '--epochs=3' \
    "" '\' '\\n' '$HOME' '${HOME}' '!!' '#not a comment' '; exit 1' \
    '| cat' '&' '>out' '<in' "$(printf 'caf\303\251')" "$(printf '\377\376')" \
    "$(printf 'x\001y\177z')" "$q$dq$q$dq" '{a,b}' ' ' "trailing${nl}"

for site in cori plmt slurm polaris; do
	more=
	[ "$site" != polaris ] || more=--no-requeue
	rm -f "$T/rec"*
	REC=$T/rec
	export REC
	env_value="v 'q' \"d\" \$(x) \`y\`${nl}line2"
	# shellcheck disable=SC2086 # $more: one word or none
	"$DDPGEN" --site "$site" $more --nodes 2 --ddprank "$T/bin/ddprank" \
	    --env "HOSTILE_ENV=$env_value" -o "$T/job.sh" \
	    /scratch/my\ dir/train.py "$@"
	expect_eq "$site: ddpgen exit" "$?" 0
	# A stale MASTER_ADDR, as sbatch would export from the submitter,
	# must not reach torchrun.
	(cd "$T" && PATH="$T/bin:$PATH" MASTER_ADDR=198.51.100.9 \
	    SLURM_NNODES=2 bash ./job.sh) \
	    >"$T/out" 2>&1
	expect_eq "$site: job exit" "$?" 0
	nproc=1 bind=
	# plmt and polaris bind: the workers run through ddprank bind.
	case $site in plmt|polaris) nproc=4 bind=1 ;; esac
	{
		printf '%s\0' "--nproc_per_node=$nproc"
		[ -z "$bind" ] || printf '%s\0' --no_python "$T/bin/ddprank" \
		    bind --python --
		for a in "/scratch/my dir/train.py" "$@"; do
			printf '%s\0' "$a"
		done
	} >"$T/want"
	check "$site: torchrun argv as given; got: $(od -c "$T/rec" | head -20)" \
	    cmp -s "$T/want" "$T/rec"
	# ddprank exec got the site's options and, after "--", torchrun
	# with the same arguments.
	{
		printf '%s\0' exec
		case $site in
		cori) printf '%s\0' --iface '^eth3$' ;;
		plmt) printf '%s\0' --iface '^nmn0$' --comm-iface '^hsn[0-9]+$' ;;
		polaris) printf '%s\0' --iface '^hsn0$' ;;
		esac
		printf '%s\0' --port auto --port-range 20000-29999 \
		    --rdzv static
		[ -z "$bind" ] ||
		    printf '%s\0' --bind gpu --nproc-per-node "$nproc"
		printf '%s\0' -- torchrun
		cat "$T/want"
	} >"$T/want.ddprank"
	check "$site: ddprank argv as given; got: $(od -c "$T/rec.ddprank" | head -20)" \
	    cmp -s "$T/want.ddprank" "$T/rec.ddprank"
	# The master address is what "ddprank ip" printed, or, for
	# hostname discovery (slurm), unset for ddprank to find.
	master=192.0.2.1
	[ "$site" != slurm ] || master='(unset)'
	printf '%s\0' "$env_value" "$master" >"$T/want.env"
	check "$site: HOSTILE_ENV and MASTER_ADDR as given; got: $(od -c "$T/rec.env")" \
	    cmp -s "$T/want.env" "$T/rec.env"
	check "$site: no argument ran as code" test ! -e "$T/pwned"
	out=$(shellcheck -s bash "$T/job.sh" 2>&1)
	expect_eq "$site: shellcheck" "$out" ""
	bash -n "$T/job.sh"
	expect_eq "$site: bash -n" "$?" 0
done
finish
