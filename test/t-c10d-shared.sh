#!/bin/sh
# t-c10d-shared.sh: c10d where other users' jobs may share the nodes is
# refused when the job is generated (issue 22: torch's store is
# unauthenticated and c10d unpickles what it reads, so another user on
# a node served a pickle and ran code as the victim on every node).
# Refused: a profile with exclusive = false, --rdzv c10d over such a
# profile, and one node, which only HPC Pack holds exclusively; each
# with one line naming the risk and c10d_shared, and no script. Allowed:
# exclusive nodes (every shipped cluster profile; local jobs are
# refused), and c10d_shared = true.
. "$(dirname "$0")/lib.sh"

need_built ddpgen
DDPGEN_PROFILE_PATH=$srcdir/profiles:$T
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH
cd "$T" || exit 1

risk="torch's store has no authentication and c10d unpickles what it reads, so another user on a node can run code in every node of the job"
printf '%s\n' 'extends = "cori"' 'exclusive = false' 'rdzv = "c10d"' >shared.conf
printf '%s\n' 'extends = "cori"' 'exclusive = false' >open.conf
printf '%s\n' 'extends = "cori"' 'exclusive = false' 'rdzv = "c10d"' \
    'c10d_shared = true' >accepted.conf

# refuse STATUS MESSAGE DDPGEN-ARGS...
refuse() {
	rc=$1 want=$2
	shift 2
	"$DDPGEN" --ddprank /x/ddprank "$@" train.py >out 2>err
	expect_eq "ddpgen $*: exit status" "$?" "$rc"
	expect_eq "ddpgen $*: message" "$(cat err)" "$want"
	check "ddpgen $*: no script" test ! -s out
}
# allow DDPGEN-ARGS...: a script with c10d, and the warning alone.
allow() {
	"$DDPGEN" --ddprank /x/ddprank "$@" train.py >out 2>err
	expect_eq "ddpgen $*: exit status: $(cat err)" "$?" 0
	check "ddpgen $*: no c10d in the script" grep -q -- "--rdzv c10d" out
	check "ddpgen $*: a refusal: $(cat err)" ! grep -q "c10d_shared" err
}

refuse 3 "ddpgen: $T/shared.conf:3: rdzv: c10d on nodes that are not exclusive: $risk; set exclusive = true, or accept the risk with c10d_shared = true" \
    -s "$T/shared.conf" -N 2
refuse 2 "ddpgen: rdzv: c10d on nodes that are not exclusive: $risk; set exclusive = true, or accept the risk with c10d_shared = true" \
    -s "$T/open.conf" -N 2 -r c10d
refuse 2 "ddpgen: rdzv: c10d on one node, which is not held exclusively: $risk; use static, or accept the risk with c10d_shared = true" \
    -s cori -r c10d
# Every shipped cluster profile holds its nodes exclusively; local
# jobs run on a machine other users may share, so they are refused.
for f in "$srcdir"/profiles/*.conf; do
	site=$(basename "$f" .conf)
	test "$site" = local && continue
	allow -s "$site" -N 2 -L torchrun -r c10d
done
refuse 2 "ddpgen: rdzv: c10d on this machine, which local jobs do not hold: $risk; use static, or accept the risk with c10d_shared = true" \
    -s local -N 2 -L torchrun -r c10d
allow -s "$T/accepted.conf" -N 2
allow -s "$T/accepted.conf" -N 1
# Static stays allowed everywhere.
"$DDPGEN" --ddprank /x/ddprank -s "$T/open.conf" -N 1 train.py >out 2>err
expect_eq "static, shared nodes: $(cat err)" "$?" 0
finish
