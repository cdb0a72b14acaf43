#!/bin/sh
# t-secrets.sh: a job script with a secret in it, between two real local
# users (created and removed here, as root) sharing a directory. The
# victim writes with -o under umask 077: the attacker cannot read the
# file. Under umask 022 the attacker can, and finds no value of --env
# NAME in it, nor a -e value in the "Regenerate with" comment.
. "$(dirname "$0")/lib.sh"

need_root "it adds two users"
need_progs useradd userdel runuser
need_built ddpgen
# Out of the build tree, which may be where the users cannot go.
public_scratch

# A copy of ddpgen every user can run, with the profiles and templates
# beside it, as in the build tree.
mkdir -p "$T/bin" "$T/share"
cp "$DDPGEN" "$T/bin/ddpgen"
cp -R "$srcdir/profiles" "$srcdir/templates" "$T/bin/"
chmod -R a+rX "$T/bin"
chmod 1777 "$T/share"

victim=ddpsv$$
attacker=ddpsa$$
# shellcheck disable=SC2016 # expanded at exit
on_exit 'userdel -f "$victim" >/dev/null 2>&1; userdel -f "$attacker" >/dev/null 2>&1'
check "useradd $victim" useradd -M -d "$T/share" -s /bin/sh "$victim" || finish
check "useradd $attacker" useradd -M -d "$T/share" -s /bin/sh "$attacker" ||
	finish

# as USER CMD...: CMD as USER, with nothing of root's environment.
as() {
	u=$1
	shift
	runuser -u "$u" -- env -i PATH=/usr/bin:/bin HOME="$T/share" \
	    XDG_CONFIG_HOME="$T/share/.config" "$@"
}

secret=s3cr3t-$$-value
as "$victim" sh -c 'umask 077 && API_KEY=$1 "$2" --ddprank /x/ddprank \
    --env API_KEY -e TOKEN=t0k3n-given -o "$3" train.py' sh "$secret" \
    "$T/bin/ddpgen" "$T/share/job.sh"
expect_eq "umask 077: ddpgen status" "$?" 0
expect_eq "umask 077: mode" "$(stat -c %a "$T/share/job.sh")" 700
expect_eq "umask 077: owner" "$(stat -c %U "$T/share/job.sh")" "$victim"
as "$attacker" cat "$T/share/job.sh" >"$T/stolen" 2>/dev/null
check "the attacker read a 0077-umask job script" test ! -s "$T/stolen"
expect_eq "--env NAME: no value in the file" \
    "$(grep -c "$secret" "$T/share/job.sh")" 0
expect_eq "-e NAME=VALUE: its one line" \
    "$(grep t0k3n "$T/share/job.sh")" "export TOKEN=t0k3n-given"

as "$victim" sh -c 'umask 022 && API_KEY=$1 "$2" --ddprank /x/ddprank \
    --env API_KEY -o "$3" train.py' sh "$secret" "$T/bin/ddpgen" \
    "$T/share/open.sh"
expect_eq "umask 022: mode" "$(stat -c %a "$T/share/open.sh")" 755
as "$attacker" cat "$T/share/open.sh" >"$T/stolen"
expect_eq "umask 022: the attacker reads the file" "$?" 0
expect_eq "umask 022: and finds no secret" "$(grep -c "$secret" "$T/stolen")" 0

finish
