#!/bin/sh
# t-hostlist-diff.sh: `ddprank hosts` against Slurm's own expansion,
# `scontrol show hostnames`, on several hundred generated hostlist
# expressions, valid and not.
#
# When scontrol accepts an expression both must print the same lines;
# when it rejects one (scontrol 22.05 still exits 0 then, so any output
# on stderr counts as a rejection) ddprank must exit 2.
#
# Excluded from the comparison, because there Slurm's output is a bug
# and ddprank rejects on purpose (src/hostlist.c says why); ddprank must
# still exit 2 on each:
#   unclosed  an unclosed bracket: "n[1-3" prints "n]"
#   blank     a blank inside brackets: strtoul(3) skips it, then Slurm
#             counts it as zero padding ("n[ 1-3]" prints n01 n02 n03)
#   sign      a '+' inside brackets, the same way ("n[+1]" prints n01)
#   stray     a ']' in the text of an item with brackets: "a]b[1-2]"
#             prints a]b1 a]b2, but "a]b[1,2]" prints "a]b]" and "2]"
#   overflow  a number beyond 2^64-1: Slurm saturates it
#   empty     only separators: Slurm prints nothing and no error; an
#             empty node list is always an error for ddprank
#   nested    "x[[1-2]]", which Slurm 23.11 and later read as prefix
#             "x[", range, suffix "]" (x[1] x[2]); 22.05 rejects it
# And two deliberate differences: Slurm refuses a range of more than
# 65,536 hosts; ddprank has no such limit (class "nolimit"). And ddprank
# takes text after the last bracket ("nc[1-2]-ib"), as Slurm 23.11 and
# later do; against an older scontrol, which rejects it, such an
# expression must be accepted instead (counted as "suffix"), and the
# expansion is compared where scontrol is 23.11 or later.
#
# The generator is a fixed-seed Park-Miller generator written out in
# awk, so every awk produces the same expressions. No expression starts
# with '-', which scontrol would take for an option.

. "$(dirname "$0")/lib.sh"

command -v scontrol >/dev/null 2>&1 ||
	skip "scontrol not installed (Debian package slurm-client)"
check "$DDPRANK not built" test -x "$DDPRANK" || finish

# scontrol refuses to start without a configuration, even to expand a
# string; this one is enough and needs no running controller.
cat >"$T/slurm.conf" <<'EOF'
ClusterName=ddpgen-test
SlurmctldHost=localhost
NodeName=n1 CPUs=1 State=UNKNOWN
PartitionName=p Nodes=n1 Default=YES
EOF
SLURM_CONF=$T/slurm.conf
export SLURM_CONF
unset SLURM_NODELIST

got=$(scontrol show hostnames 'n[1-2]' 2>&1)
check "scontrol does not work here: $got" test "$got" = "$(printf 'n1\nn2')" ||
    finish
# "slurm 22.05.8": suffixes came with 23.11.
ver=$(scontrol --version 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
check "cannot read scontrol --version" test -n "$ver" || finish
set -- $ver
if [ "$1" -gt 23 ] || { [ "$1" -eq 23 ] && [ "$2" -ge 11 ]; }; then
	old_slurm=0
else
	old_slurm=1
fi
echo "scontrol $1.$2: suffixes $( [ $old_slurm = 1 ] && echo rejected ||
    echo expanded)"
# has_suffix EXPR: some item has text after its last bracket.
has_suffix() {
	printf '%s\n' "$1" | tr ', \t' '\n\n\n' | grep -q '\][^[]\{1,\}$'
}

generate() {
	awk -v seed=20240611 '
	function rnd(n) {	# 0 <= result < n
		state = (state * 48271) % 2147483647
		return int(state / 2147483647 * n)
	}
	function pick(s,   a, n) {	# one of the "|"-separated choices
		n = split(s, a, "|")
		return a[rnd(n) + 1]
	}
	function pad(v, w) {
		v = v ""
		while (length(v) < w)
			v = "0" v
		return v
	}
	function word(   s, i, n) {
		s = ""
		n = 1 + rnd(5)
		for (i = 0; i < n; i++)
			s = s substr("abcdefghijklmnopqrstuvwxyz", 1 + rnd(26), 1)
		return s
	}
	# A prefix: plain, with dashes, dots, upper case, trailing digits;
	# a "]" only in a plain name (lit), see "stray".
	function prefix(lit,   k) {
		k = rnd(12)
		if (k == 0) return ""
		if (k == 1) return word() "-" word() "-" word()
		if (k == 2) return word() "." word()
		if (k == 3) return toupper(word())
		if (k == 4) return word() rnd(10)
		if (k == 5) return word() "0"
		if (k == 6)
			return lit ? word() "]" word() : word() "-" rnd(10)
		if (k == 7) return word() "_" word() "-"
		return pick("n|nid|node|cn|gpu|rack|jean-zay-ia|linux|c|x")
	}
	# One element; *sz gets its host count through the global esz.
	function elem(   lo, hi, w, k) {
		k = rnd(10)
		if (k < 3) {	# a single number, maybe padded
			lo = rnd(k == 0 ? 2000 : 20)
			w = rnd(4)
			esz = 1
			return pad(lo, w)
		}
		if (k == 3) {	# across a power of ten: padding runs out
			lo = pick("7|8|9|97|98|99|997|998|999")
			hi = lo + 1 + rnd(4)
		} else {
			lo = rnd(k < 6 ? 20 : 300)
			hi = lo + rnd(8)
		}
		w = rnd(5)
		esz = hi - lo + 1
		if (rnd(6) == 0) {
			esz = 1
			return pad(lo, w) "-"	# Slurm reads "7-" as 7
		}
		return pad(lo, w) "-" pad(hi, rnd(2) ? 0 : rnd(5))
	}
	function group(   n, i, s, sz) {
		n = 1 + rnd(3)
		s = ""
		sz = 0
		for (i = 0; i < n; i++) {
			s = s (i ? "," : "") elem()
			sz += esz
		}
		gsz = sz
		return "[" s "]"
	}
	function item(   ng, i, s, total) {
		ng = rnd(7)
		ng = ng < 2 ? 0 : (ng < 5 ? 1 : (ng < 6 ? 2 : 3))
		if (ng == 0) {
			s = rnd(3) ? prefix(1) (rnd(2) ? rnd(100) : "") : ""
			return s == "" ? word() : s
		}
		s = prefix()
		total = 1
		for (i = 0; i < ng; i++) {
			if (i > 0)
				s = s pick("-|-node|x|.|_|")
			s = s group()
			total *= gsz
		}
		if (total > 400)	# keep scontrol and the log small
			return item()
		return s
	}
	function sep() {
		return pick(",|,|,|,,|\t| |, ")
	}
	function list(   n, i, s) {
		n = 1 + rnd(4)
		s = rnd(8) == 0 ? pick(",|\t") : ""
		for (i = 0; i < n; i++)
			s = s (i ? sep() : "") item()
		if (rnd(8) == 0)
			s = s pick(",|\t| ,,")
		if (substr(s, 1, 1) == "-")
			s = "x" s
		return s
	}
	# Breaks a list the way a typo or a bad script would.
	function mutate(s,   k, i, p) {
		k = rnd(14)
		if (k == 0) return s "[3-1]"
		if (k == 1) return s "[]"
		if (k == 2) return s "[1-4/2]"
		if (k == 3) return s "[1-2]" pick("-ib|.ib|x|]|:0")
		if (k == 4) return s "[1-2]" word() "[3-4]" word()
		if (k == 5) return s "[[1-2]]"
		if (k == 6)
			return s "[" pick("a-b|1x|x|1-2-3|-3|--|1..3|0x1|,1|1,") "]"
		if (k == 7) return s "[1-2]]" word() "[3]"
		if (k == 8) return s "[1-3" pick(",|,,|,-|-") "]"
		if (k == 9) return s "[" pick("1:3|1;3|x-1|1-x|1-3 ") "]"
		if (k == 10) return s "[1-3]" pick("]|]]|]x")
		if (k == 11) return s "[3-" rnd(3) "]"
		if (k == 12) return s "[1-18446744073709551616]"
		return s "[1-2][]"
	}
	BEGIN {
		state = seed
		for (i = 0; i < 330; i++)
			print "cmp\t" list()
		for (i = 0; i < 110; i++) {
			s = list()
			# the broken item goes first, last or in the middle
			b = mutate(prefix() "" word())
			k = rnd(3)
			if (k == 0) s = b "," s
			else if (k == 1) s = s "," b
			else s = s " " b " " list()
			if (substr(s, 1, 1) == "-") s = "x" s
			print "cmp\t" s
		}
		for (i = 0; i < 12; i++)
			print "unclosed\t" list() "," word() "[" rnd(9) \
			    pick("-5|,3|-") pick(" |,|\t") (rnd(2) ? list() : "")
		for (i = 0; i < 6; i++)
			print "unclosed\t" word() "[1-2]" word() "[" rnd(9)
		for (i = 0; i < 8; i++)
			print "blank\t" word() "[" \
			    pick(" 1-3|1 -3|1- 3|1, 3|\t1-2|1-2\t") "]"
		for (i = 0; i < 6; i++)
			print "sign\t" word() "[" pick("+1|+1-3|1-+3|0,+2") "]"
		for (i = 0; i < 6; i++)
			print "stray\t" word() "]" word() group() \
			    (rnd(2) ? "," list() : "")
		for (i = 0; i < 4; i++)
			print "overflow\t" word() "[" pick("99999999999999999999|" \
			    "18446744073709551616|1,123456789012345678901") "]"
		print "empty\t,"
		print "empty\t , \t,"
		print "nolimit\tn[1-70000]"
		print "nolimit\tnid[00001-65537]"
	}'
}

n_acc=0 n_rej=0 n_exc=0 n_suf=0
generate >"$T/cases"
# agree DRC: ddprank, which exited DRC, printed what scontrol did.
agree() { [ "$1" -eq 0 ] && cmp -s "$T/s.out" "$T/d.out"; }
while IFS= read -r line; do
	class=${line%%	*}
	expr=${line#*	}
	"$DDPRANK" hosts "$expr" >"$T/d.out" 2>"$T/d.err"
	drc=$?
	case $class in
	nolimit)
		want=$(printf '%s' "$expr" | sed 's/.*-\([0-9]*\)]/\1/')
		expect_eq "exit status for [$expr]" "$drc" 0
		expect_eq "hosts in [$expr]" "$(wc -l <"$T/d.out" | tr -d ' ')" \
		    "$want"
		continue ;;
	cmp)	;;
	*)	n_exc=$((n_exc + 1))
		expect_eq "exit status for [$expr] ($class)" "$drc" 2
		continue ;;
	esac
	scontrol show hostnames "$expr" >"$T/s.out" 2>"$T/s.err"
	src=$?
	case $expr in
	*'[['*)	n_exc=$((n_exc + 1))
		expect_eq "exit status for [$expr] (nested)" "$drc" 2
		continue ;;
	esac
	if [ "$src" -ne 0 ] || [ -s "$T/s.err" ]; then
		if [ "$old_slurm" = 1 ] && [ "$drc" -eq 0 ] &&
		    has_suffix "$expr"; then
			n_suf=$((n_suf + 1))
			continue
		fi
		n_rej=$((n_rej + 1))
		expect_eq "exit status for [$expr] (scontrol rejects)" "$drc" 2
		check "no message for [$expr]" test -s "$T/d.err"
		continue
	fi
	n_acc=$((n_acc + 1))
	has_suffix "$expr" && n_suf=$((n_suf + 1))
	if ! check "[$expr]: ddprank (exit $drc) and scontrol differ" \
	    agree "$drc"; then
		diff "$T/s.out" "$T/d.out" | head -n 10
		head -n 3 "$T/d.err"
	fi
done <"$T/cases"

echo "$n_acc accepted by scontrol, $n_rej rejected, $n_exc excluded," \
    "$n_suf with a suffix"
# The generator must really exercise both sides, and suffixes: 22.05
# rejects what 24.11 expands, so the two counts add up the same.
check "only $n_acc expressions scontrol accepts" test "$n_acc" -ge 250
check "only $n_rej expressions scontrol rejects" test "$n_rej" -ge 10
check "only $((n_rej + n_suf)) rejected or with a suffix" \
    test "$((n_rej + n_suf))" -ge 80
check "only $n_suf expressions with a suffix" test "$n_suf" -ge 20
finish
