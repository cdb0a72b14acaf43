/* resolve.h: host names to addresses, and the user's home directory:
 * what needs glibc's name service switch. ddprank links resolve-libc.c
 * (getaddrinfo, getpwuid: DNS, LDAP, whatever nsswitch.conf says);
 * ddprank-static links resolve-files.c, which reads /etc/hosts and
 * /etc/passwd alone, since a static glibc program would load the NSS
 * modules of the glibc it was built with, which a container's image
 * may not have, or have in another version (README, "ddprank-static"). */
#ifndef DDPGEN_RESOLVE_H
#define DDPGEN_RESOLVE_H

#include <sys/types.h>
#include <sys/socket.h>
#include <netdb.h>

/* As getaddrinfo(3); free the list with resolve_free. The files version
 * takes numeric services only, and names from /etc/hosts. */
int	resolve_addrinfo(const char *host, const char *serv,
	    const struct addrinfo *hints, struct addrinfo **res);
void	resolve_free(struct addrinfo *);

/* uid's home directory, or NULL (caller frees). */
char	*resolve_home(uid_t uid);

#endif
