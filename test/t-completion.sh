#!/bin/sh
# t-completion.sh: the completions of completion/, each run in its own
# shell: bash through bash-completion with COMP_WORDS driving the
# function, fish through `complete -C`, zsh in a tmux pane with a real
# TAB.  Each offers every option of the programs' option tables and no
# other, the values of --site (the sites on the search path, here one
# of DDPGEN_PROFILE_PATH), --format (those of the site's scheduler:
# exactly those ddpgen accepts), --rdzv, --launcher, --container, --bind
# and --scheduler (the rows' words, read from the programs' refusals of
# a bad word, which the tables build), ddprank's subcommands, and
# knows which options take a value, so the word after one is never
# taken for the training script.
. "$(dirname "$0")/lib.sh"

comp=$srcdir/completion
bashcomp=/usr/share/bash-completion/bash_completion
PATH=$BUILDDIR:$PATH
DDPGEN_PROFILE_PATH=$T/profiles
export PATH DDPGEN_PROFILE_PATH
mkdir -p "$T/profiles" "$T/work"
printf 'extends = "hpcpack"\ndescription = "Test site"\n' \
    >"$T/profiles/mysite.conf"
cd "$T/work" || exit 1
: >train.py

# longopts FILE: "--name has_arg 'c'" for each entry of FILE's table.
longopts() {
	sed -n '/longopts\[\] = {/,/^};/p' "$srcdir/src/$1" |
	    sed -n "s/^[[:space:]]*{ \"\([a-z0-9-]*\)\",[[:space:]]*\([a-z_]*\),[[:space:]]*NULL,[[:space:]]*\(.*\) },.*/--\1 \2 \3/p"
}
longopts ddpgen.c >"$T/gen.opts"
longopts ddprank.c >"$T/rank.opts"
check "cannot read ddpgen's option table" test "$(wc -l <"$T/gen.opts")" -gt 20
check "cannot read ddprank's option table" test "$(wc -l <"$T/rank.opts")" -gt 10
gen_all=$(cut -d' ' -f1 "$T/gen.opts" | sort | tr '\n' ' ')
gen_arg=$(awk '$2 == "required_argument" { print $1 }' "$T/gen.opts")
sites=$(ddpgen --list-sites | awk '{ print $1 }' | sort | tr '\n' ' ')
check "ddpgen --list-sites does not see the test's site: $sites" \
    matches " $sites " "* mysite * slurm *"

# rank_opts SUB: the options ddprank SUB accepts, from its tables.
rank_opts() {
	letters=$(sed -n "s/^[[:space:]]*{ \"$1\", \"\([^\"]*\)\",.*/\1/p" \
	    "$srcdir/src/ddprank.c")
	# ddprank key takes no option: its letters are empty.
	grep -q "^[[:space:]]*{ \"$1\", \"" "$srcdir/src/ddprank.c" ||
	    { echo "no table for $1"; return; }
	{
		echo --help
		echo --version
		printf '%s\n' "$letters" | fold -w1 | while read -r c; do
			[ -n "$c" ] || continue
			long=$(awk -v c="'$c'" '$3 == c { print $1 }' "$T/rank.opts")
			echo "${long:--$c}"
		done
	} | sort | tr '\n' ' '
}
rank_cmds="bind doctor env exec hosts ip key port verdict"

# row_words PROG OPTION: the words OPTION takes, sorted on one line, as
# PROG's refusal of a bad one lists them; those lists are built from the
# tables (launcher, runtime, rdzv, bind and scheduler rows), so the
# completions are held to the rows, not to a second hand-written list.
row_words() {
	"$1" "$2=-bad-" train.py 2>&1 >/dev/null |
	    sed -n "s/.* is not \(.*\)\$/\1/p" |
	    sed 's/, / /g; s/ or / /' | tr ' ' '\n' | sort | tr '\n' ' '
}
launchers=$(row_words ddpgen --launcher)
runtimes=$(row_words ddpgen --container)
binds=$(row_words ddpgen --bind)
rdzvs=$(row_words ddpgen --rdzv)
scheds=$(row_words ddprank --scheduler)
check "cannot read the launcher rows: $launchers" matches "$launchers" "*torchrun *"
check "cannot read the runtime rows: $runtimes" matches "$runtimes" "*apptainer *"
check "cannot read the bind rows: $binds" matches "$binds" "*numa *"
check "cannot read the rdzv rows: $rdzvs" matches "$rdzvs" "*c10d *"
check "cannot read the scheduler rows: $scheds" matches "$scheds" "*slurm *"

# zsh's _ddpgen names each list in a spec, "(a b c)" after the tag:
# every such list is the rows' words.
zsh_lists() {
	sed -n "s/.*:$1:(\([^)]*\)).*/\1/p" "$comp/_ddpgen" |
	    while read -r l; do
		printf '%s\n' $l | sort | tr '\n' ' '
		echo
	    done
}
for pair in "launcher:$launchers" "runtime:$runtimes" "policy:$binds" \
    "rendezvous:$rdzvs" "scheduler:$scheds"; do
	tag=${pair%%:*}
	want=${pair#*:}
	n=0
	while IFS= read -r got; do
		n=$((n + 1))
		expect_eq "_ddpgen: the $tag list $n is the rows'" "$got" "$want"
	done <<EOT
$(zsh_lists "$tag")
EOT
	check "_ddpgen lists no $tag" test "$n" -gt 0
done

# formats SITE: the formats ddpgen accepts for SITE, by trying each.
formats() {
	for f in cmd flux local lsf pbs ps sh xml; do
		ddpgen --site "$1" --format "$f" train.py >/dev/null 2>&1 &&
		    printf '%s ' "$f"
	done
}

# ---- bash, driven by COMP_WORDS ----
# The queries are lines to complete, one per line; the answers, sorted
# and on one line each, come back in the same order.
bash_queries() {
	bash --norc --noprofile -c '
		. "$1" && . "$2" || exit 1
		while IFS= read -r line; do
			read -ra COMP_WORDS <<<"$line"
			[[ $line == *" " ]] && COMP_WORDS+=("")
			COMP_LINE=$line COMP_POINT=${#line}
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=()
			complete -p "${COMP_WORDS[0]}" >/dev/null 2>&1 || exit 1
			fn=$(complete -p "${COMP_WORDS[0]}" | sed "s/.*-F \([^ ]*\) .*/\1/")
			"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
			    "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
			printf "%s\n" "${COMPREPLY[@]}" | sort -u | grep -v "^$" |
			    tr "\n" " "
			echo
		done' sh "$bashcomp" "$comp/ddpgen"
}

if check "bash-completion is not installed (Debian package bash-completion)" \
    test -f "$bashcomp"; then
	# line<TAB>want, in order.
	{
		printf 'ddpgen --\t%s\n' "$gen_all"
		printf 'ddpgen --form\t--format \n'
		printf 'ddpgen --format \tsh \n'
		printf 'ddpgen --format=\tsh \n'
		printf 'ddpgen --site \t%s\n' "$sites"
		printf 'ddpgen --show-site \t%s\n' "$sites"
		printf 'ddpgen --rdzv \tc10d static \n'
		printf 'ddpgen --rdzv=c\tc10d \n'
		printf 'ddpgen --site=mys\tmysite \n'
		printf 'ddpgen --port \tauto \n'
		printf 'ddpgen --format xml --rdz\t--rdzv \n'
		printf 'ddpgen -f xml -r \tc10d static \n'
		printf 'ddpgen --form xml --rdz\t--rdzv \n'
		printf 'ddpgen train.py --\t\n'
		printf 'ddpgen --nodes 2 -- --\t\n'
		printf 'ddprank \t%s \n' "$rank_cmds"
		printf 'ddprank --scheduler \t%s\n' "$scheds"
		printf 'ddpgen --launcher \t%s\n' "$launchers"
		printf 'ddpgen --container \t%s\n' "$runtimes"
		printf 'ddpgen --bind \t%s\n' "$binds"
		printf 'ddpgen --rdzv \t%s\n' "$rdzvs"
		printf 'ddprank env --format \tjson sh \n'
		printf 'ddprank exec --rdzv \tc10d static \n'
		printf 'ddprank exec --nnodes 2 --rdz\t--rdzv \n'
		printf 'ddprank exec --exchange \tdir: mpi \n'
		printf 'ddprank -\t%s\n' "$(rank_opts env)"
		for c in $rank_cmds; do
			printf 'ddprank %s -\t%s\n' "$c" "$(rank_opts "$c")"
		done
		for s in $sites; do
			printf 'ddpgen --site %s --format \t%s\n' "$s" "$(formats "$s")"
			printf 'ddpgen -s%s -f \t%s\n' "$s" "$(formats "$s")"
		done
		# Every option that takes a value: the word after it is not
		# the script, so options are still offered.
		for o in $gen_arg; do
			printf 'ddpgen %s v --\t%s\n' "$o" "$gen_all"
			printf 'ddpgen %s=v --\t%s\n' "$o" "$gen_all"
		done
	} >"$T/bash.cases"
	cut -f1 "$T/bash.cases" | bash_queries >"$T/bash.got"
	expect_eq "bash answered every query" "$(wc -l <"$T/bash.got")" \
	    "$(wc -l <"$T/bash.cases")"
	n=0
	while IFS='	' read -r line want; do
		n=$((n + 1))
		got=$(sed -n "${n}p" "$T/bash.got")
		expect_eq "bash: $line<TAB>" "$got" "$want"
	done <"$T/bash.cases"
	# --format and --rdzv offer no file names, even where files match.
	: >sh.txt
	: >static.txt
	expect_eq "bash: no file names for --format" \
	    "$(printf 'ddpgen --format s\nddpgen --rdzv s\n' | bash_queries)" \
	    "sh 
static "
	# The script and its arguments are files.
	expect_eq "bash: the script is a file" \
	    "$(printf 'ddpgen --nodes 2 tr\nddpgen train.py s\n' | bash_queries)" \
	    "train.py 
sh.txt static.txt "
fi

# ---- fish, through complete -C ----
# fish_complete LINE: the candidates fish offers, sorted, on one line.
fish_complete() {
	mkdir -p "$T/empty"
	cd "$T/empty" && fish --no-config -c 'set -p fish_complete_path $argv[1]; complete -C $argv[2]' \
	    "$comp" "$1" 2>&1 | cut -f1 | sort -u | tr '\n' ' '
	cd "$T/work" || exit 1
}
if check "fish is not installed (Debian package fish)" \
    command -v fish >/dev/null; then
	expect_eq "fish: ddpgen --" "$(fish_complete 'ddpgen --')" "$gen_all"
	expect_eq "fish: ddpgen --form" "$(fish_complete 'ddpgen --form')" "--format "
	expect_eq "fish: --format" "$(fish_complete 'ddpgen --format ')" "sh "
	expect_eq "fish: --site" "$(fish_complete 'ddpgen --site ')" "$sites"
	expect_eq "fish: --site mysite --format" \
	    "$(fish_complete 'ddpgen --site mysite --format ')" "$(formats mysite)"
	expect_eq "fish: --rdzv" "$(fish_complete 'ddpgen --rdzv ')" "c10d static "
	expect_eq "fish: after --format xml" \
	    "$(fish_complete 'ddpgen --format xml --rdz')" "--rdzv "
	expect_eq "fish: after the script" "$(fish_complete 'ddpgen train.py --')" ""
	expect_eq "fish: ddprank" "$(fish_complete 'ddprank ')" "$rank_cmds "
	for c in $rank_cmds; do
		want=$(rank_opts "$c" | tr ' ' '\n' | grep -- '^--' | sort |
		    tr '\n' ' ')
		expect_eq "fish: ddprank $c --" "$(fish_complete "ddprank $c --")" \
		    "$want"
	done
	expect_eq "fish: ddprank --scheduler" \
	    "$(fish_complete 'ddprank --scheduler ')" "$scheds"
	expect_eq "fish: --launcher" "$(fish_complete 'ddpgen --launcher ')" \
	    "$launchers"
	expect_eq "fish: --container" \
	    "$(fish_complete 'ddpgen --container ')" "$runtimes"
	expect_eq "fish: --bind" "$(fish_complete 'ddpgen --bind ')" "$binds"
	expect_eq "fish: --rdzv rows" "$(fish_complete 'ddpgen --rdzv ')" \
	    "$rdzvs"
	expect_eq "fish: ddprank exec -- command" \
	    "$(fish_complete 'ddprank exec -- ddpge')" "ddpgen "
fi

# ---- zsh, in a tmux pane ----
# zsh_wait PATTERN: the pane once PATTERN shows in it, in $T/pane; fails
# if it does not within 30 seconds.
zsh_wait() {
	i=0
	while [ $i -lt 300 ]; do
		tmux -S "$T/tmux" capture-pane -p -t zt >"$T/pane"
		grep -q -e "$1" "$T/pane" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# zsh_tab LINE PATTERN: on a cleared screen, types LINE and TAB; the
# pane once PATTERN shows lands in $T/pane.
zsh_tab() {
	tmux -S "$T/tmux" send-keys -t zt C-u C-l
	i=0
	until [ "$(tmux -S "$T/tmux" capture-pane -p -t zt | grep -c .)" = 1 ] ||
	    [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	tmux -S "$T/tmux" send-keys -t zt -l "$1"
	tmux -S "$T/tmux" send-keys -t zt Tab
	zsh_wait "$2"
}
if check "zsh is not installed (Debian package zsh)" command -v zsh >/dev/null &&
    check "tmux is not installed (Debian package tmux)" command -v tmux >/dev/null; then
	mkdir -p "$T/zdot"
	cat >"$T/zdot/.zshrc" <<EOF
fpath=('$comp' \$fpath)
autoload -Uz compinit && compinit -u -d '$T/zdot/.zcompdump'
PS1='READY%# '
EOF
	on_exit 'tmux -S "$T/tmux" kill-server 2>/dev/null'
	tmux -S "$T/tmux" new-session -d -s zt -x 220 -y 60 \
	    "env -i HOME='$T/zdot' ZDOTDIR='$T/zdot' TERM=xterm PATH='$PATH' \
	    DDPGEN_PROFILE_PATH='$DDPGEN_PROFILE_PATH' zsh -i"
	check "zsh: no prompt" zsh_wait READY || cat "$T/pane"
	check "zsh: --site does not list mysite" \
	    zsh_tab "ddpgen --site " "mysite .*-- hpcpack  *Test site" || cat "$T/pane"
	for s in $sites; do
		check "zsh: --site lacks $s" grep -q "^$s .*--" "$T/pane"
	done
	check "zsh: --format of an HPC Pack site" \
	    zsh_tab "ddpgen --site mysite --format " "cmd  *ps  *xml" ||
	    cat "$T/pane"
	check "zsh: --form<TAB>" zsh_tab "ddpgen --form" "ddpgen --format" ||
	    cat "$T/pane"
	check "zsh: after --format xml" \
	    zsh_tab "ddpgen --format xml --rd" "ddpgen --format xml --rdzv" ||
	    cat "$T/pane"
	check "zsh: ddprank subcommands" zsh_tab "ddprank " "port .*--" ||
	    cat "$T/pane"
	for c in $rank_cmds; do
		check "zsh: ddprank lacks $c" grep -q "^$c .*--" "$T/pane"
	done
	check "zsh: ddpgen options" zsh_tab "ddpgen --" "^--version" ||
	    cat "$T/pane"
	expect_eq "zsh: ddpgen --<TAB>" "$(sed 1d "$T/pane" |
	    grep -o -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ')" "$gen_all"
fi
finish
