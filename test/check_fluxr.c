/* check_fluxr.c: unit tests for Flux's resource set R (RFC 20), its JSON
 * read strictly, F58 job ids, and fetching R from the flux command. */
#include "config.h"

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "fluxr.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

static void
expect_hosts(const char *r, const char *want)
{
	struct buf	 b;
	char		*cause = NULL;

	buf_init(&b);
	if (fluxr_nodelist(r, strlen(r), &b, &cause) == -1)
		ck_abort_msg("unexpected error for %s: %s", r, cause);
	ck_assert_str_eq(b.s, want);
	buf_free(&b);
}

static void
expect_error_len(const char *r, size_t len, const char *want)
{
	struct buf	 b;
	char		*cause = NULL;

	buf_init(&b);
	if (fluxr_nodelist(r, len, &b, &cause) == 0)
		ck_abort_msg("no error for %s: %s", r, b.s);
	ck_assert_str_eq(cause, want);
	free(cause);
	buf_free(&b);
}

static void
expect_error(const char *r, const char *want)
{
	expect_error_len(r, strlen(r), want);
}

/* RFC 20's example (data/spec_20/example1.json), and R as `flux job info
 * ID R` prints it for a job of two nodes (a line, no blanks). */
START_TEST(test_rfc20)
{
	expect_hosts("{\n  \"version\": 1,\n  \"execution\": {\n"
	    "    \"R_lite\": [\n      {\n        \"rank\": \"19-22\",\n"
	    "        \"children\": {\n          \"core\": \"0-47\",\n"
	    "          \"gpu\": \"0-7\"\n        }\n      }\n    ],\n"
	    "    \"nodelist\": [\n      \"node[186-189]\"\n    ],\n"
	    "    \"nslots\": 32,\n    \"starttime\": 1676560542,\n"
	    "    \"expiration\": 1676562342\n  }\n}\n", "node[186-189]");
	expect_hosts("{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
	    "\"0-1\",\"children\":{\"core\":\"0-95\",\"gpu\":\"0-3\"}}],"
	    "\"starttime\":1764547200.5,\"expiration\":1764550800.0,"
	    "\"nodelist\":[\"tuolumne[1001,1003]\"]}}", "tuolumne[1001,1003]");
}
END_TEST

/* Several entries make one list, in order; other keys, of any JSON
 * type, are passed over; "scheduling" may hold anything. */
START_TEST(test_entries)
{
	expect_hosts("{\"execution\":{\"nodelist\":[\"b\",\"a[1-2]\",\"\","
	    "\"c,d\"]},\"version\":1}", "b,a[1-2],c,d");
	expect_hosts("{\"version\":1,\"scheduling\":{\"writer\":\"fluxion\","
	    "\"graph\":{\"nodes\":[1,-2.5e3,true,false,null,[],{}]}},"
	    "\"execution\":{\"properties\":{\"pdebug\":\"0\"},\"nodelist\":"
	    "[\"x\\u0041\\/y\"]}}", "xA/y");
	expect_hosts(" \t\r\n{\"version\" : 1 , \"execution\" : { "
	    "\"nodelist\" : [ \"h\" ] } } \n", "h");
	expect_hosts("{\"version\":1,\"execution\":{\"nodelist\":"
	    "[\"\\u00e9t\\u00e9\",\"\\ud83d\\ude00\"]}}",
	    "\xc3\xa9t\xc3\xa9,\xf0\x9f\x98\x80");
}
END_TEST

START_TEST(test_missing)
{
	expect_error("{\"execution\":{\"nodelist\":[\"a\"]}}",
	    "R has no version");
	expect_error("{\"version\":2,\"execution\":{\"nodelist\":[\"a\"]}}",
	    "R's version is not 1");
	expect_error("{\"version\":1.0,\"execution\":{\"nodelist\":[\"a\"]}}",
	    "R's version is not 1");
	expect_error("{\"version\":\"1\",\"execution\":{\"nodelist\":[\"a\"]}}",
	    "R's version is not 1");
	expect_error("{\"version\":1}", "R has no execution.nodelist");
	expect_error("{\"version\":1,\"execution\":{\"R_lite\":[]}}",
	    "R has no execution.nodelist");
	expect_error("{\"version\":1,\"nodelist\":[\"a\"]}",
	    "R has no execution.nodelist");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":[]}}",
	    "R's execution.nodelist is empty");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":[\"\"]}}",
	    "R's execution.nodelist is empty");
}
END_TEST

/* A second key could hide the first from one reader and not another. */
START_TEST(test_twice)
{
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":[\"a\"],"
	    "\"nodelist\":[\"b\"]}}", "at byte 54: \"nodelist\" given twice");
	expect_error("{\"version\":1,\"version\":1}",
	    "at byte 23: \"version\" given twice");
	expect_error("{\"execution\":{},\"version\":1,\"execution\":{}}",
	    "at byte 40: \"execution\" given twice");
}
END_TEST

START_TEST(test_types)
{
	expect_error("[]", "at byte 0: R is not a JSON object");
	expect_error("", "at byte 0: R is not a JSON object");
	expect_error("{\"version\":1,\"execution\":[]}",
	    "at byte 25: execution is not an object");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":\"a[1-2]\"}}",
	    "at byte 37: execution.nodelist is not an array");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":[\"a\",1]}}",
	    "at byte 42: execution.nodelist holds a non-string");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":[null]}}",
	    "at byte 38: execution.nodelist holds a non-string");
}
END_TEST

START_TEST(test_syntax)
{
	expect_error("{\"version\":1,}", "at byte 13: expected a string");
	expect_error("{\"a\":[1,]}", "at byte 8: expected a JSON value");
	expect_error("{\"a\":[1 2]}", "at byte 8: expected ',' or ']'");
	expect_error("{\"a\":1 \"b\":2}", "at byte 7: expected ',' or '}'");
	expect_error("{\"a\" 1}", "at byte 5: expected ':'");
	expect_error("{\"a\":01}", "at byte 6: expected ',' or '}'");
	expect_error("{\"a\":-}", "at byte 6: bad number");
	expect_error("{\"a\":1.}", "at byte 7: bad number");
	expect_error("{\"a\":1e}", "at byte 7: bad number");
	expect_error("{\"a\":+1}", "at byte 5: expected a JSON value");
	expect_error("{\"a\":tru}", "at byte 5: expected a JSON value");
	expect_error("{\"a\":NaN}", "at byte 5: expected a JSON value");
	expect_error("{\"a\":'x'}", "at byte 5: expected a JSON value");
	expect_error("{\"a\":1}x", "at byte 7: text after R's object");
	expect_error("{\"a\":1}{}", "at byte 7: text after R's object");
	expect_error("{\"a\":1", "at byte 6: expected ',' or '}'");
	expect_error("{\"a", "at byte 3: unterminated string");
	expect_error("{/* */}", "at byte 1: expected a string");
}
END_TEST

START_TEST(test_strings)
{
	expect_error("{\"a\":\"x\ny\"}", "at byte 7: control byte in a string");
	expect_error("{\"a\":\"\\x41\"}", "at byte 7: bad escape in a string");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":[\"a\\tb\"]}}",
	    "at byte 44: control character in execution.nodelist");
	expect_error("{\"version\":1,\"execution\":{\"nodelist\":"
	    "[\"a\\u007f\"]}}", "at byte 47: control character in "
	    "execution.nodelist");
	expect_error("{\"a\":\"\\u00g0\"}", "at byte 10: bad \\u escape");
	expect_error("{\"a\":\"\\u0000\"}", "at byte 12: \\u0000 in a string");
	expect_error("{\"a\":\"\\udc00\"}", "at byte 12: lone low surrogate");
	expect_error("{\"a\":\"\\ud800x\"}", "at byte 12: lone high surrogate");
	expect_error("{\"a\":\"\\ud800\\u0041\"}",
	    "at byte 18: lone high surrogate");
	expect_error("{\"a\":\"\xff\"}", "at byte 6: invalid UTF-8 in a string");
	expect_error("{\"a\":\"\xc0\xaf\"}",
	    "at byte 6: invalid UTF-8 in a string");
	expect_error("{\"a\":\"\xed\xa0\x80\"}",
	    "at byte 6: invalid UTF-8 in a string");
	expect_error("{\"a\":\"\xf4\x90\x80\x80\"}",
	    "at byte 6: invalid UTF-8 in a string");
	expect_error("{\"a\":\"\xe2\x82\"}",
	    "at byte 6: invalid UTF-8 in a string");
	/* A NUL byte ends nothing: it is a control byte. */
	expect_error_len("{\"a\":\"x\0\"}", 10,
	    "at byte 7: control byte in a string");
	expect_error_len("{\"a\":1}\0", 8, "at byte 7: text after R's object");
}
END_TEST

START_TEST(test_depth)
{
	struct buf	b;
	int		i;

	buf_init(&b);
	buf_adds(&b, "{\"a\":");
	for (i = 0; i < FLUXR_DEPTH; i++)
		buf_addc(&b, '[');
	expect_error(b.s, "at byte 69: nested too deeply");
	b.len -= 2;
	b.s[b.len] = '\0';
	for (i = 0; i < FLUXR_DEPTH - 2; i++)
		buf_addc(&b, ']');
	buf_adds(&b, ",\"version\":1,\"execution\":{\"nodelist\":[\"a\"]}}");
	expect_hosts(b.s, "a");
	buf_free(&b);
}
END_TEST

START_TEST(test_size)
{
	expect_error_len("{}", FLUXR_MAX + 1, "R is larger than 67108864 bytes");
}
END_TEST

static void
expect_id(const char *s, uint64_t want)
{
	uint64_t	id = 0;

	if (fluxr_jobid(s, &id) == -1)
		ck_abort_msg("'%s' refused", s);
	ck_assert_msg(id == want, "'%s': %llu, not %llu", s,
	    (unsigned long long)id, (unsigned long long)want);
}

/* F58 as RFC 19 defines it: base58 digits, most significant first; ƒ1 is 0. */
START_TEST(test_jobid)
{
	uint64_t	id;

	expect_id("\xc6\x92" "1", 0);
	expect_id("f1", 0);
	expect_id("\xc6\x92" "2", 1);
	expect_id("fz", 57);
	expect_id("f21", 58);
	expect_id("\xc6\x92" "uZZybuNNy", 6731191091817518ULL); /* RFC 19 */
	expect_id("\xc6\x92" "jpXCZedGfVQ", UINT64_MAX);
	expect_id("1234", 1234);
	expect_id("18446744073709551615", UINT64_MAX);
	ck_assert_int_eq(fluxr_jobid("18446744073709551616", &id), -1);
	ck_assert_int_eq(fluxr_jobid("\xc6\x92" "jpXCZedGfVR", &id), -1);
	ck_assert_int_eq(fluxr_jobid("f0", &id), -1);
	ck_assert_int_eq(fluxr_jobid("fO", &id), -1);
	ck_assert_int_eq(fluxr_jobid("fl", &id), -1);
	ck_assert_int_eq(fluxr_jobid("f", &id), -1);
	ck_assert_int_eq(fluxr_jobid("\xc6\x92", &id), -1);
	ck_assert_int_eq(fluxr_jobid("", &id), -1);
	ck_assert_int_eq(fluxr_jobid("12a", &id), -1);
	ck_assert_int_eq(fluxr_jobid("0x1f", &id), -1);
	ck_assert_int_eq(fluxr_jobid("-1", &id), -1);
}
END_TEST

/* A directory first in PATH holding a flux of script; returns it. */
static char *
fake_flux(const char *script)
{
	char	*dir, *path;
	FILE	*f;

	dir = t_tmpdir("check_fluxr");
	xasprintf(&path, "%s/flux", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\n%s\n", script);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0700), 0);
	free(path);
	return dir;
}

static char *
fetch_with(const char *dir, const char *id, size_t *len, char **cause)
{
	char	*old = xstrdup(getenv("PATH") ? getenv("PATH") : ""), *path;
	char	*r;

	xasprintf(&path, "%s:%s", dir, old);
	setenv("PATH", path, 1);
	r = fluxr_fetch(id, len, cause);
	setenv("PATH", old, 1);
	free(path);
	free(old);
	return r;
}

/* flux job info ID R: the argument grammar of flux-job(1)'s info. */
START_TEST(test_fetch)
{
	char	*dir, *r, *cause = NULL;
	size_t	 len = 0;

	dir = fake_flux("[ \"$*\" = \"job info \xc6\x92" "2b R\" ] || exit 3\n"
	    "printf '{\"version\":1}\\n'");
	r = fetch_with(dir, "\xc6\x92" "2b", &len, &cause);
	if (r == NULL)
		ck_abort_msg("%s", cause);
	ck_assert_str_eq(r, "{\"version\":1}\n");
	ck_assert_uint_eq(len, 14);
	free(r);
	ck_assert_ptr_null(fetch_with(dir, "fX", &len, &cause));
	ck_assert_str_eq(cause, "flux job info fX R exited with status 3");
	free(cause);
	free(dir);
	dir = fake_flux("kill -TERM $$");
	ck_assert_ptr_null(fetch_with(dir, "f2", &len, &cause));
	ck_assert_str_eq(cause, "flux job info f2 R was killed by signal 15");
	free(cause);
	free(dir);
}
END_TEST

/* A flux that never answers is killed at the timeout. */
START_TEST(test_fetch_timeout)
{
	char	*dir, *cause = NULL;
	size_t	 len;

	fluxr_timeout_ms = 300;
	dir = fake_flux("exec sleep 30");
	ck_assert_ptr_null(fetch_with(dir, "f2", &len, &cause));
	ck_assert_str_eq(cause, "flux job info f2 R gave no answer within 1 s");
	free(cause);
	free(dir);
	fluxr_timeout_ms = 60000;
}
END_TEST

START_TEST(test_fetch_missing)
{
	char	*old = xstrdup(getenv("PATH") ? getenv("PATH") : ""), *cause;
	size_t	 len;

	setenv("PATH", "/nonexistent", 1);
	ck_assert_ptr_null(fluxr_fetch("f2", &len, &cause));
	setenv("PATH", old, 1);
	ck_assert_str_eq(cause, "the flux command is not in PATH: ddprank "
	    "reads a Flux job's nodes with 'flux job info f2 R'");
	free(cause);
	free(old);
}
END_TEST

static Suite *
fluxr_suite(void)
{
	Suite	*s = suite_create("fluxr");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_rfc20);
	tcase_add_test(tc, test_entries);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_twice);
	tcase_add_test(tc, test_types);
	tcase_add_test(tc, test_syntax);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_size);
	tcase_add_test(tc, test_jobid);
	tcase_add_test(tc, test_fetch);
	tcase_add_test(tc, test_fetch_timeout);
	tcase_add_test(tc, test_fetch_missing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(fluxr_suite());
}
