/* mac-own.c: mac.h without a library, for ddprank-static: SHA-256 as
 * FIPS 180-4 section 6.2 specifies it, HMAC as RFC 2104 does. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "mac.h"

#define SHA_BLOCK	64

struct sha256 {
	uint32_t	 h[8];
	unsigned char	 block[SHA_BLOCK];
	size_t		 used;		/* bytes in block */
	uint64_t	 bits;		/* message length so far */
};

/* FIPS 180-4, 4.2.2: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t
sha_ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void
sha_compress(struct sha256 *s, const unsigned char *p)
{
	uint32_t	w[64], v[8], t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = (sha_ror(w[i - 2], 17) ^ sha_ror(w[i - 2], 19) ^
		    w[i - 2] >> 10) + w[i - 7] + (sha_ror(w[i - 15], 7) ^
		    sha_ror(w[i - 15], 18) ^ w[i - 15] >> 3) + w[i - 16];
	memcpy(v, s->h, sizeof v);
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (sha_ror(v[4], 6) ^ sha_ror(v[4], 11) ^
		    sha_ror(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
		    sha_k[i] + w[i];
		t2 = (sha_ror(v[0], 2) ^ sha_ror(v[0], 13) ^
		    sha_ror(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^
		    (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof v[0]);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		s->h[i] += v[i];
}

static void
sha_init(struct sha256 *s)
{
	/* FIPS 180-4, 5.3.3. */
	static const uint32_t	h0[8] = { 0x6a09e667, 0xbb67ae85,
		0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
		0x5be0cd19 };

	memcpy(s->h, h0, sizeof s->h);
	s->used = 0;
	s->bits = 0;
}

static void
sha_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char	*p = data;
	size_t			 n;

	s->bits += (uint64_t)len * 8;
	while (len > 0) {
		n = SHA_BLOCK - s->used;
		if (n > len)
			n = len;
		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == SHA_BLOCK) {
			sha_compress(s, s->block);
			s->used = 0;
		}
	}
}

static void
sha_final(struct sha256 *s, unsigned char out[MAC_LEN])
{
	uint64_t	bits = s->bits;
	unsigned char	pad = 0x80, len[8];
	int		i;

	/* 5.1.1: a 1 bit, zeros up to 56 bytes mod 64, the length. */
	sha_update(s, &pad, 1);
	pad = 0;
	while (s->used != SHA_BLOCK - 8)
		sha_update(s, &pad, 1);
	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_update(s, len, 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

/* Nothing here can fail; it returns 0, as mac.h's contract says. */
int
mac_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
    unsigned char out[MAC_LEN])
{
	struct mac_part	part = { msg, len };

	return mac_hmac_sha256_parts(key, keylen, &part, 1, out);
}

int
mac_hmac_sha256_parts(const void *key, size_t keylen,
    const struct mac_part *parts, size_t nparts, unsigned char out[MAC_LEN])
{
	struct sha256	s;
	unsigned char	k[SHA_BLOCK], pad[SHA_BLOCK], inner[MAC_LEN];
	size_t		i;

	/* RFC 2104, 2: a key longer than a block is hashed first. */
	memset(k, 0, sizeof k);
	if (keylen > SHA_BLOCK) {
		sha_init(&s);
		sha_update(&s, key, keylen);
		sha_final(&s, k);
	} else if (keylen > 0)
		memcpy(k, key, keylen);
	for (i = 0; i < SHA_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	sha_init(&s);
	sha_update(&s, pad, sizeof pad);
	for (i = 0; i < nparts; i++)
		sha_update(&s, parts[i].p, parts[i].len);
	sha_final(&s, inner);
	for (i = 0; i < SHA_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	sha_init(&s);
	sha_update(&s, pad, sizeof pad);
	sha_update(&s, inner, sizeof inner);
	sha_final(&s, out);
	explicit_bzero(k, sizeof k);
	explicit_bzero(pad, sizeof pad);
	explicit_bzero(&s, sizeof s);
	return 0;
}

int
mac_equal(const void *a, const void *b, size_t n)
{
	const volatile unsigned char	*x = a, *y = b;
	unsigned char			 d = 0;
	size_t				 i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}
