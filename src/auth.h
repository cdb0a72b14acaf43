/* auth.h: the per-job secret that authenticates what the nodes of a job
 * tell each other through a shared directory, with HMAC-SHA256 from
 * OpenSSL's libcrypto. Functions returning int return 0, or -1 and set
 * *cause (caller frees). */
#ifndef DDPGEN_AUTH_H
#define DDPGEN_AUTH_H

#include <stddef.h>
#include <sys/types.h>

#include "mac.h"

/* The environment variable the Slurm batch shell sets, and the key file
 * under the home directory for schedulers without such a channel. */
#define AUTH_ENV	"DDPRANK_SECRET"
#define AUTH_KEYDIR	".ddprank"
#define AUTH_KEYFILE	"key"
/* Bytes of secret: at least 128 bits, given as hex digits. */
#define AUTH_KEY_MIN	16
#define AUTH_KEY_MAX	64
#define AUTH_MAC_LEN	32
#define AUTH_HEX_LEN	(2 * AUTH_MAC_LEN)

struct auth {
	unsigned char	key[AUTH_KEY_MAX];
	size_t		len;		/* 0: no secret */
	char		from[256];	/* where it came from, for messages */
};

/* A secret written as hex digits, surrounding blanks and newlines
 * allowed; from names its origin in messages. */
int	auth_parse(struct auth *, const char *s, const char *from,
	    char **cause);
/* The key file HOME/.ddprank/key, checked as OpenSSH's StrictModes
 * checks: HOME owned by uid or root and writable by no one else, the
 * directory and the file owned by uid, the directory writable and the
 * file readable by no one else, neither a symbolic link. A missing
 * directory or file leaves a->len 0 and is not an error. */
int	auth_load_file(struct auth *, const char *home, uid_t uid,
	    char **cause);

/* Makes the key file HOME/.ddprank/key for ddprank key: the directory
 * if missing (0700), then the file, made exclusively (0600), holding
 * AUTH_KEY_NEW bytes from getentropy(3) as hex digits; both checked as
 * auth_load_file checks them, and the key read back. A key file that is
 * already there is checked and kept, never replaced; *made says whether
 * this call made it. */
#define AUTH_KEY_NEW	32
int	auth_make_file(const char *home, uid_t uid, int *made, char **cause);

/* HMAC-SHA256 under the secret of label, a NUL and data: 0, or -1 when
 * it cannot be computed (mac is then not to be used: every caller fails
 * closed). */
int	auth_mac(const struct auth *, const char *label, const void *data,
	    size_t len, unsigned char mac[AUTH_MAC_LEN]);
/* The same as AUTH_HEX_LEN lower-case hex digits and a NUL. */
int	auth_mac_hex(const struct auth *, const char *label, const void *data,
	    size_t len, char hex[AUTH_HEX_LEN + 1]);
/* Both, of data given in parts (at most 7), one after the other. */
int	auth_mac_parts(const struct auth *, const char *label,
	    const struct mac_part *, size_t n, unsigned char mac[AUTH_MAC_LEN]);
int	auth_mac_hex_parts(const struct auth *, const char *label,
	    const struct mac_part *, size_t n, char hex[AUTH_HEX_LEN + 1]);
/* 1 when hex, n bytes long, is the MAC of label and data; compared in
 * constant time. 0 when it is not, or the MAC cannot be computed. */
int	auth_check_hex(const struct auth *, const char *label,
	    const void *data, size_t len, const char *hex, size_t n);

#endif
