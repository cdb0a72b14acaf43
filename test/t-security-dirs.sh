#!/bin/sh
# t-security-dirs.sh: the shared-directory findings of the second
# security review (issue 22: 2 and 3), each played by a real second user
# against a real victim user, both made here (as root) and removed at the
# end. The victim runs ddprank doctor and ddprank env as the tasks of an
# HPC Pack job would (--exchange dir:, CCP_* variables) in a base that
# root made, mode 1777; the attacker plants what the review planted. No
# attack may make the doctor blame a good node, write or remove a file
# through a link, or stop the exchange by knowing its directory's name.
. "$(dirname "$0")/lib.sh"

need_root "it adds two users"
need_progs useradd userdel runuser
need_built ddprank

public_scratch
share=$T/share
base=$share/.ddprank
mkdir -p "$base" "$T/bin"
chmod 1777 "$share" "$base"
cp "$DDPRANK" "$T/bin/ddprank"
chmod 0755 "$T/bin" "$T/bin/ddprank"

two_users ddpd

# as USER HOME COMMAND...: COMMAND as USER, with a minimal environment.
as() {
	u=$1 h=$2
	shift 2
	runuser -u "$u" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME="$h" "$@"
}
as_victim() { as "$victim" "$T/vhome" "$@"; }
as_attacker() { as "$attacker" "$T/ahome" "$@"; }

# doctor N JOB NNODES [VAR=VALUE...]: the victim's preflight, task N of
# job JOB, in the background: its report in $T/vhome/doc.N, its exit
# status in rc.N. Every task runs on this host, on loopback.
doctor() {
	n=$1 job=$2 nn=$3
	shift 3
	rm -f "$T/vhome/doc.$n" "$T/vhome/rc.$n"
	as_victim CCP_JOBID="$job" CCP_TASKID="$n" "$@" sh -c '
		"$1" doctor --exchange "dir:$2" --nnodes "$3" --wait 2 \
		    --iface "^lo\$" --port 47191 --launcher sh \
		    >"$HOME/doc.$4" 2>&1
		echo $? >"$HOME/rc.$4"' doctor "$T/bin/ddprank" "${EXCH:-$base}" \
	    "$nn" "$n" &
}
rc() { cat "$T/vhome/rc.$1" 2>/dev/null || echo none; }
doc() { cat "$T/vhome/doc.$1" 2>/dev/null; }
# The report's last line: what the job is told to exclude, or why not.
verdict() { doc "$1" | tail -n 1; }

# --- the victim's key --------------------------------------------------------
expect_eq "ddprank key: the path" "$(as_victim "$T/bin/ddprank" key)" \
    "$T/vhome/.ddprank/key"
expect_eq "ddprank key: modes" \
    "$(stat -c '%a %U' "$T/vhome/.ddprank" "$T/vhome/.ddprank/key" |
    tr '\n' ' ')" "700 $victim 600 $victim "
key=$(cat "$T/vhome/.ddprank/key")
expect_eq "ddprank key: again, the key is kept" \
    "$(as_victim "$T/bin/ddprank" key >/dev/null; cat "$T/vhome/.ddprank/key")" \
    "$key"
# The key lives in the home directory; move it aside for the runs that
# show what happens without one.
nokey() { mv "$T/vhome/.ddprank/key" "$T/vhome/key.aside"; }
withkey() { mv "$T/vhome/key.aside" "$T/vhome/.ddprank/key"; }

# --- finding 2: a pre-created doctor directory with a forged report -------------
# Without a secret the doctor directory of job 5001 is predictable. The
# attacker makes it first, sticky, so that the victim cannot replace
# what is in it, with a report for task 2 that fails a check: node 0
# must not read it, and must blame no node.
nokey
as_attacker sh -c "mkdir -m 1777 '$base/doctor-5001-r0' &&
    printf 'ddprank-doctor 1\nnode 1 2 47191 exchange good2\ngpus FAIL forged\nend\n' \
    >'$base/doctor-5001-r0/t2'"
doctor 1 5001 2
doctor 2 5001 2
wait
expect_eq "forged doctor dir: task 1 exits" "$(rc 1)" 8
expect_lacks "forged doctor dir: node 0 read the forged report" "forged" \
    "$(doc 1)"
expect_has "forged doctor dir: task 1 names the directory" \
    "doctor directory $base/doctor-5001-r0 is owned by uid $auid, not by you: someone else made it; not using it" \
    "$(doc 1)"
expect_eq "forged doctor dir: task 1 blames no one" "$(verdict 1)" \
    "ddprank doctor: FAIL, but no node is to blame"
expect_eq "forged doctor dir: task 2 blames no one" "$(verdict 2)" \
    "ddprank doctor: FAIL, but no node is to blame"
expect_eq "forged doctor dir: the attacker's files are left alone" \
    "$(ls "$base/doctor-5001-r0")" t2

# With the key, the name cannot be guessed: the planted directory is not
# even looked at, and the preflight passes.
withkey
doctor 1 5001 2
doctor 2 5001 2
wait
expect_eq "forged doctor dir, key: task 1 passes" "$(rc 1) $(verdict 1)" \
    "0 ddprank doctor: no check failed"
expect_eq "forged doctor dir, key: task 2 sent its findings" "$(rc 2)" 0

# --- finding 2: a symlinked doctor directory ------------------------------------
# The attacker points job 5002's doctor directory at a private directory
# of the victim's that holds files named as the tasks' reports: node 2
# must not replace one, nor node 0's cleanup remove them.
nokey
as_victim sh -c "mkdir -m 0700 '$T/vhome/precious' &&
    for f in t2 t3 data; do echo keep >'$T/vhome/precious/'\$f; done"
as_attacker ln -s "$T/vhome/precious" "$base/doctor-5002-r0"
doctor 1 5002 3
doctor 2 5002 3
wait
expect_eq "symlinked doctor dir: the victim's files stay" \
    "$(cd "$T/vhome/precious" && for f in *; do printf '%s=%s ' "$f" "$(cat "$f")"; done)" \
    "data=keep t2=keep t3=keep "
expect_has "symlinked doctor dir: task 2 says" \
    "doctor directory $base/doctor-5002-r0: a symbolic link" "$(doc 2)"
expect_eq "symlinked doctor dir: task 1 blames no one" "$(verdict 1)" \
    "ddprank doctor: FAIL, but no node is to blame"
withkey

# --- finding 3: the exchange's directory learnt from the doctor's ----------------
# A doctor task 2 that ran alone leaves job 5003's doctor directory in
# the base, where anyone can list it. The attacker makes, mode 1777,
# every exchange run directory name it could derive from that one: the
# exchange must not be among them.
doctor 2 5003 2
wait
dname=$(ls "$base" | grep '^doctor-5003-r0-' | head -n 1)
check "a doctor directory with a MAC in its name: $(ls "$base")" \
    test -n "$dname"
hex=${dname#doctor-5003-r0-}
as_attacker sh -c "mkdir -m 1777 '$base/${dname#doctor-}' '$base/5003-r0' \
    '$base/5003-r1-$hex'"
xch() {
	as_victim CCP_JOBID="$1" CCP_TASKID=1 "$T/bin/ddprank" env \
	    --exchange "dir:$base" --nnodes 1 --iface '^lo$' --port 47192 \
	    >"$T/vhome/env.out" 2>"$T/vhome/env.err"
}
xch 5003
expect_eq "exchange after the doctor: exit ($(cat "$T/vhome/env.err"))" \
    "$?" 0
expect_has "exchange after the doctor: its variables" "export NNODES=1" \
    "$(cat "$T/vhome/env.out")"

# Without a secret the exchange's run directory is predictable, and one
# the attacker made is refused, in one line that names it.
nokey
as_attacker mkdir -m 1777 "$base/5004-r0"
xch 5004
expect_eq "pre-created run dir: exit" "$?" 7
expect_eq "pre-created run dir: one line names it" \
    "$(cat "$T/vhome/env.err")" \
    "ddprank: exchange directory $base/5004-r0 is owned by uid $auid, not by you: someone else made it; not using it"
# Where nothing stops it, the exchange without a key runs, saying so.
xch 5008
expect_eq "no key: exit" "$?" 0
expect_eq "no key: one line says how to make one" "$(cat "$T/vhome/env.err")" \
    "ddprank: no secret: DDPRANK_SECRET is unset and there is no $T/vhome/.ddprank/key, so another user can predict the exchange directory's name and nothing in it is authenticated; make the key with 'ddprank key' (ddprank(1), SECURITY)"
withkey

# --- the other attack classes against the doctor's directory path ---------------
# A base the attacker owns, and one root made writable by all but not
# sticky: refused by the doctor's shared check, on each node, blaming no
# one but naming why.
as_attacker mkdir -m 1777 "$share/.evil"
EXCH=$share/.evil doctor 1 5005 1
wait
expect_eq "attacker's base: the doctor fails" "$(rc 1)" 8
expect_has "attacker's base: says" \
    "exchange directory $share/.evil is owned by uid $auid, neither you nor root" \
    "$(doc 1)"
mkdir -m 0777 "$share/.open"
chmod 0777 "$share/.open"
EXCH=$share/.open doctor 1 5006 1
wait
expect_has "non-sticky base: says" \
    "exchange directory $share/.open: mode 0777: writable by others and not sticky" \
    "$(doc 1)"
as_attacker ln -s "$T/vhome" "$share/.link"
EXCH=$share/.link doctor 1 5007 1
wait
expect_has "symlinked base: says" \
    "exchange directory $share/.link: a symbolic link" "$(doc 1)"
check "symlinked base: no probe file went through it" \
    test -z "$(ls -A "$T/vhome" | grep ddprank-probe)"

finish
