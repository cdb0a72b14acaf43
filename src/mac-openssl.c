/* mac-openssl.c: mac.h with libcrypto. */
#include "config.h"

#include <limits.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "mac.h"

int
mac_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
    unsigned char out[MAC_LEN])
{
	struct mac_part	part = { msg, len };

	return mac_hmac_sha256_parts(key, keylen, &part, 1, out);
}

/* The HMAC's implementation, fetched from libcrypto's providers once:
 * a fetch costs more than the MAC of a small message. */
static EVP_MAC	*mac_hmac;

int
mac_hmac_sha256_parts(const void *key, size_t keylen,
    const struct mac_part *parts, size_t nparts, unsigned char out[MAC_LEN])
{
	EVP_MAC_CTX	*ctx = NULL;
	OSSL_PARAM	 params[2];
	char		 digest[] = "SHA256";
	size_t		 i, n = 0;
	int		 ok = 0;

	/* A failure is an error, never a MAC: a fixed one (all zeros)
	 * would be one anyone can forge. As HMAC(3), no key longer than
	 * an int says. */
	if (keylen > INT_MAX)
		goto done;
	if (mac_hmac == NULL &&
	    (mac_hmac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL)) == NULL)
		goto done;
	if ((ctx = EVP_MAC_CTX_new(mac_hmac)) == NULL)
		goto done;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
	    digest, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!EVP_MAC_init(ctx, key, keylen, params))
		goto done;
	for (i = 0; i < nparts; i++) {
		if (parts[i].len > 0 &&
		    !EVP_MAC_update(ctx, parts[i].p, parts[i].len))
			goto done;
	}
	ok = EVP_MAC_final(ctx, out, &n, MAC_LEN) && n == MAC_LEN;
done:
	EVP_MAC_CTX_free(ctx);
	if (!ok) {
		memset(out, 0, MAC_LEN);
		return -1;
	}
	return 0;
}

int
mac_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}
