/* check_quote.c: unit and property tests for shell words, XML, PowerShell
 * strings and cmd.exe arguments. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "quote.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

#define NWORDS		1500	/* per family of random strings */
#define BATCH		500	/* words per bash script */
#define MAXLEN		64
#define XML_SAMPLE	150	/* strings sent through xmllint one by one */

static char *
sh(const char *s)
{
	struct buf	b;

	buf_init(&b);
	quote_sh(&b, s);
	return b.s;
}

static void
expect_sh(const char *in, const char *want)
{
	char	*got = sh(in);

	ck_assert_str_eq(got, want);
	free(got);
}

static char *
hex(const char *s)
{
	struct buf	b;

	buf_init(&b);
	for (; *s != '\0'; s++)
		buf_addf(&b, "%02x", (unsigned char)*s);
	return b.s;
}

/* A random string of up to maxlen bytes drawn from [lo, hi], or from
 * alphabet when not NULL. */
static char *
random_bytes(size_t maxlen, unsigned int lo, unsigned int hi,
    const char *alphabet)
{
	size_t	 len = t_rng_below((uint32_t)maxlen + 1), i;
	char	*s = xmalloc(len + 1);

	for (i = 0; i < len; i++) {
		if (alphabet != NULL)
			s[i] = alphabet[t_rng_below((uint32_t)strlen(alphabet))];
		else
			s[i] = (char)(lo + t_rng_below(hi - lo + 1));
	}
	s[len] = '\0';
	return s;
}

/* Three families: any byte 1-255; no control bytes (the '...' form);
 * dense with the bytes quoting is about. */
static void
random_words(struct strlist *l, uint64_t seed)
{
	size_t	i;

	t_rng_seed(seed);
	for (i = 0; i < NWORDS; i++)
		strlist_addown(l, random_bytes(MAXLEN, 1, 255, NULL));
	for (i = 0; i < NWORDS; i++) {
		char	*s = random_bytes(MAXLEN, 32, 255, NULL), *p;

		for (p = s; *p != '\0'; p++)
			if (*p == 127)
				*p = '~';
		strlist_addown(l, s);
	}
	for (i = 0; i < NWORDS; i++)
		strlist_addown(l, random_bytes(MAXLEN, 0, 0,
		    "'\\\"$`!*?[]#~ a-=\n\t{}()<>;&|\xc3\xa9\xff"));
}

/* Compares the NUL-terminated records of out with words[from..to). */
static void
compare_printed(const struct buf *out, const struct strlist *words,
    size_t from, size_t to, const char *locale)
{
	const char	*p = out->s, *end = out->s + out->len;
	char		*q, *h;
	size_t		 i;

	for (i = from; i < to; i++) {
		if (p >= end || strcmp(p, words->v[i]) != 0) {
			q = sh(words->v[i]);
			h = hex(words->v[i]);
			ck_abort_msg("%s: word %zu (hex %s) quoted as [%s] "
			    "came back as [%s]", locale, i, h, q,
			    p < end ? p : "(nothing)");
		}
		p += strlen(p) + 1;
	}
	ck_assert_msg(p == end, "%s: %zu extra bytes after the words",
	    locale, (size_t)(end - p));
}

static void
bash_batch_with(const char *dir, const struct strlist *words, size_t from,
    size_t to, const char *locale, void (*quote)(struct buf *, const char *))
{
	struct buf	 script, out;
	char		*path, *cmd;
	size_t		 i;

	buf_init(&script);
	for (i = from; i < to; i++) {
		buf_adds(&script, "printf '%s\\0' ");
		quote(&script, words->v[i]);
		buf_addc(&script, '\n');
	}
	xasprintf(&path, "%s/words.sh", dir);
	t_write(path, script.s, script.len);
	xasprintf(&cmd, "LC_ALL=%s bash '%s'", locale, path);
	buf_init(&out);
	ck_assert_int_eq(t_capture(cmd, &out), 0);
	compare_printed(&out, words, from, to, locale);
	buf_free(&out);
	buf_free(&script);
	free(cmd);
	free(path);
}

static void
bash_batch(const char *dir, const struct strlist *words, size_t from,
    size_t to, const char *locale)
{
	bash_batch_with(dir, words, from, to, locale, quote_sh);
}

START_TEST(test_sh_bare)
{
	expect_sh("abc", "abc");
	expect_sh("a-b_c.d/e:f,g=h+i@j%k", "a-b_c.d/e:f,g=h+i@j%k");
	expect_sh("--", "--");
	expect_sh("-n", "-n");
	expect_sh("0", "0");
	expect_sh("--nproc_per_node=8", "--nproc_per_node=8");
}
END_TEST

START_TEST(test_sh_empty)
{
	expect_sh("", "''");
}
END_TEST

START_TEST(test_sh_single)
{
	expect_sh("a b", "'a b'");
	expect_sh("it's", "'it'\\''s'");
	expect_sh("'", "\\'");
	expect_sh("''", "\\'\\'");
	expect_sh("'a'", "\\''a'\\'");
	expect_sh("a\\b", "'a'\\\\'b'");
	expect_sh("\\", "\\\\");
	expect_sh("$(rm -rf ~)", "'$(rm -rf ~)'");
	expect_sh("`id`", "'`id`'");
	expect_sh("${HOME}", "'${HOME}'");
	expect_sh("*.py", "'*.py'");
	expect_sh("[ab]?", "'[ab]?'");
	expect_sh("~", "'~'");
	expect_sh("#x", "'#x'");
	expect_sh("!!", "'!!'");
	expect_sh("a\"b", "'a\"b'");
	expect_sh("a;b|c&d>e<f", "'a;b|c&d>e<f'");
	expect_sh("caf\xc3\xa9", "'caf\xc3\xa9'");
	expect_sh("\xff\xfe", "'\xff\xfe'");
}
END_TEST

START_TEST(test_sh_ansic)
{
	expect_sh("a\nb", "$'a\\nb'");
	expect_sh("\t\r", "$'\\t\\r'");
	expect_sh("\x01", "$'\\x01'");
	expect_sh("\x01" "a", "$'\\x01a'");
	expect_sh("\x1f\x7f", "$'\\x1f\\x7f'");
	expect_sh("it's\n", "$'it\\'s\\n'");
	expect_sh("\\\n", "$'\\\\\\n'");
	expect_sh("$x `y`\n", "$'$x `y`\\n'");
	expect_sh("\xc3\xa9\n\xff", "$'\xc3\xa9\\n\xff'");
}
END_TEST

START_TEST(test_sh_appends)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "echo ");
	quote_sh(&b, "a b");
	buf_addc(&b, ' ');
	quote_sh(&b, "");
	ck_assert_str_eq(b.s, "echo 'a b' ''");
	buf_free(&b);
}
END_TEST

/* No quoted word holds a raw newline or any other control byte, so it
 * cannot end a comment or an #SBATCH line early. */
START_TEST(test_sh_one_line)
{
	struct strlist	 words = { NULL, 0, 0 };
	const char	*p;
	char		*q;
	size_t		 i;

	random_words(&words, 0x5eed0001);
	for (i = 0; i < words.n; i++) {
		q = sh(words.v[i]);
		for (p = q; *p != '\0'; p++)
			ck_assert_msg(!((*p >= 1 && *p <= 31) || *p == 127),
			    "word %zu: control byte 0x%02x in [%s]", i, *p, q);
		free(q);
	}
	strlist_free(&words);
}
END_TEST

/* quote_sh_unquote reads back, without a shell, every line of words
 * quote_sh writes, as bash does (test_sh_bash_property). */
START_TEST(test_sh_unquote_property)
{
	struct strlist	 words = { NULL, 0, 0 }, back;
	struct buf	 line;
	char		*cause;
	size_t		 i, k;

	random_words(&words, 0x5eed0007);
	for (i = 0; i < words.n; i += 7) {
		buf_init(&line);
		for (k = i; k < words.n && k < i + 7; k++) {
			if (k > i)
				buf_addc(&line, ' ');
			quote_sh(&line, words.v[k]);
		}
		strlist_init(&back);
		cause = NULL;
		ck_assert_msg(quote_sh_unquote(line.s, &back, &cause) == 0,
		    "[%s]: %s", line.s, cause);
		ck_assert_uint_eq(back.n, k - i);
		for (k = 0; k < back.n; k++)
			ck_assert_str_eq(back.v[k], words.v[i + k]);
		strlist_free(&back);
		buf_free(&line);
	}
	strlist_free(&words);
}
END_TEST

/* Anything quote_sh does not write is refused, naming the byte. */
START_TEST(test_sh_unquote_refused)
{
	static const char *const bad[] = { "a\"b", "$HOME", "a\\b", "'open",
	    "$'\\q'", "$'\\x0'", "$'\\x00'", "a;b", "`x`", "a\tb", "'a\nb'",
	    "$'a", "a|b", "*", "~", NULL };
	struct strlist	 w;
	char		*cause;
	size_t		 i;

	for (i = 0; bad[i] != NULL; i++) {
		strlist_init(&w);
		cause = NULL;
		ck_assert_msg(quote_sh_unquote(bad[i], &w, &cause) == -1,
		    "[%s] accepted", bad[i]);
		ck_assert_ptr_nonnull(strstr(cause, "is not in a word ddpgen "
		    "quotes"));
		free(cause);
		strlist_free(&w);
	}
	strlist_init(&w);
	ck_assert_int_eq(quote_sh_unquote("ddpgen  '' \\'x\\\\ "
	    "$'\\n\\x01\\'' --a=b", &w, &cause), 0);
	ck_assert_uint_eq(w.n, 5);
	ck_assert_str_eq(w.v[4], "--a=b");
	ck_assert_str_eq(w.v[1], "");
	ck_assert_str_eq(w.v[2], "'x\\");
	ck_assert_str_eq(w.v[3], "\n\x01'");
	strlist_free(&w);
	cause = NULL;
	strlist_init(&w);
	ck_assert_int_eq(quote_sh_unquote("ok 'a'\"", &w, &cause), -1);
	ck_assert_str_eq(cause, "byte 7 is not in a word ddpgen quotes");
	free(cause);
	strlist_free(&w);
}
END_TEST

/* What bash reads back must be exactly the bytes we quoted. */
START_TEST(test_sh_bash_property)
{
	static const char *const locales[] = { "C", "C.UTF-8" };
	struct strlist	 words = { NULL, 0, 0 };
	char		*dir = t_tmpdir("check_quote");
	size_t		 i, l, to;

	random_words(&words, 0x5eed0002);
	for (l = 0; l < 2; l++) {
		for (i = 0; i < words.n; i += BATCH) {
			to = i + BATCH < words.n ? i + BATCH : words.n;
			bash_batch(dir, &words, i, to, locales[l]);
		}
	}
	strlist_free(&words);
	t_rmtree(dir);
}
END_TEST

/* quote_sh_line: never a ';' or a control byte, and bash reads back the
 * bytes quoted. */
START_TEST(test_sh_line_units)
{
	struct buf	b;

	buf_init(&b);
	quote_sh_line(&b, "a;b");
	buf_addc(&b, ' ');
	quote_sh_line(&b, "it's; \\x\n");
	buf_addc(&b, ' ');
	quote_sh_line(&b, "plain words");
	buf_addc(&b, ' ');
	quote_sh_line(&b, ";3b");
	ck_assert_str_eq(b.s, "$'a\\x3bb' $'it\\'s\\x3b \\\\x\\n' 'plain words' "
	    "$'\\x3b3b'");
	buf_free(&b);
}
END_TEST

START_TEST(test_sh_line_property)
{
	struct strlist	 words = { NULL, 0, 0 };
	struct buf	 b;
	char		*dir = t_tmpdir("check_quote");
	size_t		 i, to;

	random_words(&words, 0x5eed0003);
	strlist_add(&words, ";");
	strlist_add(&words, "a;\n;b;;\x01");
	for (i = 0; i < words.n; i++) {
		buf_init(&b);
		quote_sh_line(&b, words.v[i]);
		ck_assert_msg(strchr(b.s, ';') == NULL, "';' in %s", b.s);
		ck_assert_msg(!util_has_cntrl(b.s), "control byte in %s", b.s);
		buf_free(&b);
	}
	for (i = 0; i < words.n; i += BATCH) {
		to = i + BATCH < words.n ? i + BATCH : words.n;
		bash_batch_with(dir, &words, i, to, "C.UTF-8", quote_sh_line);
	}
	strlist_free(&words);
	t_rmtree(dir);
}
END_TEST

START_TEST(test_sh_posix_units)
{
	struct buf	b;

	buf_init(&b);
	quote_sh_posix(&b, "");
	buf_addc(&b, ' ');
	quote_sh_posix(&b, "plain-word");
	buf_addc(&b, ' ');
	quote_sh_posix(&b, "it's a\nb\\c");
	ck_assert_str_eq(b.s, "'' plain-word 'it'\\''s a\nb'\\\\'c'");
	buf_free(&b);
}
END_TEST

/* quote_sh_posix's words read back exactly in dash, which has no $'...',
 * and in bash: ddprank env's output is eval'd by either. */
START_TEST(test_sh_posix_property)
{
	static const char *const shells[] = { "dash", "bash" };
	struct strlist	 words = { NULL, 0, 0 };
	struct buf	 script, out;
	char		*dir = t_tmpdir("check_quote"), *path, *cmd;
	size_t		 i, k;

	random_words(&words, 0x5eed0003);
	buf_init(&script);
	for (i = 0; i < words.n && i < BATCH; i++) {
		buf_adds(&script, "printf '%s\\0' ");
		quote_sh_posix(&script, words.v[i]);
		buf_addc(&script, '\n');
	}
	xasprintf(&path, "%s/posix.sh", dir);
	t_write(path, script.s, script.len);
	for (k = 0; k < 2; k++) {
		xasprintf(&cmd, "%s '%s'", shells[k], path);
		buf_init(&out);
		ck_assert_int_eq(t_capture(cmd, &out), 0);
		compare_printed(&out, &words, 0, i, shells[k]);
		buf_free(&out);
		free(cmd);
	}
	buf_free(&script);
	free(path);
	strlist_free(&words);
	t_rmtree(dir);
}
END_TEST

static char *
shvars(const char *s)
{
	struct buf	b;

	buf_init(&b);
	quote_sh_vars(&b, s);
	return b.s;
}

static void
expect_shvars(const char *in, const char *want)
{
	char	*got = shvars(in);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_sh_vars_units)
{
	expect_shvars("", "''");
	expect_shvars("plain", "plain");
	expect_shvars("a b", "'a b'");
	expect_shvars("$PATH", "\"${PATH-}\"");
	expect_shvars("${PATH}", "\"${PATH-}\"");
	expect_shvars("/opt/venv/bin:$PATH", "/opt/venv/bin:\"${PATH-}\"");
	expect_shvars("/opt/x:${PATH}", "/opt/x:\"${PATH-}\"");
	expect_shvars("$A$B_1x", "\"${A-}\"\"${B_1x-}\"");
	expect_shvars("${A}b c", "\"${A-}\"'b c'");
	/* Not references: literal, as quote_sh writes them. */
	expect_shvars("$(id)`id`", "'$(id)`id`'");
	expect_shvars("${A:-x}", "'${A:-x}'");
	expect_shvars("${A", "'${A'");
	expect_shvars("$1$$$?$", "'$1$$$?$'");
	expect_shvars("${1}", "'${1}'");
	expect_shvars("*.py ~", "'*.py ~'");
	/* \$ is a literal $, any other backslash itself. */
	expect_shvars("\\$HOME", "'$HOME'");
	expect_shvars("a\\b", "'a'\\\\'b'");
	expect_shvars("\\\\$A", "\\\\'$A'");
	expect_shvars("it's $A\n", "'it'\\''s '\"${A-}\"$'\\n'");
	expect_shvars("\xc3\xa9$A\xff", "'\xc3\xa9'\"${A-}\"'\xff'");
}
END_TEST

/* The model of quote_sh_vars: s with each reference replaced by the
 * value of its name, from vars (NAME=VALUE items; unset is empty). */
static char *
shvars_expand(const char *s, const char *const *vars)
{
	struct buf	 b;
	const char	*p, *end;
	size_t		 n, i, brace;

	buf_init(&b);
	while (*s != '\0') {
		if (s[0] == '\\' && s[1] == '$') {
			buf_addc(&b, '$');
			s += 2;
			continue;
		}
		brace = s[0] == '$' && s[1] == '{';
		p = s + 1 + brace;
		n = s[0] == '$' && *p != '\0' && strchr("xy", *p) != NULL ?
		    strspn(p, "xy1") : 0;
		if (n == 0 || (brace && p[n] != '}')) {
			buf_addc(&b, *s++);
			continue;
		}
		for (i = 0; vars[i] != NULL; i++) {
			end = strchr(vars[i], '=');
			if ((size_t)(end - vars[i]) == n &&
			    strncmp(vars[i], p, n) == 0)
				buf_adds(&b, end + 1);
		}
		s = p + n + brace;
	}
	return b.s;
}

/* bash expands exactly the references, to exactly their values, and
 * nothing else. Names are drawn from x, y and 1 (bash sets none of
 * them; $_ it does); x and y hold what would do harm if expanded again. */
START_TEST(test_sh_vars_bash_property)
{
	static const char *const vars[] = { "x=$(touch pwned) *", "y=",
	    "xy='\\\n", NULL };
	struct strlist	 words = { NULL, 0, 0 }, want = { NULL, 0, 0 };
	struct buf	 script, out;
	char		*dir = t_tmpdir("check_quote"), *path, *cmd;
	size_t		 i;

	t_rng_seed(0x5eed0006);
	for (i = 0; i < NWORDS; i++)
		strlist_addown(&words, random_bytes(24, 0, 0,
		    "$$${}\\xy1 *'\"`()~:-\n"));
	buf_init(&script);
	buf_adds(&script, "cd \"$1\" || exit 1\nunset x1 y1\n");
	for (i = 0; vars[i] != NULL; i++) {
		buf_adds(&script, "export ");
		buf_addn(&script, vars[i], 2);
		quote_sh(&script, vars[i] + 2);
		buf_addc(&script, '\n');
	}
	for (i = 0; i < words.n; i++) {
		buf_adds(&script, "printf '%s\\0' ");
		quote_sh_vars(&script, words.v[i]);
		buf_addc(&script, '\n');
		strlist_addown(&want, shvars_expand(words.v[i], vars));
	}
	xasprintf(&path, "%s/vars.sh", dir);
	t_write(path, script.s, script.len);
	xasprintf(&cmd, "bash -u '%s' '%s'", path, dir);
	buf_init(&out);
	ck_assert_int_eq(t_capture(cmd, &out), 0);
	compare_printed(&out, &want, 0, want.n, "bash");
	free(path);
	xasprintf(&path, "%s/pwned", dir);
	ck_assert_int_eq(access(path, F_OK), -1);
	buf_free(&out);
	buf_free(&script);
	free(cmd);
	free(path);
	strlist_free(&words);
	strlist_free(&want);
	t_rmtree(dir);
}
END_TEST

static int
sbatch_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * Reads one argument of an #SBATCH line as sbatch does: ' and " quote
 * (and are removed), a backslash takes the next byte literally even
 * between quotes, an unquoted # starts a comment and unquoted white space
 * ends the argument. Returns the bytes consumed; -1 on an open quote.
 */
static long
sbatch_arg(const char *line, struct buf *arg)
{
	const char	*p = line;
	char		 q = '\0';

	for (; *p != '\0' && *p != '\n'; p++) {
		if (q == '\0' && (sbatch_space(*p) || *p == '#'))
			break;
		if (*p == '\\' && p[1] != '\0') {
			buf_addc(arg, *++p);
			continue;
		}
		if (q != '\0' && *p == q)
			q = '\0';
		else if (q == '\0' && (*p == '\'' || *p == '"'))
			q = *p;
		else
			buf_addc(arg, *p);
	}
	return q == '\0' ? (long)(p - line) : -1;
}

/* Words without control bytes (sbatch values are checked for those
 * elsewhere) must read back whole from "--opt=WORD # comment". */
START_TEST(test_sh_sbatch_property)
{
	struct strlist	 words = { NULL, 0, 0 };
	struct buf	 line, arg;
	char		*want, *h;
	long		 n;
	size_t		 i;

	random_words(&words, 0x5eed0003);
	buf_init(&line);
	buf_init(&arg);
	for (i = NWORDS; i < words.n; i++) {
		if (strpbrk(words.v[i], "\n\t") != NULL)
			continue;
		line.len = arg.len = 0;
		buf_adds(&line, "--opt=");
		quote_sh(&line, words.v[i]);
		buf_adds(&line, " # comment");
		xasprintf(&want, "--opt=%s", words.v[i]);
		n = sbatch_arg(line.s, &arg);
		h = hex(words.v[i]);
		ck_assert_msg(n >= 0 && strcmp(line.s + n, " # comment") == 0,
		    "word %zu (hex %s): [%s] splits", i, h, line.s);
		ck_assert_msg(arg.len == strlen(want) &&
		    memcmp(arg.s, want, arg.len) == 0,
		    "word %zu (hex %s): [%s] reads back as [%s]", i, h, line.s,
		    arg.s);
		free(h);
		free(want);
	}
	buf_free(&arg);
	buf_free(&line);
	strlist_free(&words);
}
END_TEST

/* quote_xml, quote_ps and quote_cmd: each appends to b or fails with a
 * cause. */
typedef int quote_fn(struct buf *, const char *, char **);

/* What quote, called what, makes of s, which it must accept; the caller
 * frees it. */
static char *
quoted(quote_fn *quote, const char *what, const char *s)
{
	struct buf	 b;
	char		*cause = NULL;

	buf_init(&b);
	if (quote(&b, s, &cause) != 0)
		ck_abort_msg("%s rejected [%s]: %s", what, s, cause);
	ck_assert_ptr_null(cause);
	return b.s;
}

static void
expect_quoted(quote_fn *quote, const char *what, const char *in,
    const char *want)
{
	char	*got = quoted(quote, what, in);

	ck_assert_str_eq(got, want);
	free(got);
}

/* Checks that quote fails on in, names msg, and appends nothing. */
static void
expect_refused(quote_fn *quote, const char *in, const char *msg)
{
	struct buf	 b;
	char		*cause = NULL;

	buf_init(&b);
	buf_adds(&b, "kept");
	ck_assert_int_eq(quote(&b, in, &cause), -1);
	ck_assert_str_eq(b.s, "kept");
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, msg) != NULL, "[%s] lacks [%s]", cause,
	    msg);
	free(cause);
	buf_free(&b);
}

#define xml(s)			quoted(quote_xml, "quote_xml", s)
#define expect_xml(in, want)	expect_quoted(quote_xml, "quote_xml", in, want)

START_TEST(test_xml_entities)
{
	expect_xml("", "");
	expect_xml("plain text 1.0", "plain text 1.0");
	expect_xml("&", "&amp;");
	expect_xml("<>", "&lt;&gt;");
	expect_xml("\"'", "&quot;&apos;");
	expect_xml("a\tb\nc\rd", "a&#9;b&#10;c&#13;d");
	expect_xml("bash -lc 'a && b' > \"o\"",
	    "bash -lc &apos;a &amp;&amp; b&apos; &gt; &quot;o&quot;");
	expect_xml("&amp;", "&amp;amp;");
	expect_xml("]]>", "]]&gt;");
}
END_TEST

START_TEST(test_xml_utf8)
{
	expect_xml("caf\xc3\xa9", "caf\xc3\xa9");
	expect_xml("\xe2\x82\xac", "\xe2\x82\xac");
	expect_xml("\xf0\x9d\x84\x9e", "\xf0\x9d\x84\x9e");	/* U+1D11E */
	expect_xml("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");	/* U+10FFFF */
	expect_xml("\xc2\x85", "\xc2\x85");		/* C1 is allowed */
	expect_xml("\x7f", "\x7f");
	expect_xml("\xef\xb7\x90", "\xef\xb7\x90");	/* U+FDD0 */
	expect_xml("\xee\x80\x80", "\xee\x80\x80");	/* U+E000 */
}
END_TEST

START_TEST(test_xml_control)
{
	char	s[4], msg[64];
	int	c;

	for (c = 1; c < 32; c++) {
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		s[0] = 'a';
		s[1] = (char)c;
		s[2] = '\0';
		snprintf(msg, sizeof msg, "control byte 0x%02x at offset 1", c);
		expect_refused(quote_xml, s, msg);
	}
}
END_TEST

START_TEST(test_xml_bad_utf8)
{
	expect_refused(quote_xml, "\x80",
	    "byte 0x80 at offset 0 is not valid UTF-8");
	expect_refused(quote_xml, "ab\xff", "byte 0xff at offset 2");
	expect_refused(quote_xml, "\xfe", "not valid UTF-8");
	/* Cut short. */
	expect_refused(quote_xml, "\xc3", "byte 0xc3 at offset 0");
	expect_refused(quote_xml, "\xe2\x82", "byte 0xe2");
	expect_refused(quote_xml, "\xc3(", "byte 0xc3");
	/* Overlong. */
	expect_refused(quote_xml, "\xc0\x80", "byte 0xc0");
	expect_refused(quote_xml, "\xc1\xbf", "byte 0xc1");
	expect_refused(quote_xml, "\xe0\x80\x80", "byte 0xe0");
	expect_refused(quote_xml, "\xf0\x80\x80\x80", "byte 0xf0");
	/* A surrogate, U+FFFE, U+FFFF, beyond U+10FFFF. */
	expect_refused(quote_xml, "\xed\xa0\x80", "byte 0xed");
	expect_refused(quote_xml, "\xef\xbf\xbe", "byte 0xef");
	expect_refused(quote_xml, "\xef\xbf\xbf", "byte 0xef");
	expect_refused(quote_xml, "\xf4\x90\x80\x80", "byte 0xf4");
	expect_refused(quote_xml, "\xf5\x80\x80\x80", "byte 0xf5");
}
END_TEST

/* Appends one random XML 1.0 character, UTF-8 encoded; never U+E000,
 * which the tests keep as a separator. */
static void
random_xml_char(struct buf *b)
{
	static const char	 special[] = "&<>\"' \t\n\r]";
	uint32_t		 cp;

	switch (t_rng_below(6)) {
	case 0:
		buf_addc(b, special[t_rng_below(sizeof special - 1)]);
		return;
	case 1:
	case 2:
		buf_addc(b, (char)(0x20 + t_rng_below(0x60)));	/* to 0x7f */
		return;
	case 3:
		cp = 0x80 + t_rng_below(0x800 - 0x80);
		buf_addc(b, (char)(0xc0 | cp >> 6));
		break;
	case 4:
		do
			cp = 0x800 + t_rng_below(0x10000 - 0x800);
		while ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xe000 ||
		    cp >= 0xfffe);
		buf_addc(b, (char)(0xe0 | cp >> 12));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		break;
	default:
		cp = 0x10000 + t_rng_below(0x110000 - 0x10000);
		buf_addc(b, (char)(0xf0 | cp >> 18));
		buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		break;
	}
	buf_addc(b, (char)(0x80 | (cp & 0x3f)));
}

static char *
random_xml_string(void)
{
	struct buf	b;
	size_t		n = t_rng_below(MAXLEN + 1);

	buf_init(&b);
	while (n-- > 0)
		random_xml_char(&b);
	return b.s;
}

/* Runs xmllint --xpath EXPR on path; returns its exit status and the
 * result without the newline xmllint adds. */
static int
xmllint_xpath(const char *path, const char *expr, struct buf *out)
{
	char	*cmd;
	int	 rc;

	xasprintf(&cmd, "xmllint --xpath '%s' '%s' 2>/dev/null", expr, path);
	rc = t_capture(cmd, out);
	free(cmd);
	if (out->len > 0 && out->s[out->len - 1] == '\n')
		out->s[--out->len] = '\0';
	return rc;
}

/* Puts s in an attribute and in a text node and reads both back. */
static void
xml_roundtrip(const char *dir, const char *s)
{
	struct buf	 doc, out;
	char		*path, *q = xml(s), *h = hex(s);

	buf_init(&doc);
	buf_addf(&doc, "<a v=\"%s\">%s</a>", q, q);
	xasprintf(&path, "%s/one.xml", dir);
	t_write(path, doc.s, doc.len);
	buf_init(&out);
	ck_assert_msg(xmllint_xpath(path, "string(/a/@v)", &out) == 0 &&
	    strcmp(out.s, s) == 0, "attribute: hex %s as [%s] read [%s]", h,
	    q, out.s);
	out.len = 0;
	ck_assert_msg(xmllint_xpath(path, "string(/a)", &out) == 0 &&
	    strcmp(out.s, s) == 0, "text: hex %s as [%s] read [%s]", h, q,
	    out.s);
	buf_free(&out);
	buf_free(&doc);
	free(path);
	free(h);
	free(q);
}

/* Many text nodes in one document, read back as one string split at
 * U+E000 (which the generator never produces). */
static void
xml_roundtrip_batch(const char *dir, const struct strlist *l)
{
	struct buf	 doc, out, want;
	char		*path, *q;
	size_t		 i;

	buf_init(&doc);
	buf_init(&want);
	buf_adds(&doc, "<r>");
	for (i = 0; i < l->n; i++) {
		q = xml(l->v[i]);
		buf_addf(&doc, "<t>%s</t>\xee\x80\x80", q);
		buf_addf(&want, "%s\xee\x80\x80", l->v[i]);
		free(q);
	}
	buf_adds(&doc, "</r>");
	xasprintf(&path, "%s/many.xml", dir);
	t_write(path, doc.s, doc.len);
	buf_init(&out);
	ck_assert_int_eq(xmllint_xpath(path, "string(/r)", &out), 0);
	ck_assert_uint_eq(out.len, want.len);
	ck_assert_msg(memcmp(out.s, want.s, want.len) == 0,
	    "batch of %zu strings does not read back", l->n);
	buf_free(&out);
	buf_free(&want);
	buf_free(&doc);
	free(path);
}

START_TEST(test_xml_xmllint_valid)
{
	struct strlist	 l = { NULL, 0, 0 };
	char		*dir = t_tmpdir("check_quote");
	size_t		 i;

	t_rng_seed(0x5eed0004);
	for (i = 0; i < 3000; i++)
		strlist_addown(&l, random_xml_string());
	xml_roundtrip_batch(dir, &l);
	for (i = 0; i < XML_SAMPLE; i++)
		xml_roundtrip(dir, l.v[i]);
	strlist_free(&l);
	t_rmtree(dir);
}
END_TEST

/* xmllint is the judge of what XML can hold: put s in an attribute with
 * only the markup bytes escaped and see whether it parses. */
static int
xmllint_accepts_raw(const char *dir, const char *s)
{
	struct buf	 doc, out;
	char		*path;
	int		 rc;

	buf_init(&doc);
	buf_adds(&doc, "<a v=\"");
	for (; *s != '\0'; s++) {
		if (*s == '&')
			buf_adds(&doc, "&amp;");
		else if (*s == '<')
			buf_adds(&doc, "&lt;");
		else if (*s == '"')
			buf_adds(&doc, "&quot;");
		else
			buf_addc(&doc, *s);
	}
	buf_adds(&doc, "\"/>");
	xasprintf(&path, "%s/raw.xml", dir);
	t_write(path, doc.s, doc.len);
	buf_init(&out);
	rc = xmllint_xpath(path, "string(/a/@v)", &out);
	buf_free(&out);
	buf_free(&doc);
	free(path);
	return rc == 0;
}

/* Random bytes 1-255: what quote_xml accepts reads back exactly; what
 * it rejects, xmllint rejects too. */
START_TEST(test_xml_xmllint_bytes)
{
	struct buf	 b;
	char		*dir = t_tmpdir("check_quote"), *s, *cause, *h;
	size_t		 i, ok = 0, bad = 0;

	t_rng_seed(0x5eed0005);
	buf_init(&b);
	for (i = 0; i < 4000 && (ok < XML_SAMPLE / 3 || bad < XML_SAMPLE);
	    i++) {
		/* Short strings, so some have no forbidden byte at all. */
		s = random_bytes(5, 1, 255, NULL);
		cause = NULL;
		b.len = 0;
		if (quote_xml(&b, s, &cause) == 0) {
			if (ok++ < XML_SAMPLE / 3)
				xml_roundtrip(dir, s);
		} else if (bad++ < XML_SAMPLE) {
			h = hex(s);
			ck_assert_msg(!xmllint_accepts_raw(dir, s),
			    "hex %s rejected (%s), xmllint accepts it", h,
			    cause);
			free(h);
		}
		free(cause);
		free(s);
	}
	ck_assert_uint_ge(ok, XML_SAMPLE / 3);
	ck_assert_uint_ge(bad, XML_SAMPLE);
	buf_free(&b);
	t_rmtree(dir);
}
END_TEST

/* PowerShell strings. */

#define ps(s)			quoted(quote_ps, "quote_ps", s)
#define expect_ps(in, want)	expect_quoted(quote_ps, "quote_ps", in, want)

/* U+2018, U+2019, U+201A and U+201B in UTF-8. */
#define LSQ	"\xe2\x80\x98"
#define RSQ	"\xe2\x80\x99"
#define BSQ	"\xe2\x80\x9a"
#define REVSQ	"\xe2\x80\x9b"

/* Length of the PowerShell single-quote character at s, 0 if none. */
static size_t
ps_quote_len(const char *s)
{
	if (*s == '\'')
		return 1;
	if (strncmp(s, LSQ, 3) == 0 || strncmp(s, RSQ, 3) == 0 ||
	    strncmp(s, BSQ, 3) == 0 || strncmp(s, REVSQ, 3) == 0)
		return 3;
	return 0;
}

/*
 * Reads a single-quoted string at s as PowerShell's tokenizer does: any
 * single-quote character opens it; inside, a quote character followed by
 * another stands for the second one, a lone one closes the string, and
 * everything else (newlines included) is taken as it is. Returns the
 * bytes consumed, -1 when s holds no complete string.
 */
static long
ps_read_string(const char *s, struct buf *out)
{
	const char	*p = s;
	size_t		 q, q2;

	if ((q = ps_quote_len(p)) == 0)
		return -1;
	for (p += q; *p != '\0'; ) {
		if ((q = ps_quote_len(p)) == 0) {
			buf_addc(out, *p++);
			continue;
		}
		if ((q2 = ps_quote_len(p + q)) == 0)
			return (long)(p + q - s);
		buf_addn(out, p + q, q2);
		p += q + q2;
	}
	return -1;
}

START_TEST(test_ps_units)
{
	expect_ps("", "''");
	expect_ps("abc", "'abc'");
	expect_ps("it's", "'it''s'");
	expect_ps("'", "''''");
	expect_ps("''", "''''''");
	expect_ps("$x `y` \"z\" $(id) @{a=1} -f {0}", "'$x `y` \"z\" $(id) "
	    "@{a=1} -f {0}'");
	expect_ps("a\tb", "'a\tb'");
	expect_ps("a\\b\\", "'a\\b\\'");
	expect_ps("# not a comment; & | > <", "'# not a comment; & | > <'");
	expect_ps("caf\xc3\xa9 \xe2\x82\xac", "'caf\xc3\xa9 \xe2\x82\xac'");
}
END_TEST

/* The four quotes PowerShell reads as ' are doubled, as they are; the
 * double smart quotes and other neighbours are not. */
START_TEST(test_ps_smart_quotes)
{
	expect_ps(LSQ, "'" LSQ LSQ "'");
	expect_ps(RSQ, "'" RSQ RSQ "'");
	expect_ps(BSQ, "'" BSQ BSQ "'");
	expect_ps(REVSQ, "'" REVSQ REVSQ "'");
	expect_ps("it" RSQ "s", "'it" RSQ RSQ "s'");
	expect_ps(LSQ "x" RSQ "'", "'" LSQ LSQ "x" RSQ RSQ "'''");
	expect_ps("\xe2\x80\x9c\xe2\x80\x9d\xe2\x80\x9e",
	    "'\xe2\x80\x9c\xe2\x80\x9d\xe2\x80\x9e'");
	expect_ps("\xe2\x80\x97\xe2\x80\x9f", "'\xe2\x80\x97\xe2\x80\x9f'");
}
END_TEST

START_TEST(test_ps_refused)
{
	expect_refused(quote_ps, "a\nb", "control byte 0x0a at offset 1 "
	    "cannot be written in a PowerShell string");
	expect_refused(quote_ps, "\r", "control byte 0x0d at offset 0");
	expect_refused(quote_ps, "x\x01", "control byte 0x01 at offset 1");
	expect_refused(quote_ps, "\x7f", "control byte 0x7f");
	expect_refused(quote_ps, "\x1b[0m", "control byte 0x1b");
	expect_refused(quote_ps, "ab\xff", "byte 0xff at offset 2 is not "
	    "valid UTF-8");
	expect_refused(quote_ps, "\xe2\x80", "byte 0xe2 at offset 0");
	expect_refused(quote_ps, "\xc0\x80", "byte 0xc0");
	expect_refused(quote_ps, "\xed\xa0\x80", "byte 0xed");
	expect_refused(quote_ps, "\xef\xbf\xbf", "byte 0xef");
}
END_TEST

/* Appends one random character that quote_ps (and, without tab,
 * quote_cmd) takes, dense with what their quoting is about. */
static void
random_win_char(struct buf *b, int tab)
{
	static const char *const special[] = { "'", "\"", "\\", "%", "!",
	    "^", "&", "|", "<", ">", "(", ")", " ", "$", "`", "#", ";", ",",
	    "=", "@", "{", "}", "*", "?", "~", LSQ, RSQ, BSQ, REVSQ,
	    "\xe2\x80\x9c", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
	    "\xc2\xa0", "\\\"", "\\\\", "%%", "^^", "\t" };
	size_t	n = sizeof special / sizeof special[0] - (tab ? 0 : 1);

	if (t_rng_below(3) == 0)
		buf_addc(b, (char)(0x20 + t_rng_below(0x5f)));	/* to 0x7e */
	else
		buf_adds(b, special[t_rng_below((uint32_t)n)]);
}

static char *
random_win_string(int tab)
{
	struct buf	b;
	size_t		n = t_rng_below(MAXLEN + 1);

	buf_init(&b);
	while (n-- > 0)
		random_win_char(&b, tab);
	return b.s;
}

/* Whatever goes in comes back by the tokenizer's rules, the quoted
 * string read to its end. */
START_TEST(test_ps_property)
{
	struct buf	 out;
	char		*s, *q, *h;
	long		 n;
	size_t		 i;

	t_rng_seed(0x5eed0006);
	buf_init(&out);
	for (i = 0; i < 20000; i++) {
		s = random_win_string(1);
		q = ps(s);
		out.len = 0;
		out.s[0] = '\0';
		n = ps_read_string(q, &out);
		h = hex(s);
		ck_assert_msg(n == (long)strlen(q), "hex %s: [%s] ends after "
		    "%ld bytes", h, q, n);
		ck_assert_msg(out.len == strlen(s) && strcmp(out.s, s) == 0,
		    "hex %s: [%s] reads back as [%s]", h, q, out.s);
		free(h);
		free(q);
		free(s);
	}
	buf_free(&out);
}
END_TEST

/* Two strings joined by + stay two strings: no quote leaks. */
START_TEST(test_ps_concat)
{
	struct buf	 line, out;
	char		*a, *b;
	long		 n, m;
	size_t		 i;

	t_rng_seed(0x5eed0007);
	buf_init(&line);
	buf_init(&out);
	for (i = 0; i < 2000; i++) {
		a = random_win_string(1);
		b = random_win_string(1);
		line.len = out.len = 0;
		out.s[0] = '\0';
		ck_assert_int_eq(quote_ps(&line, a, NULL), 0);
		buf_adds(&line, " + ");
		ck_assert_int_eq(quote_ps(&line, b, NULL), 0);
		n = ps_read_string(line.s, &out);
		ck_assert_msg(n > 0 && strncmp(line.s + n, " + ", 3) == 0,
		    "[%s] splits wrong", line.s);
		ck_assert_str_eq(out.s, a);
		out.len = 0;
		out.s[0] = '\0';
		m = ps_read_string(line.s + n + 3, &out);
		ck_assert_msg(m > 0 && line.s[n + 3 + m] == '\0', "[%s]",
		    line.s);
		ck_assert_str_eq(out.s, b);
		free(a);
		free(b);
	}
	buf_free(&out);
	buf_free(&line);
}
END_TEST

/* Random bytes: quote_ps takes what XML takes, less newline, CR and
 * DEL, and quote_cmd less tab as well. */
START_TEST(test_win_accepts_as_xml)
{
	struct buf	 b;
	char		*s, *h;
	int		 xml_ok, ps_ok, cmd_ok, ctl;
	size_t		 i;

	t_rng_seed(0x5eed0008);
	buf_init(&b);
	for (i = 0; i < 20000; i++) {
		s = random_bytes(6, 1, 255, NULL);
		b.len = 0;
		xml_ok = quote_xml(&b, s, NULL) == 0;
		b.len = 0;
		ps_ok = quote_ps(&b, s, NULL) == 0;
		b.len = 0;
		cmd_ok = quote_cmd(&b, s, NULL) == 0;
		ctl = strpbrk(s, "\n\r\x7f") != NULL;
		h = hex(s);
		ck_assert_msg(ps_ok == (xml_ok && !ctl), "hex %s: ps %d xml %d",
		    h, ps_ok, xml_ok);
		ck_assert_msg(cmd_ok == (ps_ok && strchr(s, '\t') == NULL),
		    "hex %s: cmd %d ps %d", h, cmd_ok, ps_ok);
		free(h);
		free(s);
	}
	buf_free(&b);
}
END_TEST

/* cmd.exe arguments. */

#define expect_cmd(in, want)	expect_quoted(quote_cmd, "quote_cmd", in, want)

/*
 * What cmd.exe makes of a batch-file line before starting a program, for
 * lines without variables: percent expansion first (%% is %, and a lone
 * % here can only be a mistake), then the caret pass (outside "...", ^
 * takes the next character literally and an unescaped & | < > ( ) is an
 * operator, an error here; a " toggles quote mode, in which carets are
 * plain characters, and is kept for the program). Returns 0, or -1 with
 * the reason in *why.
 */
static int
cmd_line(const char *line, struct buf *out, const char **why)
{
	struct buf	 pct;
	const char	*p;
	int		 inq = 0, rc = 0;

	buf_init(&pct);
	for (p = line; *p != '\0' && rc == 0; p++) {
		if (*p != '%')
			buf_addc(&pct, *p);
		else if (p[1] == '%')
			buf_addc(&pct, *++p);
		else {
			*why = "lone %";
			rc = -1;
		}
	}
	for (p = pct.s; *p != '\0' && rc == 0; p++) {
		if (*p == '"')
			inq = !inq;
		if (inq || *p == '"')
			buf_addc(out, *p);
		else if (*p == '^' && p[1] != '\0')
			buf_addc(out, *++p);
		else if (*p == '^') {
			*why = "caret at the end of the line";
			rc = -1;
		} else if (strchr("&|<>()", *p) != NULL) {
			*why = "unescaped operator";
			rc = -1;
		} else
			buf_addc(out, *p);
	}
	buf_free(&pct);
	return rc;
}

/* A run of backslashes at *s. Before a ", 2n of them are n backslashes
 * and leave the quote to the caller (0 is returned); 2n+1 are n
 * backslashes and a literal " (1). Elsewhere they are literal (1). */
static int
argv_backslashes(const char **s, struct buf *arg)
{
	size_t	k, i;

	for (k = 0; (*s)[k] == '\\'; k++)
		;
	if ((*s)[k] != '"') {
		buf_addn(arg, *s, k);
		*s += k;
		return 1;
	}
	for (i = 0; i < k / 2; i++)
		buf_addc(arg, '\\');
	*s += k;
	if (k % 2 == 0)
		return 0;
	buf_addc(arg, '"');
	(*s)++;
	return 1;
}

static int
argv_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Splits a program's command line as the MS C runtime does (and
 * CommandLineToArgvW for arguments after the first): blanks outside
 * quotes separate arguments; 2n backslashes and a " are n backslashes
 * and a quote that toggles quoting; 2n+1 backslashes and a " are n
 * backslashes and a literal "; other backslashes are literal; within
 * quotes "" is a literal " (the runtime since 2008).
 */
static void
argv_split(const char *s, struct strlist *args)
{
	struct buf	arg;
	int		inq;

	for (;;) {
		while (argv_blank(*s))
			s++;
		if (*s == '\0')
			break;
		buf_init(&arg);
		for (inq = 0; *s != '\0' && (inq || !argv_blank(*s)); ) {
			if (*s == '\\' && argv_backslashes(&s, &arg))
				continue;
			if (*s == '"' && inq && s[1] == '"') {
				buf_addc(&arg, '"');
				s += 2;
			} else if (*s == '"') {
				inq = !inq;
				s++;
			} else
				buf_addc(&arg, *s++);
		}
		strlist_addown(args, buf_take(&arg));
	}
}

/* Decodes a batch line into the program's arguments. */
static int
cmd_decode(const char *line, struct strlist *args, const char **why)
{
	struct buf	out;
	int		rc;

	buf_init(&out);
	if ((rc = cmd_line(line, &out, why)) == 0)
		argv_split(out.s, args);
	buf_free(&out);
	return rc;
}

START_TEST(test_cmd_units)
{
	expect_cmd("abc", "abc");
	expect_cmd("/app/run_ddp.py", "/app/run_ddp.py");
	expect_cmd("a-b_c.d/e:f,g=h+i@j", "a-b_c.d/e:f,g=h+i@j");
	expect_cmd("", "^\"^\"");
	expect_cmd("a b", "^\"a b^\"");
	expect_cmd("it's", "^\"it's^\"");
	expect_cmd("a\"b", "^\"a\\^\"b^\"");
	expect_cmd("\"", "^\"\\^\"^\"");
	expect_cmd("a\\b", "^\"a\\b^\"");
	expect_cmd("C:\\x y\\", "^\"C:\\x y\\\\^\"");
	expect_cmd("a\\\"b", "^\"a\\\\\\^\"b^\"");
	expect_cmd("\\\\", "^\"\\\\\\\\^\"");
	expect_cmd("%PATH%", "^\"%%PATH%%^\"");
	expect_cmd("100%", "^\"100%%^\"");
	expect_cmd("!x!", "^\"^!x^!^\"");
	expect_cmd("a&b|c<d>e(f)^g", "^\"a^&b^|c^<d^>e^(f^)^^g^\"");
	expect_cmd("$HOME `id` ;#", "^\"$HOME `id` ;#^\"");
	expect_cmd("caf\xc3\xa9", "^\"caf\xc3\xa9^\"");
	expect_cmd(LSQ, "^\"" LSQ "^\"");
}
END_TEST

START_TEST(test_cmd_refused)
{
	expect_refused(quote_cmd, "a\tb", "control byte 0x09 at offset 1 "
	    "cannot be written in a cmd.exe batch file");
	expect_refused(quote_cmd, "\n", "control byte 0x0a at offset 0");
	expect_refused(quote_cmd, "\r\n", "control byte 0x0d");
	expect_refused(quote_cmd, "\x1a", "control byte 0x1a");
	expect_refused(quote_cmd, "\x7f", "control byte 0x7f");
	expect_refused(quote_cmd, "\xff", "byte 0xff at offset 0 is not "
	    "valid UTF-8");
	expect_refused(quote_cmd, "x\xc3", "byte 0xc3 at offset 1");
	expect_refused(quote_cmd, "\xef\xbf\xbe", "byte 0xef");
}
END_TEST

/* The decoders themselves, on lines written by hand. */
START_TEST(test_cmd_decoder)
{
	struct strlist	 a = { NULL, 0, 0 };
	const char	*why = NULL;

	ck_assert_int_eq(cmd_decode("p ^\"a b^\" c\\\\d \"e\\\"f\" "
	    "g\\\\\\\\\"h\" \"\" 100%% ^^^&", &a, &why), 0);
	ck_assert_uint_eq(a.n, 8);
	ck_assert_str_eq(a.v[0], "p");
	ck_assert_str_eq(a.v[1], "a b");
	ck_assert_str_eq(a.v[2], "c\\\\d");
	ck_assert_str_eq(a.v[3], "e\"f");
	ck_assert_str_eq(a.v[4], "g\\\\h");
	ck_assert_str_eq(a.v[5], "");
	ck_assert_str_eq(a.v[6], "100%");
	/* cmd.exe counts every ", even the one after a backslash: it is in
	 * quote mode here, where carets stay (% was expanded before). */
	ck_assert_str_eq(a.v[7], "^^^&");
	strlist_free(&a);
	ck_assert_int_eq(cmd_decode("p \"in^side\" \"a\"\"b\" x\\\\\\\"y",
	    &a, &why), 0);
	ck_assert_uint_eq(a.n, 4);
	ck_assert_str_eq(a.v[1], "in^side");
	ck_assert_str_eq(a.v[2], "a\"b");
	ck_assert_str_eq(a.v[3], "x\\\"y");
	strlist_free(&a);
	ck_assert_int_eq(cmd_decode("p a&b", &a, &why), -1);
	ck_assert_str_eq(why, "unescaped operator");
	ck_assert_int_eq(cmd_decode("p %PATH%", &a, &why), -1);
	ck_assert_str_eq(why, "lone %");
	ck_assert_int_eq(cmd_decode("p x^", &a, &why), -1);
	ck_assert_str_eq(why, "caret at the end of the line");
	strlist_free(&a);
}
END_TEST

/* A line "prog A /opt:B C" built with quote_cmd gives back exactly A,
 * /opt:B and C, whatever they hold. */
START_TEST(test_cmd_property)
{
	struct strlist	 args = { NULL, 0, 0 };
	struct buf	 line;
	const char	*why = NULL;
	char		*w[3], *h;
	size_t		 i, j;

	t_rng_seed(0x5eed0009);
	buf_init(&line);
	for (i = 0; i < 10000; i++) {
		for (j = 0; j < 3; j++)
			w[j] = random_win_string(0);
		line.len = 0;
		buf_adds(&line, "prog ");
		ck_assert_int_eq(quote_cmd(&line, w[0], NULL), 0);
		buf_adds(&line, " /opt:");
		ck_assert_int_eq(quote_cmd(&line, w[1], NULL), 0);
		buf_addc(&line, ' ');
		ck_assert_int_eq(quote_cmd(&line, w[2], NULL), 0);
		h = hex(w[1]);
		ck_assert_msg(cmd_decode(line.s, &args, &why) == 0,
		    "[%s]: %s", line.s, why);
		ck_assert_msg(args.n == 4, "[%s]: %zu arguments", line.s,
		    args.n);
		ck_assert_msg(strcmp(args.v[1], w[0]) == 0, "[%s]: [%s]",
		    line.s, args.v[1]);
		ck_assert_msg(strncmp(args.v[2], "/opt:", 5) == 0 &&
		    strcmp(args.v[2] + 5, w[1]) == 0, "hex %s: [%s]: [%s]", h,
		    line.s, args.v[2]);
		ck_assert_msg(strcmp(args.v[3], w[2]) == 0, "[%s]: [%s]",
		    line.s, args.v[3]);
		free(h);
		strlist_free(&args);
		for (j = 0; j < 3; j++)
			free(w[j]);
	}
	buf_free(&line);
}
END_TEST

/* The task's command line of an HPC Pack job, a shell word for bash -c
 * made of hostile words, goes through a batch line unchanged. */
/*
 * qsub's reading of a #PBS line, as OpenPBS's qsub documents and does
 * it (src/cmds/qsub.c, make_argv): blanks split words; ' or " open a
 * quote that the same character closes, everything between taken as
 * it is; outside quotes a backslash takes the next byte literally. A
 * line ending in a backslash would be joined to the next (qsub_sup.c,
 * pbs_extendable_line): refused here. Returns the words in *out, or -1.
 */
static int
pbs_decode(const char *line, struct strlist *out)
{
	struct buf	w;
	char		q;
	int		inword = 0;

	if (*line != '\0' && line[strlen(line) - 1] == '\\')
		return -1;
	buf_init(&w);
	strlist_init(out);
	for (; *line != '\0'; line++) {
		if (*line == ' ' || *line == '\t') {
			if (inword)
				strlist_add(out, w.s);
			w.len = 0;
			w.s[0] = '\0';
			inword = 0;
			continue;
		}
		inword = 1;
		if (*line == '\'' || *line == '"') {
			q = *line++;
			while (*line != q && *line != '\0')
				buf_addc(&w, *line++);
			if (*line == '\0') {
				buf_free(&w);
				return -1;
			}
		} else if (*line == '\\') {
			buf_addc(&w, *++line);
		} else
			buf_addc(&w, *line);
	}
	if (inword)
		strlist_add(out, w.s);
	buf_free(&w);
	return 0;
}

START_TEST(test_pbs_units)
{
	struct buf	 b;
	char		*why = NULL;

	buf_init(&b);
	ck_assert_int_eq(quote_pbs(&b, "home:eagle", NULL), 0);
	ck_assert_str_eq(b.s, "home:eagle");
	b.len = 0;
	ck_assert_int_eq(quote_pbs(&b, "it's \\", NULL), 0);
	ck_assert_str_eq(b.s, "'it'\"'\"'s \\'");
	b.len = 0;
	ck_assert_int_eq(quote_pbs(&b, "", NULL), 0);
	ck_assert_str_eq(b.s, "''");
	b.len = 0;
	ck_assert_int_eq(quote_pbs(&b, "a\tb", &why), -1);
	ck_assert_str_eq(why, "control byte 0x09 at offset 1 cannot be "
	    "written on a #PBS line");
	ck_assert_uint_eq(b.len, 0);
	free(why);
	buf_free(&b);
}
END_TEST

/* Every value without a control byte comes back whole from qsub's
 * reading of "#PBS -A VALUE -N VALUE". */
START_TEST(test_pbs_property)
{
	struct strlist	 args;
	struct buf	 line;
	size_t		 i;
	char		*s;

	t_rng_seed(0x5eed00b5);
	buf_init(&line);
	for (i = 0; i < 5000; i++) {
		s = random_win_string(0);
		line.len = 0;
		buf_adds(&line, "-A ");
		ck_assert_int_eq(quote_pbs(&line, s, NULL), 0);
		buf_adds(&line, " -N ");
		ck_assert_int_eq(quote_pbs(&line, s, NULL), 0);
		ck_assert_int_eq(pbs_decode(line.s, &args), 0);
		ck_assert_uint_eq(args.n, 4);
		ck_assert_str_eq(args.v[1], s);
		ck_assert_str_eq(args.v[3], s);
		strlist_free(&args);
		free(s);
	}
	buf_free(&line);
}
END_TEST

START_TEST(test_cmd_shell_word)
{
	struct strlist	 args = { NULL, 0, 0 };
	struct buf	 word, line;
	const char	*why = NULL;
	size_t		 i, j;
	char		*s;

	t_rng_seed(0x5eed000a);
	buf_init(&word);
	buf_init(&line);
	for (i = 0; i < 2000; i++) {
		word.len = line.len = 0;
		for (j = 0; j < 4; j++) {
			s = random_win_string(1);
			if (j > 0)
				buf_addc(&word, ' ');
			quote_sh(&word, s);
			free(s);
		}
		buf_adds(&line, "job add 1 bash -lc ");
		ck_assert_int_eq(quote_cmd(&line, word.s, NULL), 0);
		ck_assert_int_eq(cmd_decode(line.s, &args, &why), 0);
		ck_assert_uint_eq(args.n, 6);
		ck_assert_str_eq(args.v[5], word.s);
		strlist_free(&args);
	}
	buf_free(&line);
	buf_free(&word);
}
END_TEST

/* quote_bsub: bare as quote_sh when it can be, else in double quotes;
 * what a quote or escape would need is refused. */
START_TEST(test_bsub_units)
{
	expect_quoted(quote_bsub, "quote_bsub", "ddp", "ddp");
	expect_quoted(quote_bsub, "quote_bsub", "ddp-%J.out", "ddp-%J.out");
	expect_quoted(quote_bsub, "quote_bsub", "", "\"\"");
	expect_quoted(quote_bsub, "quote_bsub", "my proj", "\"my proj\"");
	expect_quoted(quote_bsub, "quote_bsub", "a;b|c&<d>*?[e](f){g}~!",
	    "\"a;b|c&<d>*?[e](f){g}~!\"");
	expect_quoted(quote_bsub, "quote_bsub", "caf\xc3\xa9",
	    "\"caf\xc3\xa9\"");
}
END_TEST

START_TEST(test_bsub_refused)
{
	expect_refused(quote_bsub, "a\"b", "'\"' at offset 1 cannot be "
	    "written on an #BSUB line");
	expect_refused(quote_bsub, "it's", "''' at offset 2");
	expect_refused(quote_bsub, "a\\b", "'\\' at offset 1");
	expect_refused(quote_bsub, "$HOME", "'$' at offset 0");
	expect_refused(quote_bsub, "`id`", "'`' at offset 0");
	expect_refused(quote_bsub, "x #y", "'#' at offset 2");
	expect_refused(quote_bsub, "a\nb", "'\\n' at offset 1");
	expect_refused(quote_bsub, "\x7f", "at offset 0");
	expect_refused(quote_bsub, "tab\there", "at offset 3");
}
END_TEST

static Suite *
quote_suite(void)
{
	Suite	*s = suite_create("quote");
	TCase	*tc;

	tc = tcase_create("sh");
	tcase_add_test(tc, test_sh_bare);
	tcase_add_test(tc, test_sh_empty);
	tcase_add_test(tc, test_sh_posix_units);
	tcase_add_test(tc, test_sh_line_units);
	tcase_add_test(tc, test_sh_line_property);
	tcase_add_test(tc, test_sh_posix_property);
	tcase_add_test(tc, test_sh_single);
	tcase_add_test(tc, test_sh_ansic);
	tcase_add_test(tc, test_sh_appends);
	tcase_add_test(tc, test_sh_unquote_property);
	tcase_add_test(tc, test_sh_unquote_refused);
	tcase_add_test(tc, test_sh_vars_units);
	tcase_add_test(tc, test_sh_vars_bash_property);
	suite_add_tcase(s, tc);

	tc = tcase_create("sh_property");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sh_one_line);
	tcase_add_test(tc, test_sh_bash_property);
	tcase_add_test(tc, test_sh_sbatch_property);
	suite_add_tcase(s, tc);

	tc = tcase_create("xml");
	tcase_add_test(tc, test_xml_entities);
	tcase_add_test(tc, test_xml_utf8);
	tcase_add_test(tc, test_xml_control);
	tcase_add_test(tc, test_xml_bad_utf8);
	suite_add_tcase(s, tc);

	tc = tcase_create("ps");
	tcase_add_test(tc, test_ps_units);
	tcase_add_test(tc, test_ps_smart_quotes);
	tcase_add_test(tc, test_ps_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("ps_property");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ps_property);
	tcase_add_test(tc, test_ps_concat);
	tcase_add_test(tc, test_win_accepts_as_xml);
	suite_add_tcase(s, tc);

	tc = tcase_create("bsub");
	tcase_add_test(tc, test_bsub_units);
	tcase_add_test(tc, test_bsub_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmd");
	tcase_add_test(tc, test_cmd_units);
	tcase_add_test(tc, test_cmd_refused);
	tcase_add_test(tc, test_cmd_decoder);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmd_property");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cmd_property);
	tcase_add_test(tc, test_cmd_shell_word);
	suite_add_tcase(s, tc);

	tc = tcase_create("pbs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pbs_units);
	tcase_add_test(tc, test_pbs_property);
	suite_add_tcase(s, tc);

	tc = tcase_create("xml_property");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_xml_xmllint_valid);
	tcase_add_test(tc, test_xml_xmllint_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(quote_suite());
}
