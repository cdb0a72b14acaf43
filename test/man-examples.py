#!/usr/bin/env python3
"""man-examples.py: run the EXAMPLES of a man page and compare outputs.

usage: man-examples.py BUILDDIR PAGE...

Each literal display in EXAMPLES is one shell session: a line starting
with "$ " is a command, the lines after it (up to the next command or the
end of the display) are its expected standard output and error; a line
"..." matches any number of lines. Commands run with bash in a scratch
directory holding train.py, with the build directory first in PATH and
HOME and XDG_CONFIG_HOME inside the scratch directory.
"""
import os
import re
import subprocess
import sys
import tempfile


def render(page):
    out = subprocess.run(["mandoc", "-Tascii", "-Owidth=250", page],
                         check=True, capture_output=True).stdout
    text = re.sub(rb".\x08", b"", out).decode("utf-8", "surrogateescape")
    return text.split("\n")


def examples_section(lines):
    start = None
    for i, line in enumerate(lines):
        if line.strip() == "EXAMPLES" and not line.startswith(" "):
            start = i + 1
        elif start is not None and line and not line.startswith(" "):
            return lines[start:i]
    return lines[start:] if start is not None else []


def indent(line):
    return len(line) - len(line.lstrip(" "))


def blocks(section):
    """Yields lists of (command, expected lines), one list per display."""
    cur, cmd_indent = None, None
    for line in section:
        stripped = line.strip()
        if stripped.startswith("$ "):
            if cur is not None and indent(line) != cmd_indent:
                yield cur
                cur = None
            if cur is None:
                cur, cmd_indent = [], indent(line)
            cur.append((stripped[2:], []))
        elif cur is not None:
            if stripped and indent(line) < cmd_indent:
                yield cur
                cur = None
            else:
                cur[-1][1].append(line[cmd_indent:] if stripped else "")
    if cur is not None:
        yield cur


def matches(got, want):
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(got[i:], want[1:]) for i in range(len(got) + 1))
    return bool(got) and got[0] == want[0] and matches(got[1:], want[1:])


def run_block(block, builddir):
    with tempfile.TemporaryDirectory() as scratch:
        with open(os.path.join(scratch, "train.py"), "w") as f:
            f.write("print('train')\n")
        env = dict(os.environ)
        env.update(PATH=builddir + ":" + env.get("PATH", "/usr/bin:/bin"),
                   HOME=scratch, XDG_CONFIG_HOME=os.path.join(scratch, ".config"))
        for var in ("DDPGEN_PROFILE_PATH", "DDPGEN_TEMPLATE_PATH", "MASTER_ADDR"):
            env.pop(var, None)
        script = []
        for n, (cmd, _) in enumerate(block):
            script.append("{ " + cmd + "\n} 2>&1")
            script.append("printf '\\n@@MANEX %d@@\\n'" % n)
        res = subprocess.run(["bash", "-c", "\n".join(script)], cwd=scratch,
                             env=env, capture_output=True, timeout=60)
        out = res.stdout.decode("utf-8", "surrogateescape")
    fails = 0
    for n, (cmd, want) in enumerate(block):
        head, sep, out = out.partition("\n@@MANEX %d@@\n" % n)
        if head.endswith("\n"):
            head = head[:-1]
        # mandoc renders tabs in displays as spaces to the next tab stop.
        got = head.expandtabs(8).split("\n") if head else []
        while want and want[-1] == "":
            want = want[:-1]
        if not sep or not matches(got, want):
            fails += 1
            print("FAIL: $ %s\n  expected:\n    %s\n  got:\n    %s" % (
                cmd, "\n    ".join(want), "\n    ".join(got)))
        else:
            print("ok: $ %s" % cmd)
    return fails


def main():
    builddir = sys.argv[1]
    total = fails = 0
    for page in sys.argv[2:]:
        for block in blocks(examples_section(render(page))):
            total += len(block)
            fails += run_block(block, builddir)
    print("%d example commands, %d failed" % (total, fails))
    if total == 0:
        print("no examples found")
        return 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
