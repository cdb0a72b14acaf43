/* check_quote.c: unit and property tests for shell words and XML escapes. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "quote.h"
#include "util.h"
#include "xmalloc.h"

#define NWORDS		1500	/* per family of random strings */
#define BATCH		500	/* words per bash script */
#define MAXLEN		64
#define XML_SAMPLE	150	/* strings sent through xmllint one by one */

/* A fixed-seed generator, so a failure can be replayed anywhere. */
static uint64_t rng_state;

static void
rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static uint32_t
rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static uint32_t
rng_below(uint32_t n)
{
	return rng_next() % n;
}

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
	size_t	 len = rng_below((uint32_t)maxlen + 1), i;
	char	*s = xmalloc(len + 1);

	for (i = 0; i < len; i++) {
		if (alphabet != NULL)
			s[i] = alphabet[rng_below((uint32_t)strlen(alphabet))];
		else
			s[i] = (char)(lo + rng_below(hi - lo + 1));
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

	rng_seed(seed);
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

static char *
tmpdir_make(void)
{
	const char	*base = getenv("TMPDIR");
	char		*dir;

	xasprintf(&dir, "%s/check_quote.XXXXXX",
	    base != NULL && *base != '\0' ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static void
tmpdir_remove(char *dir)
{
	char	*cmd;

	xasprintf(&cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

static void
write_file(const char *path, const char *data, size_t len)
{
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* Runs cmd through sh, appending its standard output to out. */
static int
run_capture(const char *cmd, struct buf *out)
{
	char	 chunk[4096];
	size_t	 n;
	FILE	*f = popen(cmd, "r");

	ck_assert_ptr_nonnull(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_addn(out, chunk, n);
	return pclose(f);
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
bash_batch(const char *dir, const struct strlist *words, size_t from,
    size_t to, const char *locale)
{
	struct buf	 script, out;
	char		*path, *cmd;
	size_t		 i;

	buf_init(&script);
	for (i = from; i < to; i++) {
		buf_adds(&script, "printf '%s\\0' ");
		quote_sh(&script, words->v[i]);
		buf_addc(&script, '\n');
	}
	xasprintf(&path, "%s/words.sh", dir);
	write_file(path, script.s, script.len);
	xasprintf(&cmd, "LC_ALL=%s bash '%s'", locale, path);
	buf_init(&out);
	ck_assert_int_eq(run_capture(cmd, &out), 0);
	compare_printed(&out, words, from, to, locale);
	buf_free(&out);
	buf_free(&script);
	free(cmd);
	free(path);
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

/* What bash reads back must be exactly the bytes we quoted. */
START_TEST(test_sh_bash_property)
{
	static const char *const locales[] = { "C", "C.UTF-8" };
	struct strlist	 words = { NULL, 0, 0 };
	char		*dir = tmpdir_make();
	size_t		 i, l, to;

	random_words(&words, 0x5eed0002);
	for (l = 0; l < 2; l++) {
		for (i = 0; i < words.n; i += BATCH) {
			to = i + BATCH < words.n ? i + BATCH : words.n;
			bash_batch(dir, &words, i, to, locales[l]);
		}
	}
	strlist_free(&words);
	tmpdir_remove(dir);
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

static char *
xml(const char *s)
{
	struct buf	 b;
	char		*cause = NULL;

	buf_init(&b);
	if (quote_xml(&b, s, &cause) != 0)
		ck_abort_msg("quote_xml rejected [%s]: %s", s, cause);
	ck_assert_ptr_null(cause);
	return b.s;
}

static void
expect_xml(const char *in, const char *want)
{
	char	*got = xml(in);

	ck_assert_str_eq(got, want);
	free(got);
}

static void
expect_xml_error(const char *in, const char *msg)
{
	struct buf	 b;
	char		*cause = NULL;

	buf_init(&b);
	buf_adds(&b, "kept");
	ck_assert_int_eq(quote_xml(&b, in, &cause), -1);
	ck_assert_str_eq(b.s, "kept");
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, msg) != NULL, "[%s] lacks [%s]", cause,
	    msg);
	free(cause);
	buf_free(&b);
}

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
		expect_xml_error(s, msg);
	}
}
END_TEST

START_TEST(test_xml_bad_utf8)
{
	expect_xml_error("\x80", "byte 0x80 at offset 0 is not valid UTF-8");
	expect_xml_error("ab\xff", "byte 0xff at offset 2");
	expect_xml_error("\xfe", "not valid UTF-8");
	expect_xml_error("\xc3", "byte 0xc3 at offset 0");	/* cut short */
	expect_xml_error("\xe2\x82", "byte 0xe2");
	expect_xml_error("\xc3(", "byte 0xc3");
	expect_xml_error("\xc0\x80", "byte 0xc0");		/* overlong */
	expect_xml_error("\xc1\xbf", "byte 0xc1");
	expect_xml_error("\xe0\x80\x80", "byte 0xe0");
	expect_xml_error("\xf0\x80\x80\x80", "byte 0xf0");
	expect_xml_error("\xed\xa0\x80", "byte 0xed");		/* surrogate */
	expect_xml_error("\xef\xbf\xbe", "byte 0xef");		/* U+FFFE */
	expect_xml_error("\xef\xbf\xbf", "byte 0xef");		/* U+FFFF */
	expect_xml_error("\xf4\x90\x80\x80", "byte 0xf4");	/* > U+10FFFF */
	expect_xml_error("\xf5\x80\x80\x80", "byte 0xf5");
}
END_TEST

/* Appends one random XML 1.0 character, UTF-8 encoded; never U+E000,
 * which the tests keep as a separator. */
static void
random_xml_char(struct buf *b)
{
	static const char	 special[] = "&<>\"' \t\n\r]";
	uint32_t		 cp;

	switch (rng_below(6)) {
	case 0:
		buf_addc(b, special[rng_below(sizeof special - 1)]);
		return;
	case 1:
	case 2:
		buf_addc(b, (char)(0x20 + rng_below(0x60)));	/* to 0x7f */
		return;
	case 3:
		cp = 0x80 + rng_below(0x800 - 0x80);
		buf_addc(b, (char)(0xc0 | cp >> 6));
		break;
	case 4:
		do
			cp = 0x800 + rng_below(0x10000 - 0x800);
		while ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xe000 ||
		    cp >= 0xfffe);
		buf_addc(b, (char)(0xe0 | cp >> 12));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		break;
	default:
		cp = 0x10000 + rng_below(0x110000 - 0x10000);
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
	size_t		n = rng_below(MAXLEN + 1);

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
	rc = run_capture(cmd, out);
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
	write_file(path, doc.s, doc.len);
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
	write_file(path, doc.s, doc.len);
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
	char		*dir = tmpdir_make();
	size_t		 i;

	rng_seed(0x5eed0004);
	for (i = 0; i < 3000; i++)
		strlist_addown(&l, random_xml_string());
	xml_roundtrip_batch(dir, &l);
	for (i = 0; i < XML_SAMPLE; i++)
		xml_roundtrip(dir, l.v[i]);
	strlist_free(&l);
	tmpdir_remove(dir);
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
	write_file(path, doc.s, doc.len);
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
	char		*dir = tmpdir_make(), *s, *cause, *h;
	size_t		 i, ok = 0, bad = 0;

	rng_seed(0x5eed0005);
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
	tmpdir_remove(dir);
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
	tcase_add_test(tc, test_sh_single);
	tcase_add_test(tc, test_sh_ansic);
	tcase_add_test(tc, test_sh_appends);
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
	SRunner	*sr = srunner_create(quote_suite());
	int	 failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
