#!/bin/sh
# t-ddprank-eval.sh: ddprank env output survives eval in bash whatever the
# host names and MASTER_ADDR hold, its JSON parses back to the same bytes,
# and exec passes hostile arguments to the command byte for byte.
. "$(dirname "$0")/lib.sh"

command -v bash >/dev/null || skip "needs bash to eval \$'...' words"
for sh in dash zsh; do
	command -v $sh >/dev/null || skip "needs $sh (Debian package $sh)"
done
[ -x "$DDPRANK" ] || skip "ddprank not built"
me=$(hostname)
cd "$T" || exit 1

# The values below would run commands if evaluated unquoted: they leave
# files named pwned* in $T.
nl='
'
tab=$(printf '\t')
set -- "a'b" "\$(touch pwned1)" "\`touch pwned2\`" "two words" \
	"line1${nl}line2" "back\\slash" "\"dq\"" "tab${tab}x" "*" "~" \
	"!x" "#c" "a;touch pwned3" "\${HOME}" "trailing${nl}" "$(printf 'c\001d')" \
	"é-utf8" "-n" "=x" "==eth0" "=" "~"

# A hostfile whose first hosts are hostile and whose last is this host.
# Host names cannot hold blanks in any node list format: ${IFS} can.
printf '%s\n' "x'\$(touch\${IFS}pwned4)" "\`touch\${IFS}pwned5\`" '"q"' \
	"$me slots=2" >hosts

# env: each MASTER_ADDR comes back unchanged through eval.
n=0
for v; do
	n=$((n + 1))
	printf '%s' "$v" >want.$n
	MASTER_ADDR=$v "$DDPRANK" env --hostfile hosts --port 29500 >env.$n \
		2>err.$n
	expect_eq "env $n: status" "$?" 0
	bash -c '. ./env.$1 && printf %s "$MASTER_ADDR" >got.$1 &&
		printf "%s %s %s" "$NODE_RANK" "$NNODES" "$MASTER_PORT" \
		>rest.$1' _ "$n"
	check "env $n: MASTER_ADDR changed: $(od -c got.$n)" cmp -s want.$n got.$n
	expect_eq "env $n: rank, count, port" "$(cat rest.$n)" "3 4 29500"
	# The output is POSIX: dash, which has no $'...', reads it the same.
	rm -f got.$n
	dash -c '. ./env.$1 && printf %s "$MASTER_ADDR" >got.$1' _ "$n"
	check "env $n: MASTER_ADDR through dash: $(od -c got.$n)" \
	    cmp -s want.$n got.$n
	# zsh too, where a word beginning with = is expanded.
	rm -f got.$n
	zsh -f -c '. ./env.$1 && printf %s "$MASTER_ADDR" >got.$1' _ "$n"
	check "env $n: MASTER_ADDR through zsh: $(od -c got.$n)" \
	    cmp -s want.$n got.$n
	expect_eq "env $n: four exports" "$(grep -c '^export ' env.$n)" 4
done

# The interface names, whose NCCL form begins with =, through each shell
# with the idiom the man page recommends.
for sh in bash dash zsh; do
	MASTER_ADDR=10.1.0.1 $sh -c 'vars=$("$1" env --hostfile hosts \
	    --port 29500 --iface "^lo\$") || exit; eval "$vars"
	    printf "%s|%s" "$GLOO_SOCKET_IFNAME" "$NCCL_SOCKET_IFNAME"' _ \
	    "$DDPRANK" >ifname.$sh 2>ifname.$sh.err
	expect_eq "$sh: status of the eval" "$?" 0
	expect_eq "$sh: interface names" "$(cat ifname.$sh)" "lo|=lo"
	# The idiom stops when ddprank fails: nothing after it runs.
	$sh -c 'vars=$("$1" env --hostfile ./none) || exit; eval "$vars"
	    echo went on' _ "$DDPRANK" >stop.$sh 2>/dev/null
	expect_eq "$sh: the idiom stops on failure" "$?:$(cat stop.$sh)" "4:"
done

# json: MASTER_ADDR parses back to the same string.
if command -v python3 >/dev/null; then
	n=0
	for v; do
		n=$((n + 1))
		MASTER_ADDR=$v "$DDPRANK" env --hostfile hosts --port 29500 \
			--format json >json.$n
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape"))
sys.stdout.buffer.write(d["MASTER_ADDR"].encode("utf-8", "surrogateescape"))
assert d["NODE_RANK"] == 3 and d["NNODES"] == 4 and d["MASTER_PORT"] == 29500
' json.$n >jgot.$n
		expect_eq "json $n: parses" "$?" 0
		check "json $n: MASTER_ADDR changed" cmp -s want.$n jgot.$n
	done
fi

# hosts: hostile names come back as given, one per line.
"$DDPRANK" hosts --hostfile hosts >hosts.out
printf '%s\n' "x'\$(touch\${IFS}pwned4)" "\`touch\${IFS}pwned5\`" '"q"' "$me" \
	>hosts.want
check "hosts: $(cat hosts.out)" cmp -s hosts.want hosts.out

# HPC Pack's CCP_NODES carries hostile names too; NetBIOS upper case.
upper=$(printf '%s' "$me" | tr '[:lower:]' '[:upper:]')
CCP_NODES="3 a'\$(touch\${IFS}pwned6) 4 \`touch\${IFS}pwned7\` 4 $upper 4" \
	MASTER_ADDR="m'\$(touch pwned8)" "$DDPRANK" env --port 1 >ccp.env
expect_eq "ccp: status" "$?" 0
bash -c '. ./ccp.env && printf "%s|%s|%s" "$NODE_RANK" "$NNODES" "$MASTER_ADDR"' \
	>ccp.got
expect_eq "ccp: values" "$(cat ccp.got)" "2|3|m'\$(touch pwned8)"

# exec: arguments, hostile or option-like, reach the command unchanged,
# and so do the variables.
cat >argv.sh <<'EOF'
#!/bin/sh
printf '%s\0' "$@"
printf '%s\0' "$NODE_RANK" "$PET_NODE_RANK" "$PET_NNODES" "$MASTER_ADDR" \
	"$PET_MASTER_ADDR" "$PET_MASTER_PORT"
EOF
chmod +x argv.sh
set -- "$@" "" "--port" "7" "--iface" "(" "-h" "--" "--help" "-4"
printf '%s\0' "$@" 3 3 4 "m'\$(x)${nl}y" "m'\$(x)${nl}y" 29500 >exec.want
MASTER_ADDR="m'\$(x)${nl}y" "$DDPRANK" exec --hostfile hosts --port 29500 \
	-- ./argv.sh "$@" >exec.got
expect_eq "exec: status" "$?" 0
check "exec: arguments changed: $(od -c exec.got | head)" cmp -s exec.want exec.got
# Without "--", options stop at the command too.
MASTER_ADDR="m'\$(x)${nl}y" "$DDPRANK" exec --hostfile hosts --port 29500 \
	./argv.sh "$@" >exec2.got
check "exec without --: arguments changed" cmp -s exec.want exec2.got

# Exit statuses of exec failures.
MASTER_ADDR=m "$DDPRANK" exec --hostfile hosts --port 1 -- ./no-such-cmd \
	2>exec.err
expect_eq "exec: missing command status" "$?" 127
expect_eq "exec: missing command message" "$(cat exec.err)" \
	"ddprank: cannot execute './no-such-cmd': No such file or directory"
printf 'x\n' >notexec
MASTER_ADDR=m "$DDPRANK" exec --hostfile hosts --port 1 -- ./notexec \
	2>exec.err
expect_eq "exec: not executable status" "$?" 126

# A value with control characters still makes one error line.
"$DDPRANK" env --scheduler "$(printf 'x\ny\001')" 2>err1 >/dev/null
expect_eq "control characters: status" "$?" 2
expect_eq "control characters: error line" "$(cat err1)" \
    "ddprank: --scheduler: 'x\\ny\\x01' is not auto, slurm, hpcpack, flux, pbs, lsf, local or hostfile"

# An error line sits in a pipe: ddprank exits only once the reader has
# taken it (srun stops forwarding output when a task fails). The reader
# waits a little, notes that it is about to read, then reads; ddprank's
# exit must come after that note. The order shows who waited, with no
# timing asserted (the note is written before the read, so it cannot
# race ddprank's exit).
: >order
{ MASTER_ADDR=m "$DDPRANK" exec --hostfile hosts --port 1 -- ./no-such-cmd
  echo "exited $?" >>order; } 2>&1 >/dev/null |
    { sleep 1; echo reading >>order; head -n 1 >drained; cat >/dev/null; }
expect_eq "exec: error drained before exit" "$(cat order)" "reading
exited 127"
expect_eq "exec: the drained line" "$(cat drained)" \
    "ddprank: cannot execute './no-such-cmd': No such file or directory"

# Nothing above ran any of the hostile words.
expect_eq "nothing was executed" "$(ls | grep pwned)" ""
finish
