/* netif.h: this node's network interfaces, host name and name
 * resolution, behind a seam so tests can inject all three. */
#ifndef DDPGEN_NETIF_H
#define DDPGEN_NETIF_H

#include <stddef.h>

struct rx;

/* Long enough for an IPv6 address with a %scope suffix. */
#define NETIF_ADDRSTRLEN	(46 + 1 + 16)

/* One address; family 0 means none (an interface without one). */
struct netif_addr {
	int		 family;	/* AF_INET, AF_INET6 or 0 */
	unsigned char	 addr[16];	/* network order; 4 bytes for IPv4 */
	unsigned char	 mask[16];
};

/* One interface address, as getifaddrs(3) lists them: an interface
 * appears once per address, and once with family 0 for its link. */
struct netif {
	char		*name;
	int		 up;
	struct netif_addr a;
};

struct netif_list {
	struct netif	*v;
	size_t		 n;
	size_t		 cap;
};

struct netif_addrs {
	struct netif_addr *v;
	size_t		 n;
	size_t		 cap;
};

/* The seam. Each callback returns 0, or -1 and sets *cause. */
struct netif_sys {
	/* Fills list in getifaddrs(3) order (the kernel's). */
	int	(*ifaddrs)(void *arg, struct netif_list *list, char **cause);
	/* This host's name as gethostname(2) gives it. */
	int	(*hostname)(void *arg, char *buf, size_t len, char **cause);
	/* The addresses host resolves to, in getaddrinfo(3) order. */
	int	(*resolve)(void *arg, const char *host,
		    struct netif_addrs *addrs, char **cause);
	void	*arg;
};

/* getifaddrs, gethostname and getaddrinfo. */
extern const struct netif_sys netif_sys_real;

void	netif_list_init(struct netif_list *);
void	netif_list_free(struct netif_list *);
/* Appends an entry; addr is NULL (no address) or numeric, prefix is the
 * netmask length. Returns -1 if addr does not parse. */
int	netif_list_add(struct netif_list *, const char *name, int up,
	    const char *addr, int prefix);

void	netif_addrs_init(struct netif_addrs *);
void	netif_addrs_free(struct netif_addrs *);
void	netif_addrs_add(struct netif_addrs *, const struct netif_addr *);

/* Parses a numeric IPv4 or IPv6 address; -1 if it is neither. */
int	netif_addr_parse(struct netif_addr *, const char *);
/* Sets a's netmask to prefix bits. */
void	netif_addr_prefix(struct netif_addr *a, int prefix);
/* Formats a into buf (NETIF_ADDRSTRLEN bytes); an IPv6 link-local
 * address gets "%ifname" when ifname is not NULL. */
void	netif_addr_format(const struct netif_addr *a, const char *ifname,
	    char *buf, size_t len);
int	netif_addr_equal(const struct netif_addr *, const struct netif_addr *);
/* 1 if a lies in the subnet of net (net's address and mask). */
int	netif_addr_in_subnet(const struct netif_addr *a,
	    const struct netif_addr *net);
int	netif_addr_is_loopback(const struct netif_addr *);

/* The first entry of list that is up, whose name matches rx and that has
 * an address of family (AF_INET, AF_INET6, or AF_UNSPEC for either).
 * Within the interface found, IPv4 comes before IPv6 and IPv6 global
 * addresses before link-local ones. Returns an entry of the list (not to
 * be freed), or NULL and sets *cause, which lists the interfaces that do
 * exist, when there is none. */
const struct netif *netif_find(const struct netif_list *, struct rx *rx,
	    const char *pattern, int family, char **cause);

/* Appends to b the names of the entries of list that are up with an
 * address and match rx, once each, in list order, separated by ','. */
struct buf;
void	netif_names(struct buf *b, const struct netif_list *, struct rx *rx);

/* 1 if one of addrs (other than loopback) is an address of list. */
int	netif_owns(const struct netif_list *, const struct netif_addrs *);

/* "lo 127.0.0.1 ::1, eth0 (down), ...": every interface once, in list
 * order, for messages. Caller frees. */
char	*netif_describe(const struct netif_list *);

#endif
