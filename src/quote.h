/* quote.h: escaping for every context a generated script puts text in. */
#ifndef DDPGEN_QUOTE_H
#define DDPGEN_QUOTE_H

#include "util.h"

/* Appends s as exactly one POSIX/bash shell word that never spans lines:
 * left bare when every byte is in [A-Za-z0-9_@%+=:,./-] and s is
 * non-empty; '' for the empty string; '...' otherwise, with each ' and \
 * written outside the quotes as \' and \\ (sbatch honours backslash
 * escapes even between quotes on an #SBATCH line, so a backslash inside
 * '...' would be lost there); and bash's $'...' (with \n \t \r \\ \'
 * and \xHH) when s has a control byte (1-31, 127), so even a newline
 * stays on one line and the word is safe inside a comment. Bytes >= 128
 * pass through literally. A bare word holding = is an assignment when
 * it comes first in a command: put such values in argument position. */
void	quote_sh(struct buf *, const char *s);

/* The words of line, a line of quote_sh words separated by spaces (the
 * "Regenerate with" comment of a job), read back without a shell: bare
 * bytes of quote_sh's safe set or above 127, '...' without a control
 * byte, \' and \\, and $'...' with \n \t \r \\ \' and \xHH. Anything
 * else is -1 and *cause (naming the byte, counted from 1), with the
 * words read so far left in words. */
int	quote_sh_unquote(const char *line, struct strlist *words,
	    char **cause);

/* Appends s as one word for any POSIX shell's eval (dash's too, which
 * has no $'...'): as quote_sh, but control bytes stay literal inside the
 * single quotes, so the word may span lines. For output that users eval,
 * not for lines that must stay single (comments, #SBATCH). */
void	quote_sh_posix(struct buf *, const char *s);

/* Appends s as one bash word in which the variable references $NAME and
 * ${NAME} (NAME matching [A-Za-z_][A-Za-z0-9_]*) expand when the script
 * runs, an unset variable to the empty string, and nothing else does:
 * each reference becomes "${NAME-}", every run of other text between
 * them is quoted by quote_sh, so $(...), `...`, ${X:-y}, $1, globs and
 * blanks stay literal and no word splitting happens. \$ stands for a
 * literal $ (the backslash is dropped); every other backslash is
 * literal. Without references or \$ the result is quote_sh's. For
 * environment values (-e, a profile's env). */
void	quote_sh_vars(struct buf *, const char *s);

/* As quote_sh_vars, with the literal runs quoted by quote_sh_line, so
 * the word holds no ';' and stays on one line: for env values carried
 * in HPC Pack's DDPGEN_TASK. */
void	quote_sh_vars_line(struct buf *, const char *s);

/* Whether quote_sh_vars would expand something in s: a reference
 * $NAME or ${NAME}, or \$. */
int	quote_has_vars(const char *s);

/* Appends s as quote_sh does, except that the text appended never holds
 * a ';' or a control byte: a word with either is written in bash's
 * $'...' with ';' as \x3b. For shell code that must stay one line
 * without ';', as a value of HPC Pack's /jobenv list must (job new
 * separates variables there with ';'). */
void	quote_sh_line(struct buf *, const char *s);

/* As quote_sh_posix, and zsh reads the word back too: a word beginning
 * with = (zsh's EQUALS expansion) is quoted, even in an assignment. For
 * ddprank env's output. */
void	quote_sh_eval(struct buf *, const char *s);

/*
 * Appends s as one value of an option on an #BSUB line of an LSF job
 * script: bare when quote_sh would leave it bare, else between double
 * quotes, as IBM's examples write -R "span[ptile=1]". IBM documents no
 * escape for #BSUB lines (bsub.zz1argument.job_script, bsub
 * command-line pages, LSF 10.1), so a value holding what a quote or an
 * escape would need -- " ' \ ` $ #, or a control byte -- is refused
 * (-1 and *cause, appending nothing). Bytes >= 128 pass through.
 */
int	quote_bsub(struct buf *, const char *s, char **cause);

/* Appends s escaped for XML 1.0 attribute values and text alike
 * (& < > " ' as entities; tab, newline and CR as character references).
 * s must be UTF-8, as the generated documents are. Returns -1 (and sets
 * *cause, appending nothing) when s holds something XML 1.0 cannot
 * represent: another control byte, invalid UTF-8 (overlong forms and
 * surrogates included), U+FFFE or U+FFFF. */
int	quote_xml(struct buf *, const char *s, char **cause);

/*
 * quote_ps and quote_cmd accept the strings quote_xml accepts, less the
 * control bytes they cannot carry, so that the three HPC Pack formats
 * take the same values. Both return -1 (and set *cause, appending
 * nothing) on invalid UTF-8 (overlong forms, surrogates, U+FFFE, U+FFFF
 * included) or a control byte they refuse, naming the byte and its
 * offset.
 */

/* Appends s as one PowerShell single-quoted string, quotes included.
 * Nothing is special between single quotes except a quote, which is
 * doubled; PowerShell takes U+2018, U+2019, U+201A and U+201B for single
 * quotes too (its tokenizer's IsSingleQuote), so each of those is
 * doubled as well: two quote characters in a row stand for the second.
 * Tab is kept; every other control byte (1-31, 127) is refused, since a
 * raw newline or carriage return would make the script span lines. The
 * script must be read as UTF-8: Windows PowerShell 5.1 needs a BOM. */
int	quote_ps(struct buf *, const char *s, char **cause);

/*
 * Appends s as one argument of an external program on a line of a
 * cmd.exe batch file. Left bare when every byte is in
 * [A-Za-z0-9_@+=:,./-] and s is non-empty. Otherwise first quoted for
 * the program's argument parser by the MS C runtime / CommandLineToArgvW
 * rules (surrounded with "; a run of n backslashes before a " or the end
 * becomes 2n; a " becomes \"), then escaped for cmd.exe: % as %% (batch
 * files expand %VAR% first), and ( ) ! ^ " < > & | each behind a caret,
 * so cmd.exe never enters its quote mode and finds no operator in s.
 * Every control byte, tab included, is refused: cmd.exe splits lines
 * and tokens on them.
 *
 * Assumes a batch file (not the interactive prompt, where % stays %)
 * with delayed expansion off (setlocal DisableDelayedExpansion: with it
 * on, ^! would need ^^!), the fragment outside any "..." of the template
 * and outside a for loop's body (where %a could name a loop variable),
 * and the file run with code page 65001 (chcp) so UTF-8 reaches the
 * program unchanged. The program must split its command line by the MS C
 * runtime rules, as C programs and .NET ones do (job.exe is taken to).
 * Whether job.exe then rebuilds a task's command line by joining its
 * arguments with spaces, without quoting them again, is unconfirmed: the
 * XML job file, whose CommandLine is taken as written, is the reference.
 */
int	quote_cmd(struct buf *, const char *s, char **cause);

/*
 * Appends s as one word of a #PBS directive line, as qsub splits one
 * (OpenPBS src/cmds/qsub.c, make_argv): left bare when every byte is in
 * [A-Za-z0-9_@%+=:,./-] and s is non-empty; otherwise between single
 * quotes, inside which qsub takes every byte as it is, each ' written
 * as "'" (quotes of either kind join the text around them into one
 * word). No backslash is written: qsub continues a directive that ends
 * in one on the next line. Returns -1 (and sets *cause, appending
 * nothing) on a control byte (1-31, 127), which would end the line or
 * split the word.
 */
int	quote_pbs(struct buf *, const char *s, char **cause);

#endif
