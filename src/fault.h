/* fault.h: the categories of failure that the lower layers return with
 * their cause. Only the two mains turn a category into an exit status
 * (exitcode.h, and the EXIT STATUS sections of the man pages). */
#ifndef DDPGEN_FAULT_H
#define DDPGEN_FAULT_H

/* Numbered in an order of their own, so that a category that reaches
 * exit() untranslated gives a wrong status, which the tests catch.
 * FAULT_NOTFOUND stays last: the mains' tables are checked against it. */
enum fault {
	FAULT_NONE,		/* no failure */
	FAULT_USAGE,		/* bad option, option value or operand */
	FAULT_SYS,		/* system or I/O error */
	FAULT_NODES,		/* no node list, malformed list, or this
				   host is not in it */
	FAULT_CONFIG,		/* profile or template error */
	FAULT_PORT,		/* the port cannot be bound */
	FAULT_IFACE,		/* no interface matches */
	FAULT_CHECK,		/* the doctor's or --check's check failed */
	FAULT_EXCHANGE,		/* rendezvous exchange failed */
	FAULT_NOEXEC,		/* the command is not executable */
	FAULT_BIND,		/* no binding plan for this node, or it
				   cannot be applied */
	FAULT_NOTFOUND		/* the command is not found */
};

#endif
