#!/usr/bin/env python3
"""man-rendered.py PAGE...: slips in man pages as mandoc renders them,
which mandoc -Tlint does not see: a macro name left in the text (a macro
on a text line, "Ar name Ns .o"), a space before a full stop or comma
("of that name ."), a flag with one dash for two ("-no-preflight") or an
English word taken for a flag ("see --signal-lead -in ddpgen(1)"), and
a placeholder run into other letters ("SIG@signal_leads", where the
reader cannot tell the name from the suffix; "nth" is allowed). Prints
PAGE:LINE: what: text for each, exits 1 if any."""

import re
import subprocess
import sys

# Macros a reader would never write as words (It, No, El and Em are
# English or names).
MACROS = ("Ns Ar Fl Cm Ic Pa Ev Xr Sx Ql Op Pq Dq Sq Li Sy Va Nm Oo Oc "
          "Po Pc Bl Bd Ed Dl Fn Fa Dv Er Qo Qc Qq Xo Xc Ta Aq Bq Brq")
RULES = [
    ("macro name in the text",
     re.compile(r"(?:^|\s)(?:%s)(?=\s|$)" % "|".join(MACROS.split()))),
    ("space before punctuation", re.compile(r"[\w')\]] [.,;:](?=\s|$)")),
    ("long option with one dash", re.compile(r"(?:^|[\s\[(|,])-[a-z]+-[a-z]")),
    ("word taken for a flag",
     re.compile(r"(?:^|\s)-(?:in|or|and|of|for|the|to|with|see|from|as|on|"
                r"by|is|at)(?=[\s.,;)]|$)")),
]


def styled(line):
    """The visible characters of a -Tascii line, each with its style:
    'u' underlined (_ BS c), 'b' bold (c BS c), '' plain."""
    out, i = [], 0
    while i < len(line):
        if i + 2 < len(line) and line[i + 1] == "\b":
            # _ BS _ is a bold underscore (in "signal_lead").
            out.append((line[i + 2], "u" if line[i] == "_" and
                        line[i + 2] != "_" else "b"))
            i += 3
        else:
            out.append((line[i], ""))
            i += 1
    return out


def run_on(chars):
    """True where an underlined placeholder runs into plain letters
    (other than an ordinal suffix: nth, 1st)."""
    for k in range(len(chars) - 1):
        if chars[k][1] == "u" and chars[k + 1][1] != "u" and \
                chars[k + 1][0].isalpha():
            tail, style = "", chars[k + 1][1]
            for c, s in chars[k + 1:]:
                if s != style or not c.isalpha():
                    break
                tail += c
            if tail not in ("th", "st", "nd", "rd"):
                return True
    return False


def main(pages):
    bad = 0
    for page in pages:
        raw = subprocess.run(["mandoc", "-Tascii", "-Owidth=250", page],
                             capture_output=True, text=True,
                             check=True).stdout
        for n, line in enumerate(raw.splitlines(), 1):
            chars = styled(line)
            text = "".join(c for c, _ in chars)
            what = [w for w, rx in RULES if rx.search(text)]
            if run_on(chars):
                what.append("placeholder run into letters")
            for w in what:
                print(f"{page}:{n}: {w}: {text.strip()[:160]}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
