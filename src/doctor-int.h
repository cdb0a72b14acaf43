/* doctor-int.h: what the doctor's own files share and no other module
 * sees: the checks' table (doctor.c) and the levels' names. */
#ifndef DDPGEN_DOCTOR_INT_H
#define DDPGEN_DOCTOR_INT_H

#include "doctor.h"

/* Each check's name, and whether a failure blames the node (so that it
 * belongs in --exclude): a typo in a variable is nobody's node. */
struct doctor_check_row {
	const char	*name;
	int		 blames;
};

extern const struct doctor_check_row doctor_checks[DOCTOR_NCHECKS];
extern const char *const doctor_levels[];

#endif
