/* auth.c: the per-job secret and the HMACs made with it. */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "mac.h"
#include "util.h"
#include "xmalloc.h"

/* A key file holds the hex digits and a newline; anything much longer
 * is not a key file. */
#define AUTH_FILE_MAX	(2 * AUTH_KEY_MAX + 64)

static int
auth_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
auth_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int
auth_parse(struct auth *a, const char *s, const char *from, char **cause)
{
	size_t	n, i;
	int	hi, lo;

	memset(a, 0, sizeof *a);
	while (auth_blank(*s))
		s++;
	for (n = strlen(s); n > 0 && auth_blank(s[n - 1]); n--)
		;
	/* The message never shows the secret, even a bad one. */
	if (n % 2 != 0 || n / 2 < AUTH_KEY_MIN || n / 2 > AUTH_KEY_MAX)
		return util_fail(cause, "%s: expected %d to %d hex digits, an "
		    "even number", from, 2 * AUTH_KEY_MIN, 2 * AUTH_KEY_MAX);
	for (i = 0; i < n / 2; i++) {
		if ((hi = auth_nibble(s[2 * i])) == -1 ||
		    (lo = auth_nibble(s[2 * i + 1])) == -1) {
			memset(a, 0, sizeof *a);
			return util_fail(cause, "%s: not hex digits", from);
		}
		a->key[i] = (unsigned char)(hi << 4 | lo);
	}
	a->len = n / 2;
	snprintf(a->from, sizeof a->from, "%s", from);
	return 0;
}

/* StrictModes for one component: not a link (the caller opened it with
 * O_NOFOLLOW), owned by uid (or root when root_ok), and not writable by
 * group or others; a key file not readable by them either. */
static int
auth_check_mode(int fd, const char *path, uid_t uid, int root_ok,
    mode_t deny, int want_dir, char **cause)
{
	struct stat	st;

	if (fstat(fd, &st) == -1)
		return util_fail(cause, "%s: %s", path, strerror(errno));
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return util_fail(cause, "%s: not a %s", path, want_dir ?
		    "directory" : "regular file");
	if (st.st_uid != uid && !(root_ok && st.st_uid == 0))
		return util_fail(cause, "%s: owned by uid %lu, not by you "
		    "(uid %lu)", path, (unsigned long)st.st_uid,
		    (unsigned long)uid);
	if ((st.st_mode & deny) != 0)
		return util_fail(cause, "%s: mode %04o: %s by others; chmod "
		    "%s", path, (unsigned int)(st.st_mode & 07777),
		    deny == 022 ? "writable" : "readable or writable",
		    deny == 022 ? "go-w" : "go=");
	return 0;
}

static int
auth_read_key(struct auth *a, int fd, const char *path, char **cause)
{
	char	buf[AUTH_FILE_MAX + 1];
	ssize_t	n;
	size_t	got = 0;
	int	rc;

	while (got < sizeof buf - 1 &&
	    (n = read(fd, buf + got, sizeof buf - 1 - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return util_fail(cause, "%s: %s", path,
			    strerror(errno));
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (strlen(buf) != got)
		rc = util_fail(cause, "%s: holds a NUL byte", path);
	else
		rc = auth_parse(a, buf, path, cause);
	explicit_bzero(buf, sizeof buf);
	return rc;
}

/* Opens name under dir, as the key file's directory or the file itself;
 * *fd is -1 when it does not exist. */
static int
auth_openat(int dir, const char *name, int flags, const char *path, int *fd,
    char **cause)
{
	if ((*fd = openat(dir, name, flags | O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK)) == -1 && errno != ENOENT)
		return util_fail(cause, "%s: %s", path, errno == ELOOP ?
		    "a symbolic link" : strerror(errno));
	return 0;
}

int
auth_load_file(struct auth *a, const char *home, uid_t uid, char **cause)
{
	char	dpath[512], fpath[600];
	int	hfd, dfd = -1, ffd = -1, rc = -1;

	memset(a, 0, sizeof *a);
	snprintf(dpath, sizeof dpath, "%s/" AUTH_KEYDIR, home);
	snprintf(fpath, sizeof fpath, "%s/" AUTH_KEYFILE, dpath);
	/* HOME itself may be a link an administrator made. */
	if ((hfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return util_fail(cause, "%s: %s", home, strerror(errno));
	if (auth_check_mode(hfd, home, uid, 1, 022, 1, cause) == -1 ||
	    auth_openat(hfd, AUTH_KEYDIR, O_DIRECTORY, dpath, &dfd,
	    cause) == -1)
		goto out;
	rc = 0;
	if (dfd == -1)
		goto out;
	rc = -1;
	if (auth_check_mode(dfd, dpath, uid, 0, 022, 1, cause) == -1 ||
	    auth_openat(dfd, AUTH_KEYFILE, 0, fpath, &ffd, cause) == -1)
		goto out;
	rc = 0;
	if (ffd == -1)
		goto out;
	if (auth_check_mode(ffd, fpath, uid, 0, 077, 0, cause) == -1 ||
	    auth_read_key(a, ffd, fpath, cause) == -1)
		rc = -1;
out:
	if (ffd != -1)
		close(ffd);
	if (dfd != -1)
		close(dfd);
	close(hfd);
	return rc;
}

static int
auth_write_key(int dfd, const char *fpath, char **cause)
{
	static const char	 digits[] = "0123456789abcdef";
	unsigned char		 r[AUTH_KEY_NEW];
	char			 hex[2 * AUTH_KEY_NEW + 1];
	size_t			 i, got = 0;
	ssize_t			 n;
	int			 fd, saved = 0;

	if (getentropy(r, sizeof r) == -1)
		return util_fail(cause, "getentropy: %s", strerror(errno));
	for (i = 0; i < sizeof r; i++) {
		hex[2 * i] = digits[r[i] >> 4];
		hex[2 * i + 1] = digits[r[i] & 0xf];
	}
	hex[sizeof hex - 1] = '\n';
	explicit_bzero(r, sizeof r);
	if ((fd = openat(dfd, AUTH_KEYFILE, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		explicit_bzero(hex, sizeof hex);
		return errno == EEXIST ? 1 : util_fail(cause, "%s: %s", fpath,
		    strerror(errno));
	}
	while (got < sizeof hex && saved == 0) {
		if ((n = write(fd, hex + got, sizeof hex - got)) == -1 &&
		    errno != EINTR)
			saved = errno;
		else if (n > 0)
			got += (size_t)n;
	}
	explicit_bzero(hex, sizeof hex);
	if (saved == 0 && fsync(fd) == -1)
		saved = errno;
	if (close(fd) == -1 && saved == 0)
		saved = errno;
	if (saved == 0)
		return 0;
	(void)unlinkat(dfd, AUTH_KEYFILE, 0);
	return util_fail(cause, "%s: %s", fpath, strerror(saved));
}

int
auth_make_file(const char *home, uid_t uid, int *made, char **cause)
{
	struct auth	a;
	char		dpath[512], fpath[600];
	int		hfd, dfd = -1, rc = -1;

	*made = 0;
	snprintf(dpath, sizeof dpath, "%s/" AUTH_KEYDIR, home);
	snprintf(fpath, sizeof fpath, "%s/" AUTH_KEYFILE, dpath);
	if ((hfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return util_fail(cause, "%s: %s", home, strerror(errno));
	if (auth_check_mode(hfd, home, uid, 1, 022, 1, cause) == -1)
		goto out;
	if (mkdirat(hfd, AUTH_KEYDIR, 0700) == -1 && errno != EEXIST) {
		util_fail(cause, "%s: %s", dpath, strerror(errno));
		goto out;
	}
	if (auth_openat(hfd, AUTH_KEYDIR, O_DIRECTORY, dpath, &dfd,
	    cause) == -1)
		goto out;
	if (dfd == -1) {
		util_fail(cause, "%s: vanished", dpath);
		goto out;
	}
	if (auth_check_mode(dfd, dpath, uid, 0, 022, 1, cause) == -1 ||
	    (rc = auth_write_key(dfd, fpath, cause)) == -1)
		goto out;
	*made = rc == 0;
	/* Read back as every node will read it. */
	if ((rc = auth_load_file(&a, home, uid, cause)) == 0 && a.len == 0)
		rc = util_fail(cause, "%s: vanished", fpath);
	explicit_bzero(&a, sizeof a);
out:
	if (dfd != -1)
		close(dfd);
	close(hfd);
	return rc;
}

int
auth_mac(const struct auth *a, const char *label, const void *data,
    size_t len, unsigned char mac[AUTH_MAC_LEN])
{
	struct mac_part	part = { data, len };

	return auth_mac_parts(a, label, &part, 1, mac);
}

int
auth_mac_parts(const struct auth *a, const char *label,
    const struct mac_part *parts, size_t n, unsigned char mac[AUTH_MAC_LEN])
{
	struct mac_part	 v[8];
	size_t		 i;

	/* label NUL data: no label is a prefix of another's message. */
	if (n + 1 > sizeof v / sizeof v[0]) {
		memset(mac, 0, AUTH_MAC_LEN);
		return -1;
	}
	v[0].p = label;
	v[0].len = strlen(label) + 1;
	for (i = 0; i < n; i++)
		v[i + 1] = parts[i];
	return mac_hmac_sha256_parts(a->key, a->len, v, n + 1, mac);
}

static void
auth_hex(const unsigned char mac[AUTH_MAC_LEN], char hex[AUTH_HEX_LEN + 1])
{
	static const char	 digits[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < AUTH_MAC_LEN; i++) {
		hex[2 * i] = digits[mac[i] >> 4];
		hex[2 * i + 1] = digits[mac[i] & 0xf];
	}
	hex[AUTH_HEX_LEN] = '\0';
}

int
auth_mac_hex(const struct auth *a, const char *label, const void *data,
    size_t len, char hex[AUTH_HEX_LEN + 1])
{
	unsigned char	mac[AUTH_MAC_LEN];

	hex[0] = '\0';
	if (auth_mac(a, label, data, len, mac) == -1)
		return -1;
	auth_hex(mac, hex);
	return 0;
}

int
auth_mac_hex_parts(const struct auth *a, const char *label,
    const struct mac_part *parts, size_t n, char hex[AUTH_HEX_LEN + 1])
{
	unsigned char	mac[AUTH_MAC_LEN];

	hex[0] = '\0';
	if (auth_mac_parts(a, label, parts, n, mac) == -1)
		return -1;
	auth_hex(mac, hex);
	return 0;
}

int
auth_check_hex(const struct auth *a, const char *label, const void *data,
    size_t len, const char *hex, size_t n)
{
	char	want[AUTH_HEX_LEN + 1];

	if (n != AUTH_HEX_LEN || auth_mac_hex(a, label, data, len, want) == -1)
		return 0;
	return mac_equal(want, hex, AUTH_HEX_LEN);
}
