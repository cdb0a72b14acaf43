/* quote.h: escaping for every context a generated script puts text in. */
#ifndef DDPGEN_QUOTE_H
#define DDPGEN_QUOTE_H

#include "util.h"

/* Appends s as exactly one POSIX/bash shell word that never spans lines:
 * left bare when every byte is in [A-Za-z0-9_@%+=:,./-] and s is
 * non-empty; '' for the empty string; '...' with ' written as '\''
 * otherwise; and bash's $'...' (with \n \t \r \\ \' and \xHH) when s has
 * a control byte (1-31, 127), so even a newline stays on one line and
 * the word is safe inside a comment or an #SBATCH line. */
void	quote_sh(struct buf *, const char *s);

/* Appends s escaped for XML 1.0 attribute values and text alike
 * (& < > " ' as entities; tab, newline and CR as character references).
 * Returns -1 (and sets *cause) when s holds a byte XML 1.0 cannot
 * represent (other control bytes). */
int	quote_xml(struct buf *, const char *s, char **cause);

#endif
