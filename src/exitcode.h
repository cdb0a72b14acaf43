/* exitcode.h: the exit statuses of ddpgen and ddprank, one list for both
 * programs, documented in the EXIT STATUS sections of their man pages. */
#ifndef DDPGEN_EXITCODE_H
#define DDPGEN_EXITCODE_H

enum exitcode {
	XC_OK = 0,
	XC_FAIL = 1,		/* system or I/O error */
	XC_USAGE = 2,		/* bad option or option value */
	XC_CONFIG = 3,		/* ddpgen: profile or template error */
	XC_NODES = 4,		/* ddprank: no node list, malformed list,
				   or this host is not in it */
	XC_IFACE = 5,		/* ddprank: no interface matches */
	XC_PORT = 6,		/* ddprank: the port cannot be bound */
	XC_EXCHANGE = 7,	/* ddprank: rendezvous exchange failed */
	XC_DOCTOR = 8,		/* ddprank doctor: a check failed */
	XC_CHECK = 8,		/* ddpgen --check: a check failed */
	XC_BIND = 9,		/* ddprank: no binding plan for this node,
				   or it cannot be applied */
	XC_NOEXEC = 126,	/* ddprank exec: command not executable */
	XC_NOTFOUND = 127	/* ddprank exec: command not found */
};

#endif
