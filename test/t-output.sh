#!/bin/sh
# t-output.sh: where ddpgen -o writes (regular files replaced atomically,
# links followed, devices and FIFOs written through, - for standard
# output, the umask honoured), and every path of ddpgen and ddprank that
# prints failing on a write error.
. "$(dirname "$0")/lib.sh"

gen() { "$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank "$@"; }
# The script, less the "Regenerate with" line that names the options.
script() { grep -v '^#   ddpgen '; }
"$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank train.py | script >"$T/want"

# holds_script PATH: PATH holds the script.
holds_script() { script <"$1" | cmp -s "$T/want" -; }
# check_file WHAT PATH: a check that PATH holds the script.
check_file() {
	check "$1: $2 does not hold the script" holds_script "$2"
}

# A path that does not exist, and a regular file: replaced atomically,
# with the mode 0777 less the umask.
(umask 022; gen -o "$T/new.sh" train.py)
expect_eq "new file status" "$?" 0
check_file "new file" "$T/new.sh"
expect_eq "new file mode (umask 022)" "$(stat -c %a "$T/new.sh")" 755
ino=$(stat -c %i "$T/new.sh")
(umask 077; gen -o "$T/new.sh" train.py)
expect_eq "umask 077 status" "$?" 0
expect_eq "umask 077: mode" "$(stat -c %a "$T/new.sh")" 700
check "a regular file was written in place, not replaced" \
    test "$(stat -c %i "$T/new.sh")" != "$ino"
(umask 027; gen -o "$T/u027.sh" train.py)
expect_eq "umask 027: mode" "$(stat -c %a "$T/u027.sh")" 750
expect_eq "leftovers" "$(ls "$T" | grep -c '\.sh\.')" 0

# -o - is standard output; no file named -.
(cd "$T" && gen -o - train.py >"$T/dash.out")
expect_eq "-o - status" "$?" 0
check_file "-o -" "$T/dash.out"
check "-o - created a file named -" test ! -e "$T/-"
(cd "$T" && gen -o ./- train.py)
check_file "-o ./-" "$T/-"

# A symbolic link: the link stays, its target is replaced atomically;
# through a chain of links too.
printf 'old\n' >"$T/target.sh"
ln -s target.sh "$T/link.sh"
ln -s link.sh "$T/link2.sh"
ino=$(stat -c %i "$T/target.sh")
gen -o "$T/link.sh" train.py
expect_eq "link status" "$?" 0
check "-o link.sh replaced the link" test -L "$T/link.sh"
check_file "link target" "$T/target.sh"
check "a link's target was written in place, not replaced" \
    test "$(stat -c %i "$T/target.sh")" != "$ino"
rm "$T/target.sh"
printf 'old\n' >"$T/target.sh"
gen -o "$T/link2.sh" train.py
check "-o link2.sh replaced the link link2.sh" test -L "$T/link2.sh"
check "-o link2.sh replaced the link link.sh" test -L "$T/link.sh"
check_file "chain target" "$T/target.sh"
expect_eq "link leftovers" "$(ls "$T" | grep -c '\.sh\.')" 0

# A dangling link is written through: its target is created.
ln -s made.sh "$T/dangling.sh"
gen -o "$T/dangling.sh" train.py
expect_eq "dangling status" "$?" 0
check "-o dangling.sh replaced the link" test -L "$T/dangling.sh"
check_file "dangling target" "$T/made.sh"

# A link to the descriptor, as /dev/stdout is (a copy of it, so that a
# regression does not replace the machine's): to a pipe and to a file.
ln -s /proc/self/fd/1 "$T/stdout"
expect_eq "/dev/stdout to a pipe" "$(gen -o "$T/stdout" train.py | script | cmp -s - "$T/want" && echo same)" same
gen -o "$T/stdout" train.py >"$T/redir.out"
check_file "/dev/stdout to a file" "$T/redir.out"
check "-o /dev/stdout replaced the link" test -L "$T/stdout"

# A FIFO is written through, not replaced.
mkfifo "$T/fifo"
# The timeout only ends a reader that a replaced FIFO left waiting.
timeout 60 cat "$T/fifo" >"$T/fifo.out" &
reader=$!
gen -o "$T/fifo" train.py
expect_eq "fifo status" "$?" 0
wait "$reader"
check_file "fifo" "$T/fifo.out"
check "-o fifo replaced the FIFO" test -p "$T/fifo"

# Devices: written through, never replaced, a full one an error (1).
# Copies of /dev/null and /dev/full in the scratch directory, so that a
# regression replaces those and not the machine's.
if [ "$(id -u)" = 0 ] && mknod "$T/null" c 1 3 && mknod "$T/full" c 1 7; then
	gen -o "$T/null" train.py
	expect_eq "null device status" "$?" 0
	check "-o on a null device replaced it" test -c "$T/null"
	gen -o "$T/full" train.py 2>"$T/err"
	expect_eq "full device status" "$?" 1
	expect_eq "full device message" "$(cat "$T/err")" \
	    "ddpgen: $T/full: No space left on device"
	check "-o on a full device replaced it" test -c "$T/full"
	expect_eq "device leftovers" "$(ls "$T" | grep -c '^\(null\|full\)\.')" 0
else
	# Not root: /dev/full itself is safe, nobody may replace it.
	gen -o /dev/full train.py 2>"$T/err"
	expect_eq "/dev/full status" "$?" 1
	expect_eq "/dev/full message" "$(cat "$T/err")" \
	    "ddpgen: /dev/full: No space left on device"
fi

# A directory is an error that leaves it alone.
mkdir "$T/dir.sh"
gen -o "$T/dir.sh" train.py 2>"$T/err"
expect_eq "directory status" "$?" 1
expect_eq "directory message" "$(cat "$T/err")" "ddpgen: $T/dir.sh: Is a directory"

# Every path that prints fails on a write error with one line, status 1.
# full_err WHAT CMD...: CMD's standard output is /dev/full.
full_err() {
	what=$1
	shift
	"$@" >/dev/full 2>"$T/err"
	expect_eq "$what >/dev/full: status" "$?" 1
	expect_eq "$what >/dev/full: message" "$(cat "$T/err")" \
	    "$(basename "$1"): standard output: No space left on device"
}
full_err "ddpgen --help" "$DDPGEN" --help
full_err "ddpgen -h" "$DDPGEN" -h
full_err "ddpgen --version" "$DDPGEN" --version
full_err "ddpgen -V" "$DDPGEN" -V
full_err "ddpgen --list-sites" "$DDPGEN" --list-sites
full_err "ddpgen --show-site" "$DDPGEN" --show-site cori
full_err "ddpgen script" "$DDPGEN" --ddprank /x/ddprank train.py
full_err "ddpgen -o -" "$DDPGEN" --ddprank /x/ddprank -o - train.py
full_err "ddprank --help" "$DDPRANK" --help
full_err "ddprank --version" "$DDPRANK" --version
full_err "ddprank hosts LIST" "$DDPRANK" hosts 'n[1-3]'
SLURM_JOB_NODELIST='n[1-2]' full_err "ddprank hosts" "$DDPRANK" hosts --scheduler slurm
SLURM_JOB_ID=5 full_err "ddprank port" "$DDPRANK" port
full_err "ddprank ip" "$DDPRANK" ip --iface '^lo$'
hostname >"$T/hosts"
full_err "ddprank env" "$DDPRANK" env --scheduler hostfile --hostfile "$T/hosts" --port 29555
full_err "ddprank env --format json" "$DDPRANK" env --format json --scheduler hostfile --hostfile "$T/hosts" --port 29555
full_err "ddprank" "$DDPRANK" --scheduler hostfile --hostfile "$T/hosts" --port 29555

finish
