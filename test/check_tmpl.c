/* check_tmpl.c: unit tests for the template engine: syntax, scopes,
 * escaping per context, errors with their lines, loading files. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "quote.h"
#include "testlib.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

#define HOSTILE	"a b'c\"d $(id) `id` *?[x] ~ # ; & | > -- caf\xc3\xa9"

static struct tmpl_vars *V;

/* A back-end's filter, as gen-lsf.c adds it (struct tmpl_opts). */
static const struct tmpl_filter bsub_filter[] = {
	{ "bsub", quote_bsub, 1 },
	{ NULL, NULL, 0 }
};
static const struct tmpl_opts O = { NULL, NULL, bsub_filter };

/* tmpl_set_list takes an argv (char *const *), as a strlist holds. */
static void
set_list(struct tmpl_vars *vars, const char *name,
    const char *const *items, size_t n)
{
	struct strlist	l = { NULL, 0, 0 };
	size_t		i;

	for (i = 0; i < n; i++)
		strlist_add(&l, items[i]);
	tmpl_set_list(vars, name, l.v, l.n);
	strlist_free(&l);
}

static void
setup(void)
{
	static const char *const argv[] = { "train.py", "--lr", "0.1", "a b",
	    "it's", "" };
	static const char *const words[] = { "x", "y z" };
	static const char *const fields[] = { "a", "b", NULL };
	struct tmpl_vars	*r;

	V = tmpl_vars_new();
	tmpl_set(V, "name", "world");
	tmpl_set(V, "empty", "");
	tmpl_set(V, "hostile", HOSTILE);
	tmpl_set(V, "nl", "two\nlines");
	tmpl_set(V, "ctl", "bell\a");
	tmpl_set(V, "dashdash", "--");
	set_list(V, "argv", argv, 6);
	set_list(V, "words", words, 2);
	tmpl_set_empty_list(V, "none");
	tmpl_set_fields(V, "recs", fields);
	r = tmpl_add_record(V, "hosts");
	tmpl_set(r, "host", "n1");
	tmpl_set(r, "rank", "0");
	set_list(r, "gpus", words, 2);
	r = tmpl_add_record(V, "hosts");
	tmpl_set(r, "host", "n 2");
	tmpl_set(r, "rank", "1");
	tmpl_set(r, "name", "shadow");
	tmpl_set_empty_list(r, "gpus");
}

static void
teardown(void)
{
	tmpl_vars_free(V);
	V = NULL;
}

static const char *
ctx_name(enum tmpl_ctx ctx)
{
	switch (ctx) {
	case TMPL_SH:
		return "t.sh";
	case TMPL_XML:
		return "t.xml";
	case TMPL_CMD:
		return "t.cmd";
	case TMPL_PS:
		return "t.ps1";
	}
	return "t";
}

/* Parses and renders text, failing the test on any error. */
static char *
render(enum tmpl_ctx ctx, const char *text)
{
	struct tmpl	*t;
	struct buf	 out;
	char		*cause = NULL;

	if ((t = tmpl_parse(ctx_name(ctx), text, ctx, &O, &cause)) == NULL)
		ck_abort_msg("parse of [%s]: %s", text, cause);
	buf_init(&out);
	if (tmpl_render(t, V, &out, &cause) != 0)
		ck_abort_msg("render of [%s]: %s", text, cause);
	tmpl_free(t);
	return out.s;
}

static void
expect(enum tmpl_ctx ctx, const char *text, const char *want)
{
	char	*got = render(ctx, text);

	ck_assert_str_eq(got, want);
	free(got);
}

#define expect_sh(text, want)	expect(TMPL_SH, text, want)
#define expect_xml(text, want)	expect(TMPL_XML, text, want)
#define expect_cmd(text, want)	expect(TMPL_CMD, text, want)
#define expect_ps(text, want)	expect(TMPL_PS, text, want)

/* The message of a template that must not parse. */
static void
expect_parse_error(enum tmpl_ctx ctx, const char *text, const char *want)
{
	struct tmpl	*t;
	char		*cause = NULL;

	t = tmpl_parse(ctx_name(ctx), text, ctx, &O, &cause);
	ck_assert_msg(t == NULL, "[%s] parsed", text);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* The message of a template that parses but must not render. */
static void
expect_render_error(enum tmpl_ctx ctx, const char *text, const char *want)
{
	struct tmpl	*t;
	struct buf	 out;
	char		*cause = NULL;

	if ((t = tmpl_parse(ctx_name(ctx), text, ctx, &O, &cause)) == NULL)
		ck_abort_msg("parse of [%s]: %s", text, cause);
	buf_init(&out);
	ck_assert_int_eq(tmpl_render(t, V, &out, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	free(cause);
	buf_free(&out);
	tmpl_free(t);
}

/* Writes dir/name and returns its path, which the caller frees. */
static char *
write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char	*path;

	xasprintf(&path, "%s/%s", dir, name);
	t_write(path, data, len);
	return path;
}

START_TEST(test_text)
{
	expect_sh("", "");
	expect_sh("plain $text 'as is' {single} } {\n", "plain $text 'as is' "
	    "{single} } {\n");
	expect_xml("<a b=\"&amp;\"/>\n", "<a b=\"&amp;\"/>\n");
	expect_sh("a}}b", "a}}b");
}
END_TEST

START_TEST(test_var_sh)
{
	expect_sh("hello {{name}}!", "hello world!");
	expect_sh("x={{empty}}", "x=''");
	expect_sh("{{ name }}", "world");
	expect_sh("{{dashdash}}", "--");
	expect_sh("{{hostile}}", "'a b'\\''c\"d $(id) `id` *?[x] ~ # ; & | > "
	    "-- caf\xc3\xa9'");
	expect_sh("# {{nl}}\n", "# $'two\\nlines'\n");
}
END_TEST

START_TEST(test_var_xml)
{
	expect_xml("<a v=\"{{name}}\"/>", "<a v=\"world\"/>");
	expect_xml("<a v=\"{{empty}}\"/>", "<a v=\"\"/>");
	expect_xml("{{hostile}}", "a b&apos;c&quot;d $(id) `id` *?[x] ~ # ; "
	    "&amp; | &gt; -- caf\xc3\xa9");
	expect_xml("{{nl}}", "two&#10;lines");
}
END_TEST

START_TEST(test_var_cmd)
{
	expect_cmd("job add {{name}}", "job add world");
	expect_cmd("/name:{{empty}}", "/name:^\"^\"");
	expect_cmd("{{dashdash}}", "--");
	expect_cmd("{{hostile}}", "^\"a b'c\\^\"d $^(id^) `id` *?[x] ~ # ; "
	    "^& ^| ^> -- caf\xc3\xa9^\"");
	expect_cmd("{{argv}}", "train.py --lr 0.1 ^\"a b^\" ^\"it's^\" "
	    "^\"^\"");
	expect_cmd("{{#hosts}}/h:{{host}} {{/hosts}}", "/h:n1 /h:^\"n 2^\" ");
}
END_TEST

START_TEST(test_var_ps)
{
	expect_ps("$x = {{name}}", "$x = 'world'");
	expect_ps("{{empty}}", "''");
	expect_ps("{{hostile}}", "'a b''c\"d $(id) `id` *?[x] ~ # ; & | > "
	    "-- caf\xc3\xa9'");
	expect_ps("{{argv}}", "'train.py' '--lr' '0.1' 'a b' 'it''s' ''");
	expect_ps("{{#words}}{{.}} + {{/words}}", "'x' + 'y z' + ");
}
END_TEST

/* The filters of the Windows formats, and words for bash in them. */
START_TEST(test_filters_win)
{
	/* The HPC Pack case: a command as one shell word, passed as one
	 * argument or one string. */
	expect_cmd("bash -lc {{argv|sh}}", "bash -lc ^\"train.py --lr 0.1 "
	    "'a b' 'it'\\''s' ''^\"");
	expect_ps("{{argv|sh}}", "'train.py --lr 0.1 ''a b'' ''it''\\''''"
	    "s'' '''''");
	/* cmd and ps make one string of a list, like sh. */
	expect_xml("{{words|cmd}}", "x ^&quot;y z^&quot;");
	expect_sh("{{words|ps}}", "\\''x'\\'' '\\''y z'\\'");
	expect_ps("{{name|cmd}}", "'world'");
	expect_cmd("{{hostile|ps}}", "^\"'a b''c\\^\"d $^(id^) `id` *?[x] ~ "
	    "# ; ^& ^| ^> -- caf\xc3\xa9'^\"");
	expect_xml("{{empty|ps|raw}}", "''");
	expect_cmd("{{none|cmd}}", "^\"^\"");
}
END_TEST

/* bsub: an #BSUB line's value, bare or in double quotes; what IBM
 * documents no quoting for is an error naming the template's line. */
START_TEST(test_filter_bsub)
{
	expect_sh("#BSUB -J {{name|bsub|raw}}", "#BSUB -J world");
	expect_sh("#BSUB -R {{words|bsub|raw}}", "#BSUB -R x \"y z\"");
	expect_render_error(TMPL_SH, "\n#BSUB -J {{hostile|bsub|raw}}",
	    "t.sh:2: variable 'hostile': ''' at offset 3 cannot be written "
	    "on an #BSUB line (LSF documents no quoting there)");
	expect_render_error(TMPL_SH, "{{nl|bsub|raw}}", "t.sh:1: variable "
	    "'nl': '\\n' at offset 3 cannot be written on an #BSUB line "
	    "(LSF documents no quoting there)");
}
END_TEST

/* A back-end's filter is there only where its row gives it. */
START_TEST(test_filter_rows)
{
	struct tmpl	*t;
	char		*cause = NULL;

	t = tmpl_parse("t.sh", "\n{{name|bsub|raw}}", TMPL_SH, NULL, &cause);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(cause, "t.sh:2: unknown filter 'bsub'");
	free(cause);
	expect_parse_error(TMPL_SH, "{{name|pbs}}", "t.sh:1: unknown filter "
	    "'pbs'");
}
END_TEST

START_TEST(test_render_errors_win)
{
	expect_render_error(TMPL_CMD, "\nx {{nl}}", "t.cmd:2: variable 'nl': "
	    "control byte 0x0a at offset 3 cannot be written in a cmd.exe "
	    "batch file");
	expect_render_error(TMPL_PS, "{{ctl}}", "t.ps1:1: variable 'ctl': "
	    "control byte 0x07 at offset 4 cannot be written in a PowerShell "
	    "string");
	expect_render_error(TMPL_SH, "{{nl|ps}}", "t.sh:1: variable 'nl': "
	    "control byte 0x0a at offset 3 cannot be written in a PowerShell "
	    "string");
	expect_render_error(TMPL_XML, "{{nl|cmd}}", "t.xml:1: variable 'nl': "
	    "control byte 0x0a at offset 3 cannot be written in a cmd.exe "
	    "batch file");
	/* A shell word never holds a control byte, so it always passes. */
	expect_cmd("{{nl|sh}}", "^\"$'two\\nlines'^\"");
	expect_ps("{{ctl|sh}}", "'$''bell\\x07'''");
}
END_TEST

START_TEST(test_raw)
{
	expect_sh("{{hostile|raw}}", HOSTILE);
	expect_xml("{{hostile|raw}}", HOSTILE);
	expect_sh("{{argv|raw}}", "train.py --lr 0.1 a b it's ");
	expect_xml("{{ nl | raw }}", "two\nlines");
	/* raw anywhere in the chain drops the context escape. */
	expect_xml("{{name|raw|sh}}", "world");
	expect_xml("{{hostile|sh|raw}}", "'a b'\\''c\"d $(id) `id` *?[x] ~ "
	    "# ; & | > -- caf\xc3\xa9'");
}
END_TEST

START_TEST(test_filters)
{
	/* In a shell template sh|context quotes twice: a word for bash -c. */
	expect_sh("{{words|sh}}", "'x '\\''y z'\\'");
	expect_sh("bash -c {{name|sh}}", "bash -c world");
	expect_sh("{{empty|sh}}", "\\'\\'");
	expect_sh("{{hostile|xml}}", "'a b&apos;c&quot;d $(id) `id` *?[x] ~ "
	    "# ; &amp; | &gt; -- caf\xc3\xa9'");
	expect_xml("{{words|sh}}", "x &apos;y z&apos;");
	expect_xml("{{name|xml|raw}}", "world");
	/* xml, then the context's own escape: XML text about XML. */
	expect_xml("{{argv|xml}}", "train.py --lr 0.1 a b it&amp;apos;s ");
	/* The HPC Pack case: argv as words, as one word, in an attribute
	 * (bash reads it back in test_xml_bash). */
	expect_xml("<Task CommandLine=\"bash -lc {{argv|sh|sh}}\"/>",
	    "<Task CommandLine=\"bash -lc "
	    "&apos;train.py --lr 0.1 &apos;\\&apos;"
	    "&apos;a b&apos;\\&apos;&apos; &apos;\\&apos;"
	    "&apos;it&apos;\\&apos;\\\\\\&apos;\\&apos;&apos;s&apos;\\&apos;"
	    "&apos; &apos;\\&apos;\\&apos;\"/>");
	expect_xml("{{none|sh|sh}}", "&apos;&apos;");
}
END_TEST

START_TEST(test_lists)
{
	expect_sh("run {{argv}}", "run train.py --lr 0.1 'a b' 'it'\\''s' ''");
	expect_sh("[{{none}}]", "[]");
	expect_xml("{{words}}", "x y z");
	expect_sh("{{#words}}<{{.}}>{{/words}}", "<x><'y z'>");
	expect_sh("{{#none}}never{{/none}}", "");
	expect_xml("{{#words}}<i>{{.}}</i>{{/words}}", "<i>x</i><i>y z</i>");
	expect_sh("{{#words}}{{.|raw}},{{/words}}", "x,y z,");
}
END_TEST

START_TEST(test_records)
{
	expect_sh("{{#hosts}}{{rank}}:{{host}} {{/hosts}}", "0:n1 1:'n 2' ");
	/* A record's field hides the outer name, then the outer returns. */
	expect_sh("{{#hosts}}{{name}},{{/hosts}}{{name}}",
	    "world,shadow,world");
	/* Outer names are visible inside. */
	expect_sh("{{#hosts}}{{dashdash}}{{/hosts}}", "----");
	/* Nested sections: string items inside records. */
	expect_sh("{{#hosts}}{{host}}[{{#gpus}}{{.}}({{rank}}){{/gpus}}]"
	    "{{/hosts}}", "n1[x(0)'y z'(0)]'n 2'[]");
	expect_sh("{{#words}}{{#hosts}}{{host}}{{/hosts}}{{/words}}",
	    "n1'n 2'n1'n 2'");
	expect_sh("{{#hosts}}{{?gpus}}{{host}} has{{/gpus}}"
	    "{{^gpus}}{{host}} lacks{{/gpus}};{{/hosts}}",
	    "n1 has;'n 2' lacks;");
}
END_TEST

START_TEST(test_conditionals)
{
	expect_sh("{{?name}}yes{{/name}}", "yes");
	expect_sh("{{?empty}}yes{{/empty}}", "");
	expect_sh("{{^name}}no{{/name}}", "");
	expect_sh("{{^empty}}no{{/empty}}", "no");
	expect_sh("{{?argv}}yes{{/argv}}", "yes");
	expect_sh("{{?none}}yes{{/none}}", "");
	expect_sh("{{^none}}no{{/none}}", "no");
	expect_sh("{{^argv}}no{{/argv}}", "");
	expect_sh("{{?hosts}}yes{{/hosts}}", "yes");
	expect_sh("{{#words}}{{?.}}[{{.}}]{{/.}}{{/words}}", "[x]['y z']");
	expect_sh("{{#argv}}{{^.}}(empty){{/.}}{{/argv}}", "(empty)");
}
END_TEST

START_TEST(test_comments)
{
	expect_sh("a{{! a comment }}b", "ab");
	expect_sh("a{{!}}b", "ab");
	expect_sh("a{{!\nmulti\nline\n}}b", "ab");
	expect_sh("a{{ ! {{name}} b", "a b");
}
END_TEST

START_TEST(test_standalone)
{
	expect_sh("a\n{{#words}}\n{{.}}\n{{/words}}\nb\n", "a\nx\n'y z'\nb\n");
	expect_sh("a\n  {{?name}}  \n\tok\n\t{{/name}}\t\nb\n", "a\n\tok\nb\n");
	expect_sh("a\n{{! note }}\nb\n", "a\nb\n");
	expect_sh("a\n{{!\n multi-line\n}}\nb\n", "a\nb\n");
	expect_sh("a\r\n  {{?name}}\r\nok\r\n{{/name}}\r\n", "a\r\nok\r\n");
	/* At the end of the text, without a newline. */
	expect_sh("{{?name}}\nok\n{{/name}}", "ok\n");
	/* Not alone on the line: kept as written. */
	expect_sh("x {{?name}}\nok\n{{/name}} y\n", "x \nok\n y\n");
	expect_sh("{{?name}}{{/name}}\nb", "\nb");
	expect_sh("{{name}} {{?name}}\nb{{/name}}", "world \nb");
	/* A variable alone on its line keeps its line. */
	expect_sh("a\n{{name}}\nb\n", "a\nworld\nb\n");
	expect_sh("a\n{{empty|raw}}\nb\n", "a\n\nb\n");
	/* A section that renders nothing leaves no blank line. */
	expect_sh("a\n{{#none}}\nnever\n{{/none}}\nb\n", "a\nb\n");
}
END_TEST

START_TEST(test_parse_errors)
{
	expect_parse_error(TMPL_SH, "a\n{{name|foo}}", "t.sh:2: unknown "
	    "filter 'foo'");
	expect_parse_error(TMPL_SH, "{{name|}}", "t.sh:1: empty filter "
	    "after 'name'");
	expect_parse_error(TMPL_SH, "{{name|sh||raw}}", "t.sh:1: empty "
	    "filter after 'name'");
	expect_parse_error(TMPL_XML, "\n\n{{#argv}}\n{{.}}\n",
	    "t.xml:3: {{#argv}} is never closed");
	expect_parse_error(TMPL_SH, "{{#a}}\n{{?b}}\n{{/b}}\n", "t.sh:1: "
	    "{{#a}} is never closed");
	expect_parse_error(TMPL_SH, "x\n{{#a}}\n{{?b}}\n{{/a}}\n",
	    "t.sh:4: {{/a}} does not match {{?b}} opened at line 3");
	expect_parse_error(TMPL_SH, "{{/a}}", "t.sh:1: {{/a}} closes no "
	    "section");
	expect_parse_error(TMPL_SH, "{{#a}}{{/a}}\n{{/a}}", "t.sh:2: {{/a}} "
	    "closes no section");
	expect_parse_error(TMPL_SH, "a\nb {{}}", "t.sh:2: empty tag {{}}");
	expect_parse_error(TMPL_SH, "{{ \t }}", "t.sh:1: empty tag {{}}");
	expect_parse_error(TMPL_SH, "a\n\nb {{name\n}", "t.sh:3: {{ without }}");
	expect_parse_error(TMPL_SH, "{{name}} {{", "t.sh:1: {{ without }}");
	expect_parse_error(TMPL_SH, "{{#}}", "t.sh:1: no name in {{#}}");
	expect_parse_error(TMPL_SH, "{{/ }}", "t.sh:1: no name in {{/}}");
	expect_parse_error(TMPL_SH, "{{a b}}", "t.sh:1: bad name 'a b'");
	expect_parse_error(TMPL_SH, "{{9lives}}", "t.sh:1: bad name '9lives'");
	expect_parse_error(TMPL_SH, "{{{name}}}", "t.sh:1: bad name '{name'");
	expect_parse_error(TMPL_SH, "{{#a|sh}}{{/a}}", "t.sh:1: bad name "
	    "'a|sh'");
	expect_parse_error(TMPL_SH, "{{.}}", "t.sh:1: '.' outside a {{#list}} "
	    "section");
	expect_parse_error(TMPL_SH, "{{?name}}{{.}}{{/name}}", "t.sh:1: '.' "
	    "outside a {{#list}} section");
}
END_TEST

/* Lines count through multi-line tags and removed standalone lines. */
START_TEST(test_error_lines)
{
	expect_parse_error(TMPL_SH, "{{!\n\n}}\n{{?a}}\n{{/a}}\n{{x|y}}",
	    "t.sh:6: unknown filter 'y'");
	expect_parse_error(TMPL_SH, "a\r\nb\r\n{{/a}}", "t.sh:3: {{/a}} "
	    "closes no section");
	expect_render_error(TMPL_SH, "{{#hosts}}\n  {{host}}\n\n{{nope}}\n"
	    "{{/hosts}}\n", "t.sh:4: unknown variable 'nope'");
}
END_TEST

START_TEST(test_depth)
{
	struct buf	 b;
	char		*cause = NULL;
	struct tmpl	*t;
	int		 i;

	buf_init(&b);
	for (i = 0; i < 64; i++)
		buf_adds(&b, "{{#words}}");
	buf_adds(&b, "{{.}}");
	for (i = 0; i < 64; i++)
		buf_adds(&b, "{{/words}}");
	ck_assert_ptr_nonnull(t = tmpl_parse("t.sh", b.s, TMPL_SH, &O,
	    &cause));
	tmpl_free(t);
	b.len = 0;
	for (i = 0; i < 65; i++)
		buf_adds(&b, "{{?name}}\n");
	expect_parse_error(TMPL_SH, b.s, "t.sh:65: sections nested deeper "
	    "than 64");
	buf_free(&b);
}
END_TEST

START_TEST(test_render_errors)
{
	expect_render_error(TMPL_SH, "a\n{{nope}}", "t.sh:2: unknown variable "
	    "'nope'");
	expect_render_error(TMPL_SH, "{{?nope}}{{/nope}}", "t.sh:1: unknown "
	    "variable 'nope'");
	expect_render_error(TMPL_SH, "{{^nope}}{{/nope}}", "t.sh:1: unknown "
	    "variable 'nope'");
	expect_render_error(TMPL_SH, "{{#words}}\n{{host}}{{/words}}",
	    "t.sh:2: unknown variable 'host'");
	expect_render_error(TMPL_SH, "{{#hosts}}{{.}}{{/hosts}}", "t.sh:1: "
	    "'.' in a section over records: name a field instead");
	/* "." is the innermost item, even with a string item further out. */
	expect_render_error(TMPL_SH, "{{#words}}{{#hosts}}{{.}}{{/hosts}}"
	    "{{/words}}", "t.sh:1: '.' in a section over records: name a field "
	    "instead");
	expect_render_error(TMPL_SH, "{{#name}}{{/name}}", "t.sh:1: "
	    "{{#name}} needs a list, 'name' is a string");
	expect_render_error(TMPL_SH, "{{hosts}}", "t.sh:1: 'hosts' is a list "
	    "of records: use {{#hosts}}");
	expect_render_error(TMPL_XML, "\n<a v=\"{{ctl}}\"/>", "t.xml:2: "
	    "variable 'ctl': control byte 0x07 at offset 4 cannot be written "
	    "in XML");
	expect_render_error(TMPL_SH, "{{ctl|xml}}", "t.sh:1: variable 'ctl': "
	    "control byte 0x07 at offset 4 cannot be written in XML");
	/* Whatever raw lets through is the template author's business. */
	expect_xml("{{ctl|raw}}", "bell\a");
}
END_TEST

/* Every name is checked, whether its section renders or not, so a typo
 * does not wait for the data that renders it. */
START_TEST(test_check_unrendered)
{
	expect_render_error(TMPL_SH, "{{?empty}}{{nope}}{{/empty}}",
	    "t.sh:1: unknown variable 'nope'");
	expect_render_error(TMPL_SH, "{{^name}}\n{{nope}}{{/name}}",
	    "t.sh:2: unknown variable 'nope'");
	expect_render_error(TMPL_SH, "{{?empty}}{{?nope}}{{/nope}}{{/empty}}",
	    "t.sh:1: unknown variable 'nope'");
	expect_render_error(TMPL_SH, "{{#none}}{{nope}}{{/none}}",
	    "t.sh:1: unknown variable 'nope'");
	expect_render_error(TMPL_SH, "{{#hosts}}{{?empty}}{{hots}}{{/empty}}"
	    "{{/hosts}}", "t.sh:1: unknown variable 'hots'");
	/* An empty list of records with declared fields. */
	expect_sh("{{#recs}}{{a}}{{b}}{{name}}{{/recs}}", "");
	expect_render_error(TMPL_SH, "x{{#recs}}{{c}}{{/recs}}",
	    "t.sh:1: unknown variable 'c'");
	/* A field of one record is a name of the section. */
	expect_sh("{{#hosts}}{{?empty}}{{host}}{{/empty}}{{/hosts}}", "");
}
END_TEST

START_TEST(test_vars)
{
	static const char *const one[] = { "one" };

	tmpl_set(V, "name", "again");
	expect_sh("{{name}}", "again");
	set_list(V, "name", one, 1);
	expect_sh("{{#name}}{{.}}{{/name}}", "one");
	tmpl_set(V, "name", "string");
	expect_sh("{{name}}", "string");
	/* Declaring a list keeps its items; a string becomes empty. */
	tmpl_set_empty_list(V, "words");
	expect_sh("{{words}}", "x 'y z'");
	tmpl_set_empty_list(V, "name");
	expect_sh("{{^name}}none{{/name}}", "none");
	tmpl_add_record(V, "name");
	expect_sh("{{#name}}rec{{/name}}", "rec");
	tmpl_set(tmpl_add_record(V, "empty"), "f", "v");
	expect_sh("{{#empty}}{{f}}{{/empty}}", "v");
	tmpl_set_list(V, "argv", NULL, 0);
	expect_sh("[{{argv}}]", "[]");
	tmpl_vars_free(NULL);
	tmpl_free(NULL);
}
END_TEST

/* The rendered script, run by bash, gets each value back whole. */
START_TEST(test_sh_bash)
{
	char		*dir = t_tmpdir("check_tmpl"), *path, *cmd, *script;
	struct buf	 out;

	script = render(TMPL_SH, "#!/bin/bash\n# {{nl}} {{hostile}}\n"
	    "printf '[%s]' {{hostile}} {{empty}} {{nl}} {{argv}} {{none}}\n");
	path = write_file(dir, "t.sh", script, strlen(script));
	xasprintf(&cmd, "bash '%s'", path);
	buf_init(&out);
	ck_assert_int_eq(t_capture(cmd, &out), 0);
	ck_assert_str_eq(out.s, "[" HOSTILE "][][two\nlines][train.py][--lr]"
	    "[0.1][a b][it's][]");
	buf_free(&out);
	free(cmd);
	free(path);
	free(script);
	t_rmtree(dir);
}
END_TEST

/* The HPC Pack path: xmllint reads the attribute, bash runs it. */
START_TEST(test_xml_bash)
{
	static const char *const cmd[] = { "printf", "[%s]", HOSTILE, "",
	    "two\nlines", "\xc3\xa9" };
	char		*dir = t_tmpdir("check_tmpl"), *path, *sh, *doc;
	struct buf	 out;

	set_list(V, "cmd", cmd, 6);
	doc = render(TMPL_XML, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	    "<Task CommandLine=\"bash -c {{cmd|sh|sh}}\"/>\n");
	path = write_file(dir, "job.xml", doc, strlen(doc));
	xasprintf(&sh, "bash -c \"$(xmllint --xpath "
	    "'string(/Task/@CommandLine)' '%s')\"", path);
	buf_init(&out);
	ck_assert_int_eq(t_capture(sh, &out), 0);
	ck_assert_str_eq(out.s, "[" HOSTILE "][][two\nlines][\xc3\xa9]");
	buf_free(&out);
	free(sh);
	free(path);
	free(doc);
	t_rmtree(dir);
}
END_TEST

static char *
load_error(const char *path)
{
	char	*cause = NULL;

	ck_assert_ptr_null(tmpl_load(path, NULL, &cause));
	ck_assert_ptr_nonnull(cause);
	return cause;
}

/* Expects loading path to fail with path followed by suffix. */
static void
expect_load_error(const char *path, const char *suffix)
{
	char	*cause = load_error(path), *want;

	xasprintf(&want, "%s%s", path, suffix);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
}

/* A template file named name renders as text does in context ctx. */
static void
expect_loaded(const char *dir, const char *name, enum tmpl_ctx ctx)
{
	static const char	 text[] = "x {{hostile}} {{argv}}";
	struct tmpl		*t;
	struct buf		 b;
	char			*path, *cause = NULL, *want;

	path = write_file(dir, name, text, strlen(text));
	if ((t = tmpl_load(path, NULL, &cause)) == NULL)
		ck_abort_msg("%s: %s", path, cause);
	buf_init(&b);
	ck_assert_int_eq(tmpl_render(t, V, &b, &cause), 0);
	want = render(ctx, text);
	ck_assert_str_eq(b.s, want);
	free(want);
	buf_free(&b);
	tmpl_free(t);
	free(path);
}

START_TEST(test_load)
{
	char		*dir = t_tmpdir("check_tmpl");
	char		*path, *cause;
	struct tmpl	*t;
	struct buf	 b;

	path = write_file(dir, "job.sh", "x={{words}}\n", 12);
	ck_assert_ptr_nonnull(t = tmpl_load(path, NULL, &cause));
	buf_init(&b);
	ck_assert_int_eq(tmpl_render(t, V, &b, &cause), 0);
	ck_assert_str_eq(b.s, "x=x 'y z'\n");
	buf_free(&b);
	tmpl_free(t);
	free(path);

	/* The extension picks the context. */
	expect_loaded(dir, "job.xml", TMPL_XML);
	expect_loaded(dir, "job.cmd", TMPL_CMD);
	expect_loaded(dir, "job.ps1", TMPL_PS);
	expect_loaded(dir, "a.b.ps1", TMPL_PS);

	path = write_file(dir, "bad.sh", "a\n{{#x}}\n", 9);
	expect_load_error(path, ":2: {{#x}} is never closed");
	free(path);

	/* Four filters, not five: each escape may triple the length, and
	 * a long chain made a fuzz input take minutes. */
	path = write_file(dir, "four.sh", "{{words|sh|sh|sh|shvars|raw}}\n",
	    30);
	ck_assert_ptr_nonnull(t = tmpl_load(path, NULL, &cause));
	tmpl_free(t);
	free(path);
	path = write_file(dir, "five.sh", "\n{{words|sh|sh|sh|sh|sh}}\n", 26);
	expect_load_error(path, ":2: 'words': more than 4 filters");
	free(path);
	t_rmtree(dir);
}
END_TEST

START_TEST(test_load_errors)
{
	static const char *const names[] = { "job.txt", "job", "job.sh.in",
	    "job.SH", "x.sh/job", ".xml.d/job", "job.CMD", "job.ps",
	    "job.ps1x", "job.bat" };
	char	*dir = t_tmpdir("check_tmpl"), *path, *cause;
	size_t	 i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		xasprintf(&path, "%s/%s", dir, names[i]);
		expect_load_error(path, ": a template's name must end in .sh, "
		    ".xml, .cmd or .ps1");
		free(path);
	}

	xasprintf(&path, "%s/missing.sh", dir);
	expect_load_error(path, ": No such file or directory");
	free(path);

	xasprintf(&path, "%s/dir.xml", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	cause = load_error(path);
	ck_assert_msg(strncmp(cause, path, strlen(path)) == 0 &&
	    strstr(cause, "directory") != NULL, "%s", cause);
	free(cause);
	free(path);

	path = write_file(dir, "nul.sh", "a\nb\0c", 5);
	expect_load_error(path, ":2: NUL byte in template");
	free(path);

	if (geteuid() != 0) {
		path = write_file(dir, "locked.sh", "x", 1);
		ck_assert_int_eq(chmod(path, 0), 0);
		expect_load_error(path, ": Permission denied");
		free(path);
	}
	t_rmtree(dir);
}
END_TEST

static void
put(const char *dir, const char *name, const char *text)
{
	free(write_file(dir, name, text, strlen(text)));
}

/* The partials' finder of the tests: DIR/NAME, where DIR is arg. */
static char *
find_in(void *arg, const char *from, const char *name, char **cause)
{
	char	*path;

	(void)from;
	xasprintf(&path, "%s/%s", (const char *)arg, name);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	xasprintf(cause, "no %s", name);
	return NULL;
}

/* Loads dir/name with partials from dir and renders it; the output, or
 * NULL with *cause. */
static char *
load_render(const char *dir, const char *name, char **cause)
{
	struct tmpl_opts	 opts = { find_in, NULL, NULL };
	struct tmpl		*t;
	struct buf		 b;
	char			*path;

	opts.arg = (void *)dir;
	xasprintf(&path, "%s/%s", dir, name);
	t = tmpl_load(path, &opts, cause);
	free(path);
	if (t == NULL)
		return NULL;
	buf_init(&b);
	if (tmpl_render(t, V, &b, cause) != 0) {
		tmpl_free(t);
		buf_free(&b);
		return NULL;
	}
	tmpl_free(t);
	return buf_take(&b);
}

/* {{>name}}: the file in its place, a line of its own dropped whole, the
 * context the including template's; partials include partials, inside
 * sections too. */
START_TEST(test_partials)
{
	char	*dir = t_tmpdir("check_tmpl"), *out, *cause = NULL;

	put(dir, "job.sh", "a\n{{>head}}\n  {{> body }}  \nz\n");
	put(dir, "head.sh", "h={{hostile}}\n");
	put(dir, "body.sh", "{{#words}}\n{{>item}}\n{{/words}}\n");
	put(dir, "item.sh", "w {{.}}\n");
	out = load_render(dir, "job.sh", &cause);
	ck_assert_msg(out != NULL, "%s", cause);
	ck_assert_str_eq(out, "a\nh='a b'\\''c\"d $(id) `id` *?[x] ~ # ; & | "
	    "> -- caf\xc3\xa9'\nw x\nw 'y z'\nz\n");
	free(out);
	/* Inline, a partial's text is spliced as it is. */
	put(dir, "in.xml", "<a>{{>x}}</a>");
	put(dir, "x.xml", "{{hostile}}");
	out = load_render(dir, "in.xml", &cause);
	ck_assert_msg(out != NULL, "%s", cause);
	ck_assert_str_eq(out, "<a>a b&apos;c&quot;d $(id) `id` *?[x] ~ # ; "
	    "&amp; | &gt; -- caf\xc3\xa9</a>");
	free(out);
	t_rmtree(dir);
}
END_TEST

/* A partial's errors name it and its line; one that is missing, includes
 * itself, leaves a section open or goes too deep names where. */
START_TEST(test_partial_errors)
{
	char	*dir = t_tmpdir("check_tmpl"), *want, *cause = NULL;
	int	 i;

	put(dir, "a.sh", "x\n{{>b}}\n");
	put(dir, "b.sh", "\n\n{{nope}}\n");
	ck_assert_ptr_null(load_render(dir, "a.sh", &cause));
	xasprintf(&want, "%s/b.sh:3: unknown variable 'nope'", dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);

	put(dir, "c.sh", "\n{{>none}}\n");
	ck_assert_ptr_null(load_render(dir, "c.sh", &cause));
	xasprintf(&want, "%s/c.sh:2: partial 'none': no none.sh", dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);

	put(dir, "d.sh", "{{>e}}");
	put(dir, "e.sh", "\n{{>d}}");
	ck_assert_ptr_null(load_render(dir, "d.sh", &cause));
	xasprintf(&want, "%s/e.sh:2: partial 'd' (%s/d.sh) includes itself",
	    dir, dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);

	put(dir, "f.sh", "{{?name}}\n{{>g}}\n{{/name}}\n");
	put(dir, "g.sh", "{{?name}}\n");
	ck_assert_ptr_null(load_render(dir, "f.sh", &cause));
	xasprintf(&want, "%s/g.sh:1: {{?name}} is never closed", dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	put(dir, "h.sh", "{{/name}}\n");
	put(dir, "i.sh", "{{?name}}\n{{>h}}\n");
	ck_assert_ptr_null(load_render(dir, "i.sh", &cause));
	xasprintf(&want, "%s/h.sh:1: {{/name}} closes no section", dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);

	/* p0 includes p1 ... p9: eight deep is the most. */
	for (i = 0; i < 10; i++) {
		char	*name, *text;

		xasprintf(&name, "p%d.sh", i);
		xasprintf(&text, "{{>p%d}}", i + 1);
		put(dir, name, text);
		free(name);
		free(text);
	}
	ck_assert_ptr_null(load_render(dir, "p0.sh", &cause));
	xasprintf(&want, "%s/p8.sh:1: partial 'p9': partials included "
	    "deeper than 8", dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	for (i = 0; i < 9; i++) {
		char	*name, *text;

		xasprintf(&name, "q%d.sh", i);
		if (i < 8)
			xasprintf(&text, "{{>q%d}}", i + 1);
		else
			text = xstrdup("end\n");
		put(dir, name, text);
		free(name);
		free(text);
	}
	ck_assert_ptr_nonnull(want = load_render(dir, "q0.sh", &cause));
	ck_assert_str_eq(want, "end\n");
	free(want);

	expect_parse_error(TMPL_SH, "\n{{>x}}", "t.sh:2: partial 'x': this "
	    "template cannot include partials");
	expect_parse_error(TMPL_SH, "{{>a/b}}", "t.sh:1: bad partial name "
	    "'a/b'");
	t_rmtree(dir);
}
END_TEST

/* A small fixed-seed fuzz: templates built from tag fragments must
 * parse or fail cleanly, and render or fail cleanly, never crash. */
START_TEST(test_fuzz)
{
	static const char *const frag[] = { "{{", "}}", "{{#words}}",
	    "{{/words}}", "{{#hosts}}", "{{/hosts}}", "{{?name}}",
	    "{{/name}}", "{{^none}}", "{{/none}}", "{{.}}", "{{host}}",
	    "{{argv|sh|sh}}", "{{ctl|xml}}", "{{hostile|raw}}", "{{!",
	    "\n", "  ", "x", "{{#.}}", "{{/.}}", "|", "{{nope}}", "\r\n",
	    "{", "}", "{{name|", "{{#name}}", "{{hosts}}", "#", "/", "\xff" };
	uint64_t	 s;
	struct buf	 text, out;
	struct tmpl	*t;
	char		*cause;
	int		 i, j, n;

	buf_init(&text);
	buf_init(&out);
	t_rng_seed(0x7e3d1);
	for (i = 0; i < 20000; i++) {
		text.len = 0;
		s = t_rng();
		n = (int)(s % 24);
		for (j = 0; j < n; j++) {
			s = t_rng();
			buf_adds(&text, frag[(s >> 8) % (sizeof frag /
			    sizeof frag[0])]);
		}
		cause = NULL;
		t = tmpl_parse("f.xml", text.s, (s & 1) ? TMPL_SH : TMPL_XML,
		    &O, &cause);
		if (t == NULL) {
			ck_assert_msg(cause != NULL && strncmp(cause, "f.xml:",
			    6) == 0, "[%s]: %s", text.s, cause);
			free(cause);
			continue;
		}
		out.len = 0;
		if (tmpl_render(t, V, &out, &cause) != 0) {
			ck_assert_msg(cause != NULL && strncmp(cause, "f.xml:",
			    6) == 0, "[%s]: %s", text.s, cause);
			free(cause);
		}
		tmpl_free(t);
	}
	buf_free(&out);
	buf_free(&text);
}
END_TEST

static Suite *
tmpl_suite(void)
{
	Suite	*s = suite_create("tmpl");
	TCase	*tc;

	tc = tcase_create("syntax");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_var_sh);
	tcase_add_test(tc, test_var_xml);
	tcase_add_test(tc, test_var_cmd);
	tcase_add_test(tc, test_var_ps);
	tcase_add_test(tc, test_filters_win);
	tcase_add_test(tc, test_raw);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_lists);
	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_conditionals);
	tcase_add_test(tc, test_comments);
	tcase_add_test(tc, test_standalone);
	tcase_add_test(tc, test_vars);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_error_lines);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_render_errors);
	tcase_add_test(tc, test_check_unrendered);
	tcase_add_test(tc, test_render_errors_win);
	tcase_add_test(tc, test_filter_bsub);
	tcase_add_test(tc, test_filter_rows);
	tcase_add_test(tc, test_fuzz);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_sh_bash);
	tcase_add_test(tc, test_xml_bash);
	tcase_add_test(tc, test_load);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_partials);
	tcase_add_test(tc, test_partial_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(tmpl_suite());
}
