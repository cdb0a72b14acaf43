#!/bin/sh
# t-ddpgen-cli.sh: ddpgen's command-line validation, exit statuses and
# atomic output.
. "$(dirname "$0")/lib.sh"

# run_err WANT_STATUS WANT_STDERR_PATTERN ARGS...: one error line, the
# status documented in ddpgen(1), nothing on stdout.
run_err() {
	want_rc=$1 pat=$2
	shift 2
	"$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank "$@" >"$T/out" 2>"$T/err"
	rc=$?
	expect_eq "ddpgen $* status" "$rc" "$want_rc"
	expect_eq "ddpgen $* stdout" "$(cat "$T/out")" ""
	check "ddpgen $*: stderr [$(cat "$T/err")] lacks [$pat]" \
	    grep -q -- "$pat" "$T/err"
	# One line, unless the usage follows it.
	grep -q '^usage:' "$T/err" ||
	    expect_eq "ddpgen $*: lines on stderr" "$(wc -l <"$T/err")" 1
}

run_err 2 "^ddpgen: --nodes: '0' is not a number from 1" --nodes 0 train.py
run_err 2 "^ddpgen: --nodes: 'x' is not a number" --nodes x train.py
run_err 2 "^ddpgen: --time: '1:2:3:4' is not a Slurm time" --time 1:2:3:4 train.py
run_err 2 "^ddpgen: --time: 'soon' is not a Slurm time" -t soon train.py
run_err 2 "^ddpgen: --rdzv: 'etcd' is not static or c10d" --rdzv etcd train.py
run_err 2 "^ddpgen: --port: '70000' is not auto or a number from 1 to 65535$" --port 70000 train.py
run_err 2 "^ddpgen: --env: 'A B=1' is not NAME=VALUE or NAME" --env 'A B=1' train.py
run_err 2 "^ddpgen: --env: 'NO VALUE' is not NAME=VALUE or NAME" --env 'NO VALUE' train.py
run_err 2 "^ddpgen: --env: '' is not NAME=VALUE or NAME" --env '' train.py
run_err 2 "^ddpgen: --env: 'KEY': passing a variable from the submitting shell works on Slurm, Flux and local sites only; give KEY=VALUE$" -s hpcpack --env KEY train.py
run_err 2 "^ddpgen: --env: 'KEY': passing a variable from the submitting shell works on Slurm, Flux and local sites only" -s polaris --env KEY train.py
# A key the site's scheduler's jobs do not honour: refused alike on
# every scheduler, never dropped from the job.
run_err 2 "^ddpgen: qos: a key PBS jobs have no word for (they take: partition, account, job_output, cpus_per_task, requeue, signal_lead, checkpoint_signal, max_requeues, hang_timeout, hang_dir, max_failures, bad_node_hours, filesystems, pbs_select and pbs_launcher)$" -s polaris -q premium train.py
run_err 2 "^ddpgen: constraint: a key PBS jobs have no word for" -s polaris -C a100 train.py
run_err 2 "^ddpgen: qos: a key Flux jobs have no word for (they take: partition, account, constraint, job_output, label_output, requeue, signal_lead, checkpoint_signal, max_requeues, hang_timeout, hang_dir, max_failures and bad_node_hours)$" -s tuolumne -q premium train.py
run_err 2 "^ddpgen: qos: a key LSF jobs have no word for" -s lsf -q premium train.py
run_err 2 "^ddpgen: requeue: a key HPC Pack jobs have no word for (they take: node_group, shared_dir, task_shell, path, fail_on_task_failure and exchange_timeout)$" -s hpcpack --requeue train.py
run_err 2 "^ddpgen: partition: a key HPC Pack jobs have no word for" -s hpcpack -p gpu train.py
run_err 2 "^ddpgen: account: a key HPC Pack jobs have no word for" -s hpcpack -A proj train.py
# HPC Pack has no warning to lead: --signal-lead was dropped there
# unseen.
run_err 2 "^ddpgen: signal_lead: a key HPC Pack jobs have no word for" -s hpcpack --signal-lead 300 train.py
run_err 2 "^ddpgen: no training script given" --nodes 2
run_err 2 "usage: ddpgen" --bogus train.py
run_err 3 "^ddpgen: .*unknown site 'nosuch'.*cori.*plmt.*slurm" --site nosuch train.py
run_err 2 "^ddpgen: .*\(newline\|control\)" --job-name "$(printf 'a\nb')" train.py
run_err 2 "^ddpgen: .*bad pattern '(': .* at offset 1" --iface '(' train.py
# Control bytes in a value are shown, not written: still one line.
run_err 2 "^ddpgen: --rdzv: 'x\\\\ny\\\\x01' is not static" --rdzv "$(printf 'x\ny\001')" train.py
run_err 2 "^ddpgen: iface: control character in '(\\\\r\\\\n\\.'" --iface "$(printf '(\r\n.')" train.py
run_err 2 "^ddpgen: --env: 'A\\\\nB=1' is not NAME=VALUE" --env "$(printf 'A\nB=1')" train.py
run_err 3 "^ddpgen: .*\(not readable\|not found\)" --template "$T/none.sh" train.py

# Errors never leave a file behind, and success writes mode 0755.
run_err 2 "" --nodes 0 -o "$T/job.sh" train.py
check "error left $T/job.sh" test ! -e "$T/job.sh"
printf '#!/bin/bash\n{{nosuchvar}}\n' >"$T/bad.sh"
run_err 3 "^ddpgen: $T/bad.sh:2: .*nosuchvar" -T "$T/bad.sh" -o "$T/job.sh" train.py
check "template error left $(ls "$T")" test -z "$(ls "$T" | grep '^job')"
run_err 1 "^ddpgen: $T/nodir/job.sh" -o "$T/nodir/job.sh" train.py

(umask 022; "$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank -o "$T/job.sh" train.py)
expect_eq "-o status" "$?" 0
expect_eq "-o mode" "$(stat -c %a "$T/job.sh")" 755
expect_eq "-o leftovers" "$(ls "$T" | grep -c '^job.sh.')" 0

# --help on stdout with status 0; --version.
expect_eq "--help" "$("$DDPGEN" --help | head -c 13)" "usage: ddpgen"
expect_eq "--version" "$("$DDPGEN" --version)" "ddpgen $(cat "$srcdir/VERSION")"

# Options after the script belong to the script.
"$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank train.py --nodes 5 -h >"$T/job.sh"
expect_eq "options after script" "$(grep -c '^#SBATCH --nodes=1$' "$T/job.sh")" 1
expect_eq "options after script (args)" \
    "$(grep -cE '^	train.py --nodes 5 -h( &)?$' "$T/job.sh")" 1

# Without --site the generic slurm profile is used.
expect_eq "default site" "$(sed -n 2p "$T/job.sh")" \
    "# Generated by ddpgen $(cat "$srcdir/VERSION") for site slurm. Regenerate with:"

# --list-sites names every shipped profile with where it was found.
"$DDPGEN" --list-sites >"$T/sites"
for s in cori:slurm frontier:slurm plmt:slurm slurm:slurm hpcpack:hpcpack polaris:pbs \
    tuolumne:flux; do
	check "--list-sites lacks ${s%:*} (${s#*:}): $(cat "$T/sites")" \
	    grep -q "^${s%:*} *${s#*:} .*profiles/${s%:*}.conf" "$T/sites"
done

# A user's site file extending a shipped one, by path and by search path.
mkdir -p "$T/cfg/ddpgen/profiles"
printf 'extends = "cori"\naccount = "m1234"\n' >"$T/cfg/ddpgen/profiles/mine.conf"
XDG_CONFIG_HOME=$T/cfg "$DDPGEN" --ddprank /x/ddprank --site mine train.py >"$T/job.sh"
expect_eq "user site status" "$?" 0
expect_eq "user site account" "$(grep -c '^#SBATCH --account=m1234$' "$T/job.sh")" 1
expect_eq "user site iface" "$(grep -c "ip --first-node --iface '\^eth3\\$'" "$T/job.sh")" 1
"$DDPGEN" --ddprank /x/ddprank --site "$T/cfg/ddpgen/profiles/mine.conf" train.py >"$T/job2.sh"
sed 1,3d "$T/job2.sh" >"$T/job2.sh.body"
expect_eq "site by path" "$(sed 1,3d "$T/job.sh" | cmp -s - "$T/job2.sh.body" && echo same)" same
DDPGEN_PROFILE_PATH=$T/cfg/ddpgen/profiles "$DDPGEN" --show-site mine >"$T/show"
expect_eq "--show-site status" "$?" 0
expect_eq "--show-site account" "$(grep -c 'account *= *"m1234"' "$T/show")" 1

# Command-line values override the profile.
"$DDPGEN" --ddprank /x/ddprank --site cori -A acct -p debug -C knl -q premium \
    -t 10 -J myjob -N 2 -G 4 -n 3 -P 4242 -r c10d -i '^ib0$' train.py >"$T/job.sh"
for want in '#SBATCH --account=acct' '#SBATCH --partition=debug' \
    '#SBATCH --constraint=knl' '#SBATCH --qos=premium' '#SBATCH --time=10' \
    '#SBATCH --job-name=myjob' '#SBATCH --gpus-per-node=4'; do
	expect_eq "override $want" "$(grep -cx -- "$want" "$T/job.sh")" 1
done
check "override runtime options: $(grep exec "$T/job.sh")" \
    grep -q -- "exec --iface '\^ib0\$' --port 4242 --port-range 20000-29999 --rdzv c10d --" "$T/job.sh"
check "override nproc" grep -q -- "torchrun --nproc_per_node=3 " "$T/job.sh"
# Secrets: --env NAME passes the submitting shell's value at run time and
# writes none; NAME=VALUE is written once, in the env section, never in
# the "Regenerate with" comment (of an HPC Pack job either), whatever
# form the option takes.
SECRET_KEY=s3cr3t-value "$DDPGEN" --ddprank /x/ddprank --env SECRET_KEY -o "$T/pass.sh" train.py
expect_eq "--env NAME: status" "$?" 0
expect_eq "--env NAME: the value is not in the file" "$(grep -c s3cr3t "$T/pass.sh")" 0
expect_eq "--env NAME: passed at run time" "$(grep -c '^ddpgen_pass SECRET_KEY$' "$T/pass.sh")" 1
"$DDPGEN" --ddprank /x/ddprank -e K1=s3cr3t1 -eK2=s3cr3t2 --env=K3=s3cr3t3 \
    --env K4=s3cr3t4 -o "$T/given.sh" train.py
for k in 1 2 3 4; do
	expect_eq "-e K$k=VALUE: written once" "$(grep -c "s3cr3t$k" "$T/given.sh")" 1
	expect_eq "-e K$k=VALUE: exported" "$(grep -c "^export K$k=s3cr3t$k\$" "$T/given.sh")" 1
done
expect_eq "-e: the placeholders" "$(sed -n 3p "$T/given.sh")" \
    "#   ddpgen --ddprank /x/ddprank -e 'K1=<value>' '-eK2=<value>' '--env=K3=<value>' --env 'K4=<value>' -o $T/given.sh train.py"
"$DDPGEN" --ddprank /x/ddprank -s hpcpack -e K1=s3cr3t1 -o "$T/given.xml" train.py
expect_eq "-e K1=VALUE in XML: written once" "$(grep -c s3cr3t1 "$T/given.xml")" 1
# The last --env of a name wins, a bare one included.
SECRET_KEY=x "$DDPGEN" --ddprank /x/ddprank -e SECRET_KEY=a --env SECRET_KEY -o "$T/last.sh" train.py
expect_eq "--env NAME after NAME=VALUE" "$(grep -c -e 'SECRET_KEY=a' -e '^ddpgen_pass SECRET_KEY$' "$T/last.sh")" 1
"$DDPGEN" --ddprank /x/ddprank --env SECRET_KEY -e SECRET_KEY=a -o "$T/last.sh" train.py
expect_eq "NAME=VALUE after --env NAME" "$(grep -c -e '^export SECRET_KEY=a$' -e 'ddpgen_pass SECRET_KEY$' "$T/last.sh")" 1

# Setup lines bash refuses: an error naming the line, no file written;
# lines that are valid only together pass; no bash, no check.
run_err 2 "^ddpgen: --setup: 'if true' is not valid shell: syntax error: unexpected end of file$" -S 'if true' -o "$T/setup.sh" train.py
check "a setup line bash refuses left $T/setup.sh" test ! -e "$T/setup.sh"
run_err 2 "^ddpgen: --setup: 'fi' is not valid shell: syntax error near unexpected token" -S 'module load x' -S fi train.py
run_err 2 "^ddpgen: --setup: 'cat <<EOF' is not valid shell: warning: here-document" -S 'cat <<EOF' train.py
run_err 2 "^ddpgen: --setup: 'if true' is not valid shell" -s hpcpack -S 'if true' train.py
"$DDPGEN" --ddprank /x/ddprank -S 'for x in a b; do' -S 'echo "$x"' -S done train.py >"$T/multi.sh"
expect_eq "setup lines valid together" "$?" 0
printf 'extends = "slurm"\nsetup = {"if true"}\n' >"$T/badsetup.conf"
# A profile's line is named by FILE:LINE, as exit status 3 promises.
run_err 3 "^ddpgen: $T/badsetup.conf:2: setup: 'if true' is not valid shell" -s "$T/badsetup.conf" train.py
printf 'extends = "%s"\ndescription = "d"\n\nsetup = {"fi"}\n' "$T/badsetup.conf" >"$T/badsetup2.conf"
run_err 3 "^ddpgen: $T/badsetup2.conf:4: setup: 'fi' is not valid shell" -s "$T/badsetup2.conf" train.py
cp "$srcdir/templates/slurm.sh" "$T/broken.sh"
printf 'if true\n' >>"$T/broken.sh"
run_err 3 "^ddpgen: $T/broken.sh: the generated script is not valid shell: line [0-9]*: syntax error" -T "$T/broken.sh" train.py
mkdir -p "$T/nobash"
PATH=$T/nobash "$DDPGEN" --ddprank /x/ddprank -S 'if true' train.py >"$T/nobash.sh"
expect_eq "no bash in PATH: no check" "$?" 0

# Words that would make a job that runs '': refused, as is an image that
# no container runtime would run.
run_err 2 "^ddpgen: script: the training script is an empty word ('')$" ''
expect_eq "'' as an argument of the training is one" \
    "$("$DDPGEN" --ddprank /x/ddprank train.py '' >/dev/null; echo $?)" 0
printf 'extends = "slurm"\nlauncher = {""}\n' >"$T/nolauncher.conf"
run_err 3 "^ddpgen: $T/nolauncher.conf:2: launcher: word 1 is empty ('')$" -s "$T/nolauncher.conf" train.py
printf 'extends = "slurm"\nlauncher = {"torchrun", ""}\n' >"$T/nolauncher2.conf"
run_err 3 "^ddpgen: $T/nolauncher2.conf:2: launcher: word 2 is empty ('')$" -s "$T/nolauncher2.conf" train.py
run_err 2 "^ddpgen: --image: 'x.sif' needs a container runtime: --container, or the profile's container$" --image x.sif train.py
run_err 2 "^ddpgen: --image: 'x.sif' needs a container runtime" --image x.sif --container none train.py
"$DDPGEN" --ddprank /x/ddprank --image x.sif --container apptainer train.py >"$T/img.sh"
expect_eq "--image with --container" "$?" 0

finish
