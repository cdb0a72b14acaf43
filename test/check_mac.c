/* check_mac.c: ddprank-static's HMAC-SHA256 (src/mac-own.c) against RFC
 * 4231's test vectors and against libcrypto's HMAC, which ddprank uses:
 * nodes running either compute the same ports and MACs. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "mac.h"
#include "testlib.h"

static void
hex(const unsigned char *p, size_t n, char *out)
{
	size_t	i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static void
expect_mac(const void *key, size_t klen, const void *msg, size_t len,
    const char *want)
{
	unsigned char	mac[MAC_LEN];
	char		got[2 * MAC_LEN + 1];

	ck_assert_int_eq(mac_hmac_sha256(key, klen, msg, len, mac), 0);
	hex(mac, MAC_LEN, got);
	ck_assert_str_eq(got, want);
}

/* RFC 4231, section 4: test cases 1, 2, 3, 6 and 7 (4 and 5 are a longer
 * key and a truncated MAC, covered by 6 and by nothing ddprank does). */
START_TEST(test_rfc4231)
{
	unsigned char	key[131], data[50];

	memset(key, 0x0b, 20);
	expect_mac(key, 20, "Hi There", 8, "b0344c61d8db38535ca8afceaf0bf12b"
	    "881dc200c9833da726e9376c2e32cff7");
	expect_mac("Jefe", 4, "what do ya want for nothing?", 28,
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key, 0xaa, sizeof key);
	memset(data, 0xdd, sizeof data);
	expect_mac(key, 20, data, 50, "773ea91e36800e46854db8ebd09181a7"
	    "2959098b3ef8c122d9635514ced565fe");
	expect_mac(key, 131, "Test Using Larger Than Block-Size Key - Hash "
	    "Key First", 54, "60e431591ee0b67f0d8a26aacbf5b77f"
	    "8e0bc6213728c5140546040f0ee37f54");
	expect_mac(key, 131, "This is a test using a larger than block-size "
	    "key and a larger than block-size data. The key needs to be "
	    "hashed before being used by the HMAC algorithm.", 152,
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}
END_TEST

/* Every key and message length around SHA-256's block and padding
 * boundaries, against libcrypto. */
START_TEST(test_libcrypto)
{
	unsigned char	key[200], msg[300], a[MAC_LEN], b[MAC_LEN];
	unsigned int	n;
	size_t		klen, len, i;

	t_rng_seed(4231);
	for (i = 0; i < sizeof key; i++)
		key[i] = (unsigned char)t_rng();
	for (i = 0; i < sizeof msg; i++)
		msg[i] = (unsigned char)t_rng();
	for (klen = 0; klen < sizeof key; klen += 7) {
		for (len = 0; len < sizeof msg; len++) {
			ck_assert_int_eq(mac_hmac_sha256(key, klen, msg, len, a),
			    0);
			n = MAC_LEN;
			ck_assert_ptr_nonnull(HMAC(EVP_sha256(), key,
			    (int)klen, msg, len, b, &n));
			ck_assert_msg(memcmp(a, b, MAC_LEN) == 0,
			    "key %zu bytes, message %zu bytes", klen, len);
		}
	}
}
END_TEST

/* In parts, cut anywhere: the MAC of the whole. */
START_TEST(test_parts)
{
	struct mac_part	v[2];
	unsigned char	msg[200], a[MAC_LEN], b[MAC_LEN];
	size_t		i;

	for (i = 0; i < sizeof msg; i++)
		msg[i] = (unsigned char)(i * 13);
	ck_assert_int_eq(mac_hmac_sha256("key", 3, msg, sizeof msg, a), 0);
	for (i = 0; i <= sizeof msg; i++) {
		v[0].p = msg;
		v[0].len = i;
		v[1].p = msg + i;
		v[1].len = sizeof msg - i;
		ck_assert_int_eq(mac_hmac_sha256_parts("key", 3, v, 2, b), 0);
		ck_assert_msg(memcmp(a, b, MAC_LEN) == 0, "cut at %zu", i);
	}
}
END_TEST

START_TEST(test_equal)
{
	ck_assert_int_eq(mac_equal("abcd", "abcd", 4), 1);
	ck_assert_int_eq(mac_equal("abcd", "abce", 4), 0);
	ck_assert_int_eq(mac_equal("xbcd", "abcd", 4), 0);
	ck_assert_int_eq(mac_equal("abcd", "abce", 3), 1);
	ck_assert_int_eq(mac_equal("", "", 0), 1);
}
END_TEST

static Suite *
mac_suite(void)
{
	Suite	*s = suite_create("mac");
	TCase	*tc;

	tc = tcase_create("own");
	/* 8,700 HMACs each way, libcrypto's fetching its digest every time:
	 * milliseconds on a quiet core, past Check's 4 s on Debian 13 beside
	 * three cluster tests on 2 cores. The limit only catches a hang. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rfc4231);
	tcase_add_test(tc, test_libcrypto);
	tcase_add_test(tc, test_parts);
	tcase_add_test(tc, test_equal);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(mac_suite());
}
