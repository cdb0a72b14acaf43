#!/bin/sh
# t-hpcpack-formats.sh: --format xml, cmd and ps write the same HPC Pack
# job. xmllint reads the XML; test/hpcpack-decode.py reads the batch file
# and the PowerShell script by the documented cmd.exe, MS C runtime and
# PowerShell rules; the three readings must agree byte for byte, for plain
# and hostile arguments. The XML's names and enum values are pinned to
# the list in the reference, since HPC Pack ignores unknown attributes
# without a word.
. "$(dirname "$0")/lib.sh"

command -v xmllint >/dev/null || skip "xmllint is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

DECODE=$srcdir/test/hpcpack-decode.py
NS=http://schemas.microsoft.com/HPCS2008R2/scheduler/
J="/*[local-name()='Job']"
V="$J/*[local-name()='EnvironmentVariables']/*[local-name()='Variable']"
TK="$J/*[local-name()='Tasks']/*[local-name()='Task']"
JOB_ATTRS="Version Name UnitType MinNodes MaxNodes IsExclusive NodeGroups
RequestedNodes RuntimeSeconds FailOnTaskFailure Project Priority"
TASK_ATTRS="Name CommandLine WorkDirectory StdOutFilePath StdErrFilePath
MinNodes MaxNodes Type IsRerunnable FailJobOnFailure"

# xp EXPR FILE: the XPath value, without the newline xmllint adds.
xp() {
	xmllint --xpath "$1" "$2"
}

# xml_dump FILE: the fields hpcpack-decode.py prints, read from the XML.
# The run time is the one the other formats give: RuntimeSeconds rounded
# up to minutes, as D:HH:MM.
xml_dump() {
	printf 'job.name=%s\n' "$(xp "string($J/@Name)" "$1")"
	printf 'job.nodes=%s-%s\n' "$(xp "string($J/@MinNodes)" "$1")" \
	    "$(xp "string($J/@MaxNodes)" "$1")"
	printf 'job.exclusive=%s\n' "$(xp "string($J/@IsExclusive)" "$1")"
	printf 'job.fail_on_task_failure=%s\n' \
	    "$(xp "string($J/@FailOnTaskFailure)" "$1")"
	printf 'job.node_group=%s\n' "$(xp "string($J/@NodeGroups)" "$1")"
	secs=$(xp "string($J/@RuntimeSeconds)" "$1") rt=
	if [ -n "$secs" ]; then
		m=$(( (secs + 59) / 60 ))
		rt=$(printf '%02d:%02d:%02d' $((m / 1440)) $((m / 60 % 24)) \
		    $((m % 60)))
	fi
	printf 'job.runtime=%s\n' "$rt"
	n=$(xp "count($V)" "$1") i=1
	while [ "$i" -le "$n" ]; do
		printf 'env=%s=%s\n' \
		    "$(xp "string($V[$i]/*[local-name()='Name'])" "$1")" \
		    "$(xp "string($V[$i]/*[local-name()='Value'])" "$1")"
		i=$((i + 1))
	done
	n=$(xp "count($TK)" "$1") i=1
	while [ "$i" -le "$n" ]; do
		t="$TK[$i]"
		printf 'task.%d.name=%s\n' "$i" "$(xp "string($t/@Name)" "$1")"
		printf 'task.%d.nodes=%s-%s\n' "$i" \
		    "$(xp "string($t/@MinNodes)" "$1")" \
		    "$(xp "string($t/@MaxNodes)" "$1")"
		printf 'task.%d.type=%s\n' "$i" "$(xp "string($t/@Type)" "$1")"
		printf 'task.%d.rerunnable=%s\n' "$i" \
		    "$(xp "string($t/@IsRerunnable)" "$1")"
		printf 'task.%d.workdir=%s\n' "$i" \
		    "$(xp "string($t/@WorkDirectory)" "$1")"
		printf 'task.%d.stdout=%s\n' "$i" \
		    "$(xp "string($t/@StdOutFilePath)" "$1")"
		printf 'task.%d.stderr=%s\n' "$i" \
		    "$(xp "string($t/@StdErrFilePath)" "$1")"
		printf 'task.%d.command=%s\n' "$i" \
		    "$(xp "string($t/@CommandLine)" "$1")"
		i=$((i + 1))
	done
}

# check_attrs WHAT FILE ELEMENT ALLOWED: every attribute of ELEMENT is
# one of the documented names.
check_attrs() {
	n=$(xp "count($3/@*)" "$2") k=1
	while [ "$k" -le "$n" ]; do
		a=$(xp "name($3/@*[$k])" "$2")
		check "$1: attribute $a is not a documented name" \
		    matches " $(echo $4) " "* $a *"
		k=$((k + 1))
	done
}

# pin_xml WHAT FILE: the names, order and enum values of the reference.
pin_xml() {
	f=$2
	expect_eq "$1: root" "$(xp "concat(namespace-uri(/*), ' ', \
	    local-name(/*))" "$f")" "$NS Job"
	expect_eq "$1: Version" "$(xp "string($J/@Version)" "$f")" 3.000
	expect_eq "$1: UnitType" "$(xp "string($J/@UnitType)" "$f")" Node
	expect_eq "$1: children" "$(xp "concat(local-name($J/*[1]), ' ', \
	    local-name($J/*[2]), ' ', local-name($J/*[3]), ' ', \
	    count($J/*))" "$f")" "EnvironmentVariables Dependencies Tasks 3"
	expect_eq "$1: elements outside the namespace" \
	    "$(xp "count(//*[namespace-uri() != '$NS'])" "$f")" 0
	expect_eq "$1: variable children" "$(xp "count($V/*[local-name() != \
	    'Name' and local-name() != 'Value'])" "$f")" 0
	expect_eq "$1: attributes elsewhere" "$(xp "count(//*[local-name() \
	    != 'Job' and local-name() != 'Task']/@*)" "$f")" 0
	expect_eq "$1: task types" "$(xp "count($TK[@Type != 'Basic'])" \
	    "$f")" 0
	expect_eq "$1: booleans" "$(xp "count(//@IsExclusive[. != 'true' and \
	    . != 'false'] | //@FailOnTaskFailure[. != 'true' and . != 'false'] \
	    | //@IsRerunnable[. != 'true' and . != 'false'])" "$f")" 0
	check_attrs "$1" "$f" "$J" "$JOB_ATTRS"
	n=$(xp "count($TK)" "$f") i=1
	while [ "$i" -le "$n" ]; do
		check_attrs "$1 task $i" "$f" "$TK[$i]" "$TASK_ATTRS"
		i=$((i + 1))
	done
}

# The regeneration command differs in its --format word only.
same_format() {
	sed 's/^\(env=DDPGEN_COMMAND=ddpgen --ddprank [^ ]* --format \)[a-z]* /\1F /' "$1"
}

# compare NAME NODES ARGS...: generates the three formats and compares
# what each gives HPC Pack.
compare() {
	name=$1 nodes=$2
	shift 2
	for fmt in xml cmd ps; do
		"$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank --format "$fmt" \
		    "$@" >"$T/$name.$fmt" 2>"$T/$name.$fmt.err"
		expect_eq "$name: ddpgen --format $fmt" "$?" 0
	done
	xmllint --noout "$T/$name.xml"
	expect_eq "$name: well-formed XML" "$?" 0
	pin_xml "$name" "$T/$name.xml"
	xml_dump "$T/$name.xml" >"$T/$name.xml.dump"
	expect_eq "$name: tasks" "$(grep -c '^task\.[0-9]*\.command=' \
	    "$T/$name.xml.dump")" "$nodes"
	expect_eq "$name: nodes" "$(grep '^job.nodes=' "$T/$name.xml.dump")" \
	    "job.nodes=$nodes-$nodes"
	same_format "$T/$name.xml.dump" >"$T/$name.want"
	task=$(xp "string($V[*[local-name()='Name']='DDPGEN_TASK']/\
*[local-name()='Value'])" "$T/$name.xml")
	bash -n -c "$task" 2>"$T/$name.bash-n"
	expect_eq "$name: DDPGEN_TASK passes bash -n" "$?" 0
	expect_eq "$name: DDPGEN_TASK on one line without ';'" \
	    "$(printf '%s' "$task" | tr -d -c ';\n' | wc -c)" 0
	for fmt in cmd ps; do
		python3 "$DECODE" "$fmt" "$T/$name.$fmt" >"$T/$name.$fmt.dump"
		expect_eq "$name: decode $fmt" "$?" 0
		same_format "$T/$name.$fmt.dump" >"$T/$name.$fmt.got"
		check "$name: $fmt differs from the XML" \
		    cmp -s "$T/$name.want" "$T/$name.$fmt.got" ||
			diff "$T/$name.want" "$T/$name.$fmt.got" | head -20
	done
}

compare plain 2 --site hpcpack --nodes 2 --time 1:00:00 /app/run_ddp.py \
    --epochs 3

# A site with hostile values in every field a profile gives the job.
cat >"$T/hostile.conf" <<'EOF'
extends = "hpcpack"
node_group = "GPU nodes & <fast> 100% !x! ^ 'q' (a|b)"
path = "/opt/conda/bin:/usr/bin:%PATH%"
shared_dir = "/mnt/shared dir/it's"
env = {"NCCL_DEBUG=INFO", "WEIRD=v 'q' \"d\" %x% !y! ^ & | < > ( ) \\ \\\" caf\303\251 \342\200\230s\342\200\231"}
EOF
nl='
'
tab=$(printf '\t')
q="'" dq='"'
compare hostile 3 --site "$T/hostile.conf" --nodes 3 --time 1-00:00:30 \
    -J "ddp it's & <co>" -e "EMPTY=" -e 'TRAIL=ends in \' \
    -S "module load 'x' && echo \"%y%\"" \
    "/mnt/shared dir/it's/train.py" \
    plain "two words" "it's" 'say "hi"' '$(touch pwned)' '`id`' \
    '%PATH%' '%%' '100%' '!x!' '!!' '^' '^^' '&' '|' '<in' '>out' '(x)' \
    'a\"b\' '\\server\share\' '\' '\\' '"' "$q$dq$q$dq" "a${nl}b" \
    "${tab}x" '' ' ' '--epochs=3' '#not a comment' '; exit 1' \
    "$(printf 'caf\303\251 \342\200\230smart\342\200\231 \342\200\232low\342\200\233 \342\200\234dq\342\200\235')" \
    "$(printf '\360\237\230\200')"

# What cmd.exe or PowerShell cannot carry is refused with a message, while
# the XML keeps it; a byte that is not UTF-8 is refused by all three.
refused() {
	name=$1 fmt=$2 want=$3
	shift 3
	"$DDPGEN" --ddprank /x --site hpcpack --format "$fmt" "$@" \
	    >"$T/r.out" 2>"$T/r.err"
	rc=$?
	if [ -z "$want" ]; then
		expect_eq "$name: --format $fmt exit" "$rc" 0
		return
	fi
	check "$name: --format $fmt exit $rc" test "$rc" -ne 0
	check "$name: --format $fmt stderr [$(cat "$T/r.err")]" \
	    grep -q "$want" "$T/r.err"
}
refused newline xml "" -e "NL=a${nl}b" /x.py
refused newline cmd "control byte 0x0a at offset 1 \
cannot be written in a cmd.exe batch file" -e "NL=a${nl}b" /x.py
refused newline ps "control byte 0x0a at offset 1 \
cannot be written in a PowerShell string" -e "NL=a${nl}b" /x.py
# job new's /jobenv takes ';' between variables and documents no escape
# for it: the cmd format refuses it in a value, the others keep it; the
# job's own variables are written without one.
refused semicolon xml "" -e 'X=a;b' /x.py
refused semicolon ps "" -e 'X=a;b' /x.py
refused semicolon cmd "^ddpgen: env: X: ';' cannot be written in a cmd.exe \
job: job new's /jobenv would start another variable there" -e 'X=a;b' /x.py
printf 'extends = "hpcpack"\npath = "/a;/b"\n' >"$T/semi.conf"
refused "semicolon in path" cmd "^ddpgen: path: ';' cannot be written" \
    --site "$T/semi.conf" /x.py
"$DDPGEN" --ddprank /x --site hpcpack --format cmd -S 'a; b' /x.py 'c;d' \
    >"$T/semi.cmd" 2>"$T/semi.err"
expect_eq "';' in setup and arguments: --format cmd exit" "$?" 0
expect_eq "';' in setup and arguments: none in /jobenv" \
    "$(grep -c '/jobenv:[^ ]*;' "$T/semi.cmd")" 0
# The run time is computed by ddpgen, not by cmd.exe or PowerShell.
for fmt in cmd ps; do
	"$DDPGEN" --ddprank /x --site hpcpack --format "$fmt" -t 1-00:00:30 \
	    /x.py >"$T/rt.$fmt"
	expect_eq "run time: no arithmetic in --format $fmt" \
	    "$(grep -c -i -e 'set /a DDPGEN_[DHM]' -e 'TimeSpan' "$T/rt.$fmt")" 0
	expect_eq "run time: the number in --format $fmt" \
	    "$(grep -c "01:00:01" "$T/rt.$fmt")" 1
done
refused tab xml "" -e "TAB=a${tab}b" /x.py
refused tab ps "" -e "TAB=a${tab}b" /x.py
refused tab cmd "control byte 0x09 at offset 1 cannot be written in a \
cmd.exe batch file" -e "TAB=a${tab}b" /x.py
# HPC Pack's run time is a 32-bit number of seconds in all three
# formats: the largest passes whole, one more is refused, never wrapped.
for fmt in xml cmd ps; do
	refused "run time 2^31-1 s" "$fmt" "" -t 24855-3:14:07 /x.py
	refused "run time 2^31 s" "$fmt" "^ddpgen: time: '24855-3:14:08' is \
2147483648 seconds; HPC Pack takes at most 2147483647$" -t 24855-3:14:08 /x.py
done
"$DDPGEN" --ddprank /x --site hpcpack -t 24855-3:14:07 /x.py >"$T/max.xml"
expect_eq "run time 2^31-1 s: RuntimeSeconds" \
    "$(xp "string($J/@RuntimeSeconds)" "$T/max.xml")" 2147483647
for fmt in xml cmd ps; do
	refused "not UTF-8" "$fmt" "byte 0xff at offset [0-9]* is not valid \
UTF-8" /x.py "$(printf 'a\377')"
done

finish
