/* mac-openssl.c: mac.h with libcrypto. */
#include "config.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "mac.h"

int
mac_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
    unsigned char out[MAC_LEN])
{
	unsigned int	n = MAC_LEN;

	/* A failure is an error, never a MAC: a fixed one (all zeros)
	 * would be one anyone can forge. HMAC takes the key's length as an
	 * int. */
	if (keylen > INT_MAX || HMAC(EVP_sha256(), key, (int)keylen, msg, len,
	    out, &n) == NULL || n != MAC_LEN) {
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
