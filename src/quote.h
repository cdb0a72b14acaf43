/* quote.h: escaping for every context a generated script puts text in. */
#ifndef DDPGEN_QUOTE_H
#define DDPGEN_QUOTE_H

#include "util.h"

/* Appends s as exactly one POSIX/bash shell word that never spans lines:
 * left bare when every byte is in [A-Za-z0-9_@%+=:,./-] and s is
 * non-empty; '' for the empty string; '...' otherwise, with each ' and \
 * written outside the quotes as \' and \\ (sbatch honours backslash
 * escapes even between quotes on an #SBATCH line, so a backslash inside
 * '...' would be lost there); and bash's $'...' (with \n \t \r \\ \'
 * and \xHH) when s has a control byte (1-31, 127), so even a newline
 * stays on one line and the word is safe inside a comment. Bytes >= 128
 * pass through literally. A bare word holding = is an assignment when
 * it comes first in a command: put such values in argument position. */
void	quote_sh(struct buf *, const char *s);

/* Appends s escaped for XML 1.0 attribute values and text alike
 * (& < > " ' as entities; tab, newline and CR as character references).
 * s must be UTF-8, as the generated documents are. Returns -1 (and sets
 * *cause, appending nothing) when s holds something XML 1.0 cannot
 * represent: another control byte, invalid UTF-8 (overlong forms and
 * surrogates included), U+FFFE or U+FFFF. */
int	quote_xml(struct buf *, const char *s, char **cause);

#endif
