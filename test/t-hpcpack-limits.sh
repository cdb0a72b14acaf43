#!/bin/sh
# t-hpcpack-limits.sh: HPC Pack's documented length limits (REFERENCE.md
# section 4): a task's CommandLine of at most 480 characters, 2,048 for
# all of the variables (ddpgen holds the job's to it, no job-level limit
# being documented), and cmd.exe's 8,191-character lines. What fits is
# written in all three formats; what does not is refused with the limit
# named, exit 2, and no file written.
. "$(dirname "$0")/lib.sh"

command -v xmllint >/dev/null || skip "xmllint is not installed"
[ -x "$DDPGEN" ] || skip "ddpgen is not built"
cd "$T" || exit 1

# task_attr FILE ATTR: the attribute of the first task.
task_attr() {
	xmllint --xpath "string(//*[local-name()='Task'][1]/@$2)" "$1"
}

# env_len FILE: the job's variables as NAME=VALUE, in characters.
env_len() {
	xmllint --xpath "//*[local-name()='Variable']" "$1" >/dev/null || return
	n=$(xmllint --xpath "count(//*[local-name()='Variable'])" "$1") i=1
	total=0
	while [ "$i" -le "$n" ]; do
		v="//*[local-name()='Variable'][$i]/*"
		s=$(xmllint --xpath "concat(string($v[local-name()='Name']), \
		    '=', string($v[local-name()='Value']))" "$1")
		total=$((total + $(printf '%s' "$s" | wc -m)))
		i=$((i + 1))
	done
	echo "$total"
}

# A modest job: 2 setup lines and 3 arguments (498 characters of
# CommandLine when the command was written there).
"$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank --site hpcpack -N 2 \
    -S 'module load cuda/12.2 cudnn/8.9 nccl/2.18' \
    -S 'source /opt/conda/etc/profile.d/conda.sh && conda activate torch-2.1' \
    /app/train.py --config=/app/configs/resnet50-imagenet.yaml --epochs=90 \
    --output-dir=/app/runs/resnet50 >modest.xml
expect_eq "modest job: ddpgen" "$?" 0
n=$(task_attr modest.xml CommandLine | wc -m)
check "modest job: CommandLine of $((n - 1)) characters" test "$n" -le 481

# Every task shell's CommandLine fits, whatever the job.
for sh in login-interactive login interactive plain; do
	printf 'extends = "hpcpack"\ntask_shell = %s\npath = "/usr/bin:/bin"\n' \
	    "$sh" >"$sh.conf"
	"$DDPGEN" --ddprank /x --site "$T/$sh.conf" /x.py \
	    "$(printf 'a%.0s' $(seq 500))" >"$sh.xml" 2>"$sh.err"
	expect_eq "task_shell $sh: ddpgen" "$?" 0
	n=$(task_attr "$sh.xml" CommandLine | wc -m)
	check "task_shell $sh: CommandLine of $((n - 1))" test "$n" -le 481
done

# The job's variables: up to 2,048 characters pass in every format, one
# more is refused. The regeneration command and the task's command both
# hold the argument; find the length that makes the total exactly 2,048.
# --format cmd is as long as --format xml in DDPGEN_COMMAND.
# The argument counts twice (in both), the profile's P once.
gen_fit() {
	printf 'extends = "hpcpack"\nenv = {"P=%s"}\n' "$pad" >fit.conf
	"$DDPGEN" --ddprank /x --site "$T/fit.conf" --format "$1" /x.py "$arg"
}
arg=b pad=
gen_fit xml >fit.xml
arg=$(printf 'b%.0s' $(seq $(( (2048 - $(env_len fit.xml)) / 2 + 1 ))))
gen_fit xml >fit.xml
[ $(( (2048 - $(env_len fit.xml)) % 2 )) -eq 0 ] || pad=x
gen_fit xml >fit.xml
expect_eq "2,048 characters of variables: counted" "$(env_len fit.xml)" 2048
for fmt in xml cmd ps; do
	gen_fit "$fmt" >/dev/null 2>fit.err
	expect_eq "2,048 characters of variables: --format $fmt" "$?" 0
done
for fmt in xml cmd ps; do
	rm -f big.out
	"$DDPGEN" --ddprank /x --site "$T/fit.conf" --format "$fmt" \
	    -o big.out /x.py "$arg" y 2>big.err
	expect_eq "over 2,048: --format $fmt exit" "$?" 2
	check "over 2,048: --format $fmt: [$(cat big.err)]" \
	    grep -q "^ddpgen: job variables: [0-9]* characters (DDPGEN_TASK, \
the task's command, [0-9]*; DDPGEN_COMMAND [0-9]*; path and env [0-9]*); \
HPC Pack takes at most 2048: " big.err
	check "over 2,048: --format $fmt wrote a file" test ! -e big.out
done

# cmd.exe's line: a job name long enough for job add's line (it holds the
# name three times) is refused by the cmd format only. It comes from a
# profile, so that the job's variables stay short.
printf 'extends = "hpcpack"\njob_name = "%s"\n' \
    "$(printf 'n%.0s' $(seq 2700))" >long.conf
"$DDPGEN" --ddprank /x --site "$T/long.conf" /x.py >/dev/null
expect_eq "2,700-character job name: --format xml" "$?" 0
rm -f long.cmd
"$DDPGEN" --ddprank /x --site "$T/long.conf" --format cmd -o long.cmd /x.py \
    2>long.err
expect_eq "2,700-character job name: --format cmd exit" "$?" 2
check "2,700-character job name: --format cmd: [$(cat long.err)]" \
    grep -q "^ddpgen: cmd.exe: line [0-9]* of the batch file has [0-9]* \
characters; \
cmd.exe reads at most 8191, less 260 kept for the file name %DDPGEN_OUT% \
expands to (use --format xml or ps)$" long.err
check "cmd line limit: a file was written" test ! -e long.cmd

finish
