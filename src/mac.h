/* mac.h: HMAC-SHA256 (RFC 2104, FIPS 180-4) and a comparison that takes
 * the same time wherever the inputs differ. ddprank links mac-openssl.c
 * (libcrypto); ddprank-static links mac-own.c, which needs no library:
 * libcrypto's static archive would bring dlopen, which glibc cannot do
 * from a static program (README, "ddprank-static"). check_mac holds the
 * two to each other and to RFC 4231's vectors. */
#ifndef DDPGEN_MAC_H
#define DDPGEN_MAC_H

#include <stddef.h>

#define MAC_LEN	32

/* 0, or -1 when the library fails: out is then not a MAC and must not
 * be used. */
int	mac_hmac_sha256(const void *key, size_t keylen, const void *msg,
	    size_t len, unsigned char out[MAC_LEN]);
/* The same of a message given in parts, one after the other, so that
 * no caller copies a large one to put a prefix before it. */
struct mac_part {
	const void	*p;
	size_t		 len;
};
int	mac_hmac_sha256_parts(const void *key, size_t keylen,
	    const struct mac_part *, size_t nparts, unsigned char out[MAC_LEN]);
/* 1 when the n bytes of a and b are equal, else 0. */
int	mac_equal(const void *a, const void *b, size_t n);

#endif
