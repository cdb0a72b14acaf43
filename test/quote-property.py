#!/usr/bin/env python3
"""quote-property.py: the property test behind t-quote-property.sh.

Random argument vectors (bytes 1-255, 0-64 bytes long, up to 8 of them)
and random values for every option that reaches a generated job go
through ddpgen; each job is executed with a ddprank stand-in that records
the argv and environment it gets, and what it records must equal what was
given, byte for byte; an --env value in a Slurm job as the job-time rule
of ddpgen(1) expands it ($NAME and ${NAME} only, \\$ a literal $),
checked against a model of that rule. Values ddpgen refuses by design
(control bytes in an #SBATCH value or an interface pattern, text XML
cannot carry) must be refused with one clear error line. Then profiles
with a container whose image and mounts are hostile bytes: each runtime
gets them byte for byte. Then random host names and MASTER_ADDR
values go through ddprank env and back through eval in bash and sh.

Executions are batched: one bash process runs many jobs, each in a
subshell, with srun a function that runs its command the way
"/bin/bash -c CODE NAME ARGS" would (a subshell evaluating CODE with
ARGS as positional parameters), and "bash -lc CODE" likewise for HPC
Pack command lines. Every 100th job also runs for real (bash job.sh, a
srun script in PATH, /bin/bash -c; bash -c COMMANDLINE) and must record
the same thing.

Usage: quote-property.py --ddpgen P --ddprank P --standin P --work DIR
       [--n N] [--seed S] [--jobs J] [--sbatch]
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

SBATCH_OPTS = ["job-name", "partition", "account", "qos", "constraint"]
SBATCH_KEYS = {o: o.replace("-", "_") for o in SBATCH_OPTS}
# An LSF job's #BSUB lines: the options that reach them, and the flag
# each becomes (qos and constraint are Slurm's alone).
BSUB_OPTS = {"job-name": b"-J", "partition": b"-q", "account": b"-P"}
# What quote_bsub refuses besides control bytes: IBM documents no
# quoting on #BSUB lines.
BSUB_REFUSED = b"\"'\\`$#"
# What reaches a PBS job's #PBS lines, and the qsub option of each.
PBS_OPTS = {"job-name": b"-N", "partition": b"-q", "account": b"-A"}
HOSTILE = [b"$(touch pwned)", b"`touch pwned`", b"';touch pwned;'",
           b"\";touch pwned;\"", b"${IFS}", b"\\", b"\\'", b"'\\''", b"--",
           b"-", b"--help", b"$HOME", b"!!", b"#", b"%PATH%", b"^", b"&",
           b"|", b";", b"<", b">", b"(", b")", b"{a,b}", b"*", b"?", b"[a]",
           b"~", b"\n", b"\t", b"\r", b"\x01", b"\x7f", b"\x1b[31m", b" ",
           b"caf\xc3\xa9", b"\xe2\x80\x98", b"\xe2\x80\x99", b"\xef\xbb\xbf",
           b"\xef\xbf\xbe", b"\xed\xa0\x80", b"\xc0\xaf", b"\xff", b"'", b'"',
           b"&amp;", b"]]>", b"=", b"a=b", b"packjob", b"hetjob", b"%j",
           b"${HOME}", b"\\$HOME", b"$1", b"$$", b"${X:-y}", b"$QP_UNSET",
           b"${QP_UNSET}", b"${", b"$_"]
# The program words each launcher (ddpgen --launcher) runs on a node.
LAUNCHER_WORDS = {None: [b"torchrun"], "srun": [b"python3"],
                  "deepspeed": [b"deepspeed"],
                  "accelerate": [b"accelerate", b"launch"]}
# MASTER_ADDR values that ran code through sh's eval of $'...' words.
EXPLOITS = [b"\x01';touch pwned;#", b"\x01';touch pwned;'"]
SAFE = b"abcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-"


def rand_bytes(rng, maxlen=64, minlen=0):
    """One value: random bytes, hostile tokens, or valid UTF-8 text."""
    n = rng.randint(minlen, maxlen)
    mode = rng.random()
    if mode < 0.35:
        s = bytes(rng.randint(1, 255) for _ in range(n))
    elif mode < 0.75:
        s = b""
        while len(s) < n:
            r = rng.random()
            if r < 0.5:
                s += rng.choice(HOSTILE)
            elif r < 0.8:
                s += bytes([rng.choice(SAFE)])
            else:
                s += bytes([rng.randint(1, 255)])
        s = s[:n]
    else:
        chars = []
        while len("".join(chars).encode()) < n:
            r = rng.random()
            if r < 0.6:
                chars.append(chr(rng.randint(0x20, 0x7e)))
            elif r < 0.7:
                chars.append(chr(rng.randint(1, 0x1f)))
            else:
                c = rng.randint(0x80, 0x10FFFF)
                if 0xD800 <= c <= 0xDFFF:
                    c = 0xE9
                chars.append(chr(c))
        s = "".join(chars).encode()[:n]
    return s


def utf8(b):
    """b less what is not UTF-8 or not an XML character."""
    s = b.decode("utf-8", "ignore").replace("\ufffe", "").replace("\uffff", "")
    return s.encode()


NAME = rb"[A-Za-z_][A-Za-z0-9_]*"
ENV_REF = re.compile(rb"\\\$|\$\{(" + NAME + rb")\}|\$(" + NAME + rb")")
# What the shell running a job sets besides the environment: bash's own
# variables, the driver's d, i and REC, the script's DDPRANK. A value
# that names one of these (PATH too, which the real runs change) is not
# predicted, and its expansion goes unchecked.
BASH_VARS = set(subprocess.run(["env", "-i", "bash", "-c", "compgen -v"],
                               stdout=subprocess.PIPE).stdout.split())
UNPREDICTABLE = BASH_VARS | {b"d", b"i", b"REC", b"DDPRANK", b"PATH"}


REAL_DIFFERS = UNPREDICTABLE | {b"HOME"}


def ref_names(value):
    """The names value's references expand."""
    return {m.group(1) or m.group(2) for m in ENV_REF.finditer(value)
            if m.group(0) != b"\\$"}


def env_lookup(name):
    """A variable's value in the jobs, None when it cannot be told."""
    if name == b"IFS":
        return b" \t\n"
    if name in os.environb and name not in UNPREDICTABLE:
        return os.environb[name]
    return None if name in UNPREDICTABLE else b""


def expand_env(value):
    """The job-time rule for env values (ddpgen(1)): $NAME and ${NAME}
    expand, an unset one to nothing; \\$ is a literal $; nothing else is
    special. None when a name's value cannot be told."""
    out, pos = b"", 0
    for m in ENV_REF.finditer(value):
        out += value[pos:m.start()]
        if m.group(0) == b"\\$":
            out += b"$"
        else:
            v = env_lookup(m.group(1) or m.group(2))
            if v is None:
                return None
            out += v
        pos = m.end()
    return out + value[pos:]


def has_ctrl(b):
    return any(c < 32 or c == 127 for c in b)


def xml_ok(b, text=False):
    """What quote_xml accepts: UTF-8 XML 1.0 characters; with text, the
    control bytes too (values reach XML through a shell word, which
    spells them out)."""
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if "\ufffe" in s or "\uffff" in s:
        return False
    if not text and any(c < 32 and c not in (9, 10, 13) for c in b):
        return False
    return True


class Vector:
    """One ddpgen invocation: options, the training script, arguments."""

    def __init__(self, rng, i):
        self.i = i
        self.args = [rand_bytes(rng) for _ in range(rng.randint(0, 8))]
        self.script = (rand_bytes(rng, 64, 1) if rng.random() < 0.25
                       else b"/scratch/my dir/train.py")
        self.site = rng.choice(["cori", "plmt", "slurm", "polaris",
                                "tuolumne", "lsf", "local"])
        self.opts = {}
        for o in SBATCH_OPTS:
            if rng.random() < 0.3:
                v = rand_bytes(rng)
                # Mostly without control bytes, so that most jobs are
                # generated; ddpgen refuses the others.
                if rng.random() < 0.8:
                    v = bytes(c for c in v if c >= 32 and c != 127)
                self.opts[o] = v
        self.env = rand_bytes(rng) if rng.random() < 0.5 else None
        self.iface = None
        if rng.random() < 0.3:
            v = rand_bytes(rng, 24, 1)
            if rng.random() < 0.9:
                v = bytes(c for c in v if c >= 32 and c != 127) or b"x"
            self.iface = v
        # The launcher (ddpgen --launcher): its words come before the
        # script; srun-direct is Slurm's alone.
        self.launcher = rng.choice([None, "srun", "deepspeed", "accelerate"])
        self.real = i % 100 == 0
        # Half the vectors hold only what XML can carry, so that HPC Pack
        # jobs are generated from them too.
        if rng.random() < 0.5:
            self.args = [utf8(a) for a in self.args]
            self.script = utf8(self.script) or b"x"
            self.opts = {o: utf8(v) for o, v in self.opts.items()}
            if self.env is not None:
                self.env = utf8(self.env)
            if self.iface is not None:
                self.iface = utf8(self.iface) or b"x"

    def argv(self, ddpgen, ddprank, xml):
        a = [ddpgen, b"--ddprank", ddprank, b"--nodes", b"2"]
        if xml:
            a += [b"--site", b"hpcpack", b"--nodes", b"1"]
            if "job-name" in self.opts:
                a += [b"--job-name", self.opts["job-name"]]
        else:
            a += [b"--site", self.site.encode()]
            for o, v in self.sh_opts().items():
                a += [b"--" + o.encode(), v]
            if self.site == "polaris":
                # The timer of requeue would outlive the job here.
                a += [b"--no-requeue"]
        if self.env is not None:
            a += [b"--env", b"HOSTILE_ENV=" + self.env]
        if self.iface is not None:
            a += [b"--iface", self.iface]
        if self.launcher_of(xml) is not None:
            a += [b"--launcher", self.launcher.encode()]
        return a + [b"--", self.script] + self.args

    def sh_opts(self):
        """The options given to a job: those that reach its directive
        lines (ddpgen refuses the others)."""
        if self.site == "lsf":
            return {o: v for o, v in self.opts.items() if o in BSUB_OPTS}
        if self.site == "local":
            # No scheduler: the job name is the one request it takes.
            return {o: v for o, v in self.opts.items() if o == "job-name"}
        if self.site == "polaris":
            return {o: v for o, v in self.opts.items() if o in PBS_OPTS}
        if self.site == "tuolumne":
            return {o: v for o, v in self.opts.items()
                    if o in Checker.FLUX_OPTS}
        return self.opts

    def launcher_of(self, xml):
        """srun-direct runs on Slurm sites only: elsewhere the default."""
        slurm = not xml and self.site not in ("polaris", "tuolumne", "lsf",
                                              "local")
        return None if not slurm and self.launcher == "srun" \
            else self.launcher

    def may_be_too_long(self):
        """Whether the HPC Pack job's variables may pass 2,048 characters:
        each argument is in both DDPGEN_COMMAND and DDPGEN_TASK, at most
        4 characters a byte and 3 more a word when quoted, with less
        than 700 characters of the rest."""
        words = [self.script] + self.args + [self.iface or b""] + [
            v for o, v in self.opts.items() if o == "job-name"]
        most = sum(2 * (4 * len(w) + 3) for w in words)
        most += 2 * (4 * len(self.env or b"") + 20)
        return most + 700 > 2048

    def refusal(self, xml):
        """The error ddpgen must give, as (status, regex), or None."""
        opts = self.opts if xml else self.sh_opts()
        line = [SBATCH_KEYS[o] for o, v in opts.items()
                if (not xml or o == "job-name") and has_ctrl(v)]
        if self.iface is not None and has_ctrl(self.iface):
            line.append("iface")
        if line:
            return (2, rb"^ddpgen: (%s): control character in " %
                    "|".join(line).encode())
        bsub = [SBATCH_KEYS[o] for o, v in opts.items()
                if not xml and self.site == "lsf" and
                any(c in BSUB_REFUSED for c in v)]
        if bsub:
            return (2, rb"^ddpgen: (%s): '.{1,4}' at offset \d+ cannot be "
                    rb"written on an #BSUB line" % "|".join(bsub).encode())
        if not xml and self.site == "tuolumne":
            # flux batch reads the script as UTF-8 (cli/batch.py).
            values = [self.script] + self.args + list(self.opts.values())
            values += [self.env or b"", self.iface or b""]
            if not all(utf8(v) == v for v in values):
                return (2, rb"^ddpgen: line [0-9]+ of the Flux job is not "
                        rb"valid UTF-8")
            return None
        if not xml:
            return None
        values = [self.script] + self.args + [self.iface or b""]
        values += [v for o, v in self.opts.items() if o == "job-name"]
        # An -e value the format cannot carry is a usage error, found
        # before the template renders the rest.
        if self.env is not None and not xml_ok(self.env):
            return (2, rb"^ddpgen: --env: .*(not valid UTF-8|control byte 0x)")
        if not all(xml_ok(v, text=True) for v in values):
            return (3, rb"^ddpgen: .*(not valid UTF-8|control byte 0x)")
        return None


def u16len(s):
    """Characters as Windows counts them (UTF-16 code units)."""
    return len(s.encode("utf-16-le")) // 2


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          **kw)


class Checker:
    def __init__(self, args):
        self.a = args
        self.failures = 0
        self.kinds = {}
        self.checks = 0
        self.work = args.work
        self.expanded = 0       # env values with a reference expanded
        self.unpredictable = 0  # and those naming a variable bash sets
        self.pool = concurrent.futures.ThreadPoolExecutor(args.jobs)

    def fail(self, msg):
        """Prints the first few failures of each kind (the message up to
        its first digit) and counts them all."""
        self.failures += 1
        kind = re.sub(r"[0-9].*", "", msg)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if self.kinds[kind] <= 5:
            print("FAIL: " + msg, flush=True)

    def check(self, ok, msg):
        self.checks += 1
        if not ok:
            self.fail(msg)
        return ok

    def map(self, fn, items):
        return list(self.pool.map(fn, items))

    # --- generation ---------------------------------------------------

    def generate(self, vectors, xml):
        """Runs ddpgen for each vector; returns those that must run."""
        d = os.path.join(self.work, "xml" if xml else "sh")
        os.makedirs(d, exist_ok=True)
        ddpgen = os.fsencode(self.a.ddpgen)
        standin = os.fsencode(self.a.standin)

        def one(v):
            return v, run(v.argv(ddpgen, standin, xml), cwd=d)

        jobs = []
        refused = too_long = 0
        t0 = time.time()
        for v, p in self.map(one, vectors):
            want = v.refusal(xml)
            err = p.stderr
            what = "%s vector %d" % ("xml" if xml else v.site, v.i)
            if want is None and v.iface is not None and \
                    p.returncode == 2 and p.stdout == b"" and \
                    err.count(b"\n") == 1 and \
                    err.startswith(b"ddpgen: iface: bad pattern '"):
                refused += 1    # PCRE2 does not compile it
                self.checks += 1
                continue
            if want is None and xml and v.may_be_too_long() and \
                    p.returncode == 2 and p.stdout == b"" and \
                    err.count(b"\n") == 1 and re.match(
                        rb"ddpgen: job variables: (\d+) characters "
                        rb".*HPC Pack takes at most 2048:",
                        err) and int(err.split()[3]) > 2048:
                refused += 1    # over HPC Pack's 2,048 characters
                too_long += 1
                self.checks += 1
                continue
            if want is None:
                if not self.check(p.returncode == 0 and err == b"",
                                  "%s: ddpgen exit %d: %r" %
                                  (what, p.returncode, err[:300])):
                    continue
                if xml:
                    name = "job.%d.xml" % v.i
                else:
                    name = "job.%d.sh" % v.i
                with open(os.path.join(d, name), "wb") as f:
                    f.write(p.stdout)
                jobs.append(v)
                continue
            # A pattern PCRE2 does not compile is also refused, and so
            # is anything refused twice over: the first problem counts.
            refused += 1
            rc = want[0]
            if re.match(rb"ddpgen: iface: bad pattern '", err):
                rc = 2
            self.check(p.returncode == rc and p.stdout == b"" and
                       err.count(b"\n") == 1 and (rc == 2 and
                       err.startswith(b"ddpgen: iface: bad pattern '") or
                       re.search(want[1], err) is not None),
                       "%s: want a refusal (exit %d, /%r/), got exit %d: %r"
                       % (what, want[0], want[1], p.returncode, err[:300]))
        print("%s: %d jobs generated, %d refused as they must be (%d over "
              "HPC Pack's 2,048 characters; %.0f s)" %
              ("xml" if xml else "sh", len(jobs), refused, too_long,
               time.time() - t0), flush=True)
        if not xml:
            sites = {}
            for v in jobs:
                sites[v.site] = sites.get(v.site, 0) + 1
            print("sh: jobs per site: %s" % ", ".join(
                "%s %d" % kv for kv in sorted(sites.items())), flush=True)
        return jobs, d

    # --- Slurm ----------------------------------------------------------

    def run_sh(self, jobs, d):
        """Each job in a subshell of one bash per chunk; srun a function."""
        driver = os.path.join(d, "driver.sh")
        with open(driver, "w") as f:
            f.write(r'''
d=$1; shift
SLURM_NNODES=2
export SLURM_NNODES
# flux, a script: a Flux job execs it (t-quote-property.sh writes it).
# LSF jobs: the job's one host, blaunch and bstatus there too, and the
# script's poll of its tasks at once rather than each second.
PATH=$d/../bin:$PATH LSB_JOBID=1 LSB_MCPU_HOSTS='h1 1'
export PATH LSB_JOBID LSB_MCPU_HOSTS
sleep() { command sleep 0.01; }
# srun: drop its options; run "/bin/bash -c CODE NAME ARG..." as bash
# would, in a subshell, CODE seeing ARG... as "$@".
srun() {
	while [ $# -gt 0 ]; do
		case $1 in -N|-n) shift 2 ;; --*) shift ;; *) break ;; esac
	done
	if [ "$1" = /bin/bash ] && [ "$2" = -c ]; then
		(code=$3; shift 4; eval "$code")
	else
		"$@"
	fi
}
module() { :; }
conda() { :; }
# PBS: mpiexec runs its command once, as srun does.
PBS_JOBID=1234.pbs PBS_NODEFILE=$d/nodefile
export PBS_JOBID PBS_NODEFILE
mpiexec() {
	while [ $# -gt 0 ]; do
		case $1 in -n|--ppn) shift 2 ;; *) break ;; esac
	done
	if [ "$1" = /bin/bash ] && [ "$2" = -c ]; then
		(code=$3; shift 4; eval "$code")
	else
		"$@"
	fi
}
for i; do
	REC=$d/rec.$i
	export REC
	(. "$d/job.$i.sh") </dev/null >"$d/log.$i" 2>&1
	echo "$i $?"
done
''')
        with open(os.path.join(d, "nodefile"), "w") as f:
            f.write("node1\nnode1\n")
        self.execute_chunks(jobs, d, driver, "bash")
        # Every 100th for real: a srun script in PATH, bash job.sh.
        bindir = os.path.join(self.work, "bin")
        env = dict(os.environ, SLURM_NNODES="2", PBS_JOBID="1234.pbs",
                   PBS_NODEFILE=os.path.join(d, "nodefile"), LSB_JOBID="1",
                   LSB_MCPU_HOSTS="h1 1")
        env["PATH"] = bindir + ":" + env["PATH"]

        def real(v):
            env2 = dict(env)
            env2["REC"] = os.path.join(d, "real.%d" % v.i)
            p = run(["bash", os.path.join(d, "job.%d.sh" % v.i)], cwd=d,
                    env=env2, stdin=subprocess.DEVNULL)
            return v, p
        for v, p in self.map(real, [v for v in jobs if v.real]):
            self.check(p.returncode == 0,
                       "sh vector %d: real run exit %d: %r" %
                       (v.i, p.returncode, p.stderr[:300]))
            self.check(read(os.path.join(d, "real.%d" % v.i)) ==
                       read(os.path.join(d, "rec.%d" % v.i)),
                       "sh vector %d: real run recorded something else"
                       % v.i)
        for v in jobs:
            self.compare(v, d, xml=False)
        print("sh: %d --env values expanded a variable, %d named one bash "
              "sets (not compared)" % (self.expanded, self.unpredictable),
              flush=True)

    def execute_chunks(self, jobs, d, driver, shell):
        chunks = [jobs[k::self.a.jobs * 4] for k in range(self.a.jobs * 4)]

        def one(chunk):
            return run([shell, driver, d] + [str(v.i) for v in chunk],
                       cwd=d, stdin=subprocess.DEVNULL)
        status = {}
        t0 = time.time()
        for p in self.map(one, [c for c in chunks if c]):
            for line in p.stdout.decode().splitlines():
                i, rc = line.split()
                status[int(i)] = int(rc)
        print("%s: %d jobs executed (%.0f s)" % (os.path.basename(d),
              len(jobs), time.time() - t0), flush=True)
        for v in jobs:
            rc = status.get(v.i)
            if not self.check(rc == 0, "vector %d: job exit %s: %r" % (
                    v.i, rc, read(os.path.join(d, "log.%d" % v.i))[:300])):
                v.failed = True

    def compare(self, v, d, xml):
        what = "%s vector %d" % ("xml" if xml else v.site, v.i)
        if getattr(v, "failed", False):
            return
        rec = read(os.path.join(d, "rec.%d" % v.i)).split(b"\0")
        # argc, argv after "--", then S+HOSTILE_ENV or U, then the
        # --iface value or nothing.
        try:
            n = int(rec[0])
            argv, env, iface = rec[1:1 + n], rec[1 + n], rec[2 + n]
        except (ValueError, IndexError):
            self.fail("%s: unreadable record %r" % (what, rec[:5]))
            return
        self.check(argv[-1 - len(v.args):] == [v.script] + v.args,
                   "%s: argv differs:\n  want %r\n  got  %r" %
                   (what, [v.script] + v.args, argv))
        prog = LAUNCHER_WORDS[v.launcher_of(xml)]
        if xml and v.launcher_of(xml) is None:
            # hpcpack.conf's, torchrun-compatible.
            prog = [b"python3", b"-m", b"torch.distributed.run"]
        # The record starts after the first "--", which an --iface value
        # "--" makes come early: then "--" and the words follow later.
        end = len(argv) - 1 - len(v.args)
        starts = [0] + [k + 1 for k in range(end) if argv[k] == b"--"]
        self.check(any(argv[k:k + len(prog)] == prog and k + len(prog) <= end
                       for k in starts),
                   "%s: launcher %s: argv %r" %
                   (what, v.launcher_of(xml), argv[:end]))
        # HPC Pack sets the job's variables, not its command line: the
        # XML check (xml_values) reads those. A value the job-time rule
        # expands is exported by DDPGEN_TASK instead, so the run sees it.
        if v.env is None or (xml and not ENV_REF.search(v.env)):
            want_env = b"U"
        else:
            want_env = expand_env(v.env)
            if want_env is not None:
                want_env = b"S" + want_env
                self.expanded += want_env != b"S" + v.env
            else:
                self.unpredictable += 1
        if want_env is not None:
            self.check(env == want_env, "%s: HOSTILE_ENV %r from %r, want "
                       "%r" % (what, env, v.env, want_env))
        want_iface = v.iface
        if want_iface is None and not xml:
            want_iface = {"cori": b"^eth3$", "plmt": b"^nmn0$",
                          "polaris": b"^hsn0$",
                          "tuolumne": b"^hsi0$"}.get(v.site)
        if want_iface is None and xml:
            want_iface = b"^eth0$"
        self.check(iface == (want_iface or b""),
                   "%s: --iface %r, want %r" % (what, iface, want_iface))
        if not xml and want_iface is not None:
            ip = read(os.path.join(d, "rec.%d.ip" % v.i))
            self.check(ip == want_iface + b"\0",
                       "%s: ip --iface %r, want %r" % (what, ip, want_iface))

    def sbatch_model(self, line):
        """sbatch 22.05's get_argument over one #SBATCH line: the
        arguments it finds."""
        out = []
        ptr = 0
        while True:
            while ptr < len(line) and line[ptr:ptr + 1].isspace():
                ptr += 1
            if ptr >= len(line):
                return out
            arg, quoted, q, esc = b"", False, None, False
            while ptr < len(line) and (quoted or not
                                       line[ptr:ptr + 1].isspace()):
                c = line[ptr:ptr + 1]
                if esc:
                    esc = False
                elif c == b"\\":
                    esc = True
                    ptr += 1
                    continue
                elif quoted:
                    if c == q:
                        quoted = False
                        ptr += 1
                        continue
                elif c in (b'"', b"'"):
                    quoted, q = True, c
                    ptr += 1
                    continue
                elif c == b"#":
                    return out + [arg]
                arg += c
                ptr += 1
            if quoted:
                return out + [b"<unmatched quote>"]
            out.append(arg)

    def pbs_model(self, line):
        """qsub's make_argv (OpenPBS src/cmds/qsub.c) over one #PBS line:
        blanks split words, ' and " quote up to the same character, a
        backslash outside quotes takes the next byte; and a line that
        ends in a backslash would go on on the next (qsub_sup.c)."""
        if line.rstrip().endswith(b"\\"):
            return [b"<continued>"]
        out, arg, inword, ptr = [], b"", False, 0
        while ptr < len(line):
            c = line[ptr:ptr + 1]
            if c.isspace():
                if inword:
                    out.append(arg)
                arg, inword = b"", False
                ptr += 1
                continue
            inword = True
            if c in (b"'", b'"'):
                end = line.find(c, ptr + 1)
                if end < 0:
                    return out + [b"<unmatched quote>"]
                arg += line[ptr + 1:end]
                ptr = end + 1
            elif c == b"\\":
                arg += line[ptr + 1:ptr + 2]
                ptr += 2
            else:
                arg += c
                ptr += 1
        return out + [arg] if inword else out

    def check_pbs(self, v, text):
        """Each value on its #PBS line, one word, as qsub reads it."""
        args = []
        for ln in text.split(b"\n"):
            if ln.startswith(b"#PBS"):
                args += self.pbs_model(ln[len(b"#PBS"):])
        for o, val in v.opts.items():
            if o not in PBS_OPTS:
                continue
            flag = PBS_OPTS[o]
            hits = [args[k + 1] for k in range(len(args) - 1)
                    if args[k] == flag]
            if val == b"" and o != "job-name":
                self.check(hits == [], "polaris vector %d: empty --%s "
                           "still requested: %r" % (v.i, o, hits))
            else:
                self.check(hits == [val], "polaris vector %d: #PBS %s "
                           "parses as %r, want %r" % (v.i, flag.decode(),
                                                      hits, val))

    def check_sbatch(self, jobs, d):
        """The #SBATCH lines: each option one argument equal to its value,
        by a model of sbatch's parser and, when asked, by sbatch -vvv."""
        found = {}
        for v in jobs:
            if getattr(v, "failed", False):
                continue
            text = read(os.path.join(d, "job.%d.sh" % v.i))
            if v.site == "tuolumne":
                self.check_flux(v, text)
                continue
            if v.site == "polaris":
                self.check_pbs(v, text)
                continue
            if v.site == "lsf":
                self.check_bsub(v, text)
                continue
            if v.site == "local":
                continue
            lines = [ln[len(b"#SBATCH"):] for ln in text.split(b"\n")
                     if ln.startswith(b"#SBATCH")]
            found[v.i] = lines
            args = [a for ln in lines for a in self.sbatch_model(ln)]
            for o, val in v.opts.items():
                want = b"--" + o.encode() + b"=" + val
                hits = [a for a in args if a.startswith(b"--" + o.encode()
                                                       + b"=")]
                if val == b"" and o != "job-name":
                    self.check(hits == [], "%s vector %d: empty --%s "
                               "still requested: %r" % (v.site, v.i, o, hits))
                else:
                    self.check(hits == [want], "%s vector %d: #SBATCH "
                               "--%s parses as %r, want %r" %
                               (v.site, v.i, o, hits, want))
        if self.a.sbatch:
            self.sbatch_real([v for v in jobs if v.site != "tuolumne"],
                             found, d)

    # Flux's directives: flux batch finds them with this pattern and
    # splits them with shlex so (src/bindings/python/flux/job/
    # directives.py, flux-core 4a5e79f): RFC 36.
    FLUX_SENTINEL = re.compile(r"^([^\w]*)((?:flux|FLUX):)(.*)$")
    FLUX_OPTS = {"job-name": "--job-name", "partition": "-q",
                 "account": "-B", "constraint": "--requires"}

    def flux_model(self, text):
        """The arguments of the script's directives, as flux batch reads
        them, or None when it would refuse the script."""
        import shlex
        args = []
        try:
            lines = text.decode("utf-8").split("\n")
        except UnicodeError:
            return None
        for ln in lines:
            m = self.FLUX_SENTINEL.match(ln)
            if not m:
                continue
            if m.group(1) + m.group(2) != "#flux:":
                return None
            lexer = shlex.shlex(m.group(3), posix=True,
                                punctuation_chars=True)
            lexer.whitespace_split = True
            lexer.escapedquotes = "\"'"
            try:
                args.extend(lexer)
            except ValueError:
                return None
        return args

    def check_flux(self, v, text):
        """Each request of a Flux job one argument equal to its value."""
        args = self.flux_model(text)
        if not self.check(args is not None, "tuolumne vector %d: flux "
                          "batch would refuse the script" % v.i):
            return
        for o, val in v.opts.items():
            if o not in self.FLUX_OPTS:
                continue
            flag = self.FLUX_OPTS[o]
            want = val.decode("utf-8")
            if flag.startswith("--"):
                hits = [a[len(flag) + 1:] for a in args
                        if a.startswith(flag + "=")]
            else:
                hits = [args[k + 1] for k, a in enumerate(args[:-1])
                        if a == flag]
            if val == b"" and o != "job-name":
                self.check(hits == [], "tuolumne vector %d: empty --%s "
                           "still requested: %r" % (v.i, o, hits))
            else:
                self.check(hits == [want], "tuolumne vector %d: #flux: "
                           "%s parses as %r, want %r" % (v.i, flag, hits,
                                                        want))

    def bsub_model(self, line):
        """One #BSUB line as LSF's pages write them: an option and a
        value, bare or between double quotes (quote_bsub), or a flag:
        (option, value or None), or None when the line is not of that
        form."""
        opt, sep, val = line.partition(b" ")
        if sep == b"":
            return opt, None        # a flag, as -x
        if val[:1] == b'"':
            if len(val) < 2 or val[-1:] != b'"' or b'"' in val[1:-1]:
                return None
            return opt, val[1:-1]
        if val == b"" or re.search(rb"[\s\"']", val):
            return None
        return opt, val

    def check_bsub(self, v, text):
        """The #BSUB lines: each option's value read back is the value
        given, and nothing else holds a quote or a control byte."""
        got = {}
        for ln in text.split(b"\n"):
            if not ln.startswith(b"#BSUB "):
                continue
            m = self.bsub_model(ln[len(b"#BSUB "):])
            if not self.check(m is not None, "lsf vector %d: #BSUB line "
                              "%r is not an option and one value" %
                              (v.i, ln)):
                continue
            got.setdefault(m[0], []).append(m[1])
        opts = v.sh_opts()
        for o, flag in BSUB_OPTS.items():
            want = opts.get(o, b"ddp" if o == "job-name" else b"")
            want = [want] if want != b"" else []
            self.check(got.get(flag, []) == want, "lsf vector %d: #BSUB %s "
                       "reads back as %r, want %r" %
                       (v.i, flag.decode(), got.get(flag, []), want))

    def sbatch_real(self, jobs, found, d):
        """All #SBATCH lines in one script, a marker before each job's,
        through sbatch -vvv, which lists every argument it finds before it
        tries to reach the controller (there is none: it is stopped)."""
        conf = os.path.join(self.work, "slurm.conf")
        with open(conf, "w") as f:
            f.write("ClusterName=probe\nSlurmctldHost=localhost(127.0.0.1)"
                    "\nSlurmctldPort=1\nNodeName=n1 CPUs=1\n"
                    "PartitionName=p Nodes=n1 Default=YES\n")
        script = [b"#!/bin/bash"]
        order = [v for v in jobs if v.i in found]
        for v in order:
            script.append(b"#SBATCH --comment=MARK%d" % v.i)
            script += [b"#SBATCH" + ln for ln in found[v.i]]
        script.append(b"true\n")
        path = os.path.join(d, "all.sbatch")
        with open(path, "wb") as f:
            f.write(b"\n".join(script))
        env = dict(os.environ, SLURM_CONF=conf)
        p = subprocess.Popen(["sbatch", "-vvv", path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        got = {}
        cur = None
        pre = b'sbatch: debug2: Found in script, argument "'
        for line in p.stderr:
            if line.startswith(b"sbatch: defined options"):
                break
            if not line.startswith(pre) or not line.endswith(b'"\n'):
                continue
            arg = line[len(pre):-2]
            m = re.match(rb"--comment=MARK(\d+)$", arg)
            if m:
                cur = int(m.group(1))
                got[cur] = []
            elif cur is not None:
                got[cur].append(arg)
        p.kill()
        p.wait()
        self.check(len(got) == len(order), "sbatch -vvv: %d jobs' markers "
                   "found of %d" % (len(got), len(order)))
        for v in order:
            want = [a for ln in found[v.i] for a in self.sbatch_model(ln)]
            self.check(got.get(v.i) == want, "sbatch vector %d: sbatch "
                       "finds %r, the model %r" % (v.i, got.get(v.i), want))
        print("sbatch -vvv: %d jobs' #SBATCH lines parsed by sbatch itself"
              % len(got), flush=True)

    # --- HPC Pack XML -----------------------------------------------------

    def run_xml(self, jobs, d):
        files = [os.path.join(d, "job.%d.xml" % v.i) for v in jobs]
        p = run(["xmllint", "--noout"] + files)
        self.check(p.returncode == 0, "xmllint --noout: %r" % p.stderr[:500])
        # One xmllint for all files: the command lines hold no newline
        # (every control byte is spelled out by the shell quoting), so
        # the record separator is one.
        expr = ('concat(string(//*[local-name()="Task"][1]/@CommandLine),'
                ' "\n")')
        p = run(["xmllint", "--xpath", expr] + files)
        lines = p.stdout.split(b"\n")
        cmds = lines[0::2][:len(jobs)]
        self.check(len(cmds) == len(jobs) and all(x == b"" for x in
                                                  lines[1::2]),
                   "xmllint --xpath: %d command lines for %d jobs" %
                   (len(cmds), len(jobs)))
        for v, c in zip(jobs, cmds):
            with open(os.path.join(d, "cmd.%d" % v.i), "wb") as f:
                f.write(c)
            task = self.xml_values(v, d)
            with open(os.path.join(d, "task.%d" % v.i), "wb") as f:
                f.write(task)
        driver = os.path.join(d, "driver.sh")
        with open(driver, "w") as f:
            f.write(r'''
d=$1; shift
# The agent runs CommandLine, "bash -lic CODE ..." with the job's
# variables: CODE (which evaluates DDPGEN_TASK) evaluated in a subshell,
# as a fresh bash would.
bash() {
	if [ "$1" = -lic ]; then
		(eval "$2")
	else
		command bash "$@"
	fi
}
for i; do
	REC=$d/rec.$i
	DDPGEN_TASK=$(cat "$d/task.$i")
	export REC DDPGEN_TASK
	(eval "$(cat "$d/cmd.$i")") </dev/null >"$d/log.$i" 2>&1
	echo "$i $?"
done
''')
        self.execute_chunks(jobs, d, driver, "bash")
        home = os.path.join(self.work, "home")
        os.makedirs(home, exist_ok=True)

        def real(v):
            env = dict(os.environ, HOME=home,
                       REC=os.path.join(d, "real.%d" % v.i))
            env["DDPGEN_TASK"] = os.fsdecode(
                read(os.path.join(d, "task.%d" % v.i)))
            cmd = read(os.path.join(d, "cmd.%d" % v.i))
            return v, run([b"bash", b"-c", cmd], cwd=d, env=env,
                          stdin=subprocess.DEVNULL)
        for v, p in self.map(real, [v for v in jobs if v.real]):
            self.check(p.returncode == 0, "xml vector %d: real run exit %d:"
                       " %r" % (v.i, p.returncode, p.stderr[:300]))
            # The two runs differ in HOME, REC and the driver's own
            # variables: an env value naming one records differently.
            if v.env is not None and ref_names(v.env) & REAL_DIFFERS:
                continue
            self.check(read(os.path.join(d, "real.%d" % v.i)) ==
                       read(os.path.join(d, "rec.%d" % v.i)),
                       "xml vector %d: real run recorded something else"
                       % v.i)
        for v in jobs:
            self.compare(v, d, xml=True)

    def xml_values(self, v, d):
        """Checks the job name and HOSTILE_ENV as an XML parser reads
        them, and the variables' length against HPC Pack's 2,048
        characters; returns DDPGEN_TASK."""
        root = ET.parse(os.path.join(d, "job.%d.xml" % v.i)).getroot()
        ns = {"h": "http://schemas.microsoft.com/HPCS2008R2/scheduler/"}
        env = {var.find("h:Name", ns).text: var.find("h:Value", ns).text
               or "" for var in root.iterfind(".//h:Variable", ns)}
        total = sum(u16len(n + "=" + x) for n, x in env.items())
        self.check(total <= 2048, "xml vector %d: variables of %d "
                   "characters" % (v.i, total))
        self.check(";" not in env.get("DDPGEN_TASK", ";"),
                   "xml vector %d: DDPGEN_TASK missing or with ';'" % v.i)
        if "job-name" in v.opts:
            self.check(root.get("Name").encode() == v.opts["job-name"],
                       "xml vector %d: Name %r, want %r" %
                       (v.i, root.get("Name"), v.opts["job-name"]))
        vals = [var.find("h:Value", ns).text or ""
                for var in root.iterfind(".//h:Variable", ns)
                if var.find("h:Name", ns).text == "HOSTILE_ENV"]
        want = [] if v.env is None or ENV_REF.search(v.env) else [v.env]
        self.check([x.encode() for x in vals] == want,
                   "xml vector %d: HOSTILE_ENV %r, want %r" %
                   (v.i, vals, want))
        return env.get("DDPGEN_TASK", "").encode()

    # --- ddprank env ------------------------------------------------------

    def containers(self, rng, n):
        """Image names and mounts of hostile bytes reach each runtime byte
        for byte: the runtime's words after ddprank's "--", srun's
        options for Pyxis, #SBATCH --image for Shifter."""
        d = os.path.join(self.work, "ctr")
        os.makedirs(d, exist_ok=True)
        ddpgen = os.fsencode(self.a.ddpgen)
        standin = os.fsencode(self.a.standin)
        vs = [Container(rng, i) for i in range(n)]

        def gen(v):
            conf = os.path.join(d, "site.%d.conf" % v.i)
            with open(conf, "wb") as f:
                f.write(v.profile())
            return v, run([ddpgen, b"--ddprank", standin, b"--site",
                           os.fsencode(conf), b"--nodes", b"2", b"--",
                           v.script] + v.args, cwd=d)
        jobs = []
        for v, p in self.map(gen, vs):
            what = "container vector %d (%s)" % (v.i, v.runtime)
            if v.refused():
                self.check(p.returncode == 3 and b"begins with '-'" in
                           p.stderr, "%s: image %r not refused: %r" %
                           (what, v.image, p.stderr[:300]))
                continue
            if not self.check(p.returncode == 0 and p.stderr == b"",
                              "%s: ddpgen exit %d: %r" %
                              (what, p.returncode, p.stderr[:300])):
                continue
            with open(os.path.join(d, "job.%d.sh" % v.i), "wb") as f:
                f.write(p.stdout)
            jobs.append(v)
        driver = os.path.join(d, "driver.sh")
        with open(driver, "w") as f:
            f.write(r'''
d=$1; shift
SLURM_NNODES=2
export SLURM_NNODES
# The script's polls at once rather than each second, as run_sh's.
sleep() { command sleep 0.01; }
# srun as run_sh's, recording its --container-* options in $REC.srun.
srun() {
	: >"$REC.srun"
	while [ $# -gt 0 ]; do
		case $1 in
		--container-*) printf '%s\0' "$1" >>"$REC.srun"; shift ;;
		-N|-n) shift 2 ;;
		--*) shift ;;
		*) break ;;
		esac
	done
	if [ "$1" = /bin/bash ] && [ "$2" = -c ]; then
		(code=$3; shift 4; eval "$code")
	else
		"$@"
	fi
}
module() { :; }
for i; do
	REC=$d/rec.$i
	export REC
	(. "$d/job.$i.sh") </dev/null >"$d/log.$i" 2>&1
	echo "$i $?"
done
''')
        self.execute_chunks(jobs, d, driver, "bash")
        for v in jobs:
            if not getattr(v, "failed", False):
                self.compare_container(v, d, standin)
        print("containers: %d jobs, %d refused as they must be" %
              (len(jobs), sum(1 for v in vs if v.refused())), flush=True)

    def compare_container(self, v, d, standin):
        what = "container vector %d (%s)" % (v.i, v.runtime)
        rec = read(os.path.join(d, "rec.%d" % v.i)).split(b"\0")
        n = int(rec[0])
        got = rec[1:1 + n]
        srun = read(os.path.join(d, "rec.%d.srun" % v.i)).split(b"\0")[:-1]
        want, want_srun = v.want(standin)
        if None in want:
            # podman-hpc: "-e NAME" pairs, ddprank's variables among them.
            at = want.index(None)
            end = at
            while end + 1 < len(got) and got[end] == b"-e":
                end += 2
            names = got[at + 1:end:2]
            self.check(b"PET_NODE_RANK" in names and b"MASTER_ADDR" in
                       names and all(re.fullmatch(NAME, x) for x in names),
                       "%s: -e names %r" % (what, names))
            want = want[:at] + got[at:end] + want[at + 1:]
        self.check(got == want, "%s: runtime argv differs:\n  want %r\n"
                   "  got  %r" % (what, want, got))
        self.check(srun == want_srun, "%s: srun container options %r, want "
                   "%r" % (what, srun, want_srun))
        if v.runtime == "shifter":
            text = read(os.path.join(d, "job.%d.sh" % v.i))
            args = [a for ln in text.split(b"\n")
                    if ln.startswith(b"#SBATCH")
                    for a in self.sbatch_model(ln[len(b"#SBATCH"):])]
            self.check([a for a in args if a.startswith(b"--image=")] ==
                       [b"--image=" + v.image], "%s: #SBATCH --image "
                       "parses as %r" % (what, args))

    def ddprank_env(self, rng, n):
        d = os.path.join(self.work, "env")
        os.makedirs(d, exist_ok=True)
        me = socket.gethostname().encode()
        short = me.split(b".")[0]
        cases = []
        for i in range(n):
            names = set()
            while len(names) < rng.randint(1, 6):
                # Blanks, # and : (MPICH's host:N) are hostfile syntax.
                h = bytes(c for c in rand_bytes(rng, 40, 1)
                          if c not in b" \t\r\n#:")
                if h and h.split(b".")[0] != short:
                    names.add(h)
            names = sorted(names)
            rng.shuffle(names)
            pos = rng.randint(1, len(names))
            hosts = names[:pos] + [me] + names[pos:]
            addr = rand_bytes(rng, 64, 1)
            if rng.random() < 0.5:
                addr = bytes(c for c in addr if c >= 32 and c != 127) or b"m"
            if i < len(EXPLOITS):
                addr = EXPLOITS[i]
            with open(os.path.join(d, "hosts.%d" % i), "wb") as f:
                f.write(b"".join(h + b"\n" for h in hosts))
            cases.append((i, hosts, pos, addr))

        def one(c):
            i, hosts, pos, addr = c
            env = dict(os.environ)
            env = {k: v for k, v in env.items()
                   if not re.match(r"(SLURM|SLURMD|CCP|PBS|LSB)_", k)}
            env = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
            env[b"MASTER_ADDR"] = addr
            hf = os.path.join(d, "hosts.%d" % i)
            p = run([self.a.ddprank, "env", "--hostfile", hf, "--port",
                     "29500"], env=env, cwd=d)
            extra = None
            if i % 10 == 0:
                extra = (run([self.a.ddprank, "env", "--hostfile", hf,
                              "--port", "29500", "--format", "json"],
                             env=env, cwd=d),
                         run([self.a.ddprank, "hosts", "--hostfile", hf],
                             env=env, cwd=d))
            return c, p, extra
        ok = []
        for c, p, extra in self.map(one, cases):
            i, hosts, pos, addr = c
            if not self.check(p.returncode == 0 and p.stderr == b"",
                              "env case %d: ddprank exit %d: %r" %
                              (i, p.returncode, p.stderr[:300])):
                continue
            with open(os.path.join(d, "env.%d" % i), "wb") as f:
                f.write(p.stdout)
            ok.append(c)
            if extra is None:
                continue
            j, h = extra
            obj = json.loads(j.stdout.decode("utf-8", "surrogateescape"))
            self.check(obj["MASTER_ADDR"].encode("utf-8", "surrogateescape")
                       == addr and obj["NODE_RANK"] == pos and
                       obj["NNODES"] == len(hosts),
                       "env case %d: JSON %r" % (i, j.stdout[:200]))
            self.check(h.stdout == b"".join(x + b"\n" for x in hosts),
                       "env case %d: hosts %r" % (i, h.stdout[:200]))
        drv = os.path.join(d, "eval.sh")
        with open(drv, "w") as f:
            f.write('d=$1; sh=$2; shift 2\nfor i; do\n'
                    '\t(. "$d/env.$i"; printf "%s\\0" "$NODE_RANK" '
                    '"$NNODES" "$MASTER_ADDR" "$MASTER_PORT") '
                    '>"$d/$sh.$i" 2>&1\ndone\n')
        for sh in ("bash", "sh"):
            chunks = [ok[k::self.a.jobs * 2] for k in range(self.a.jobs * 2)]
            self.map(lambda ch: run([sh, drv, d, sh] +
                                    [str(c[0]) for c in ch], cwd=d),
                     [ch for ch in chunks if ch])
        for i, hosts, pos, addr in ok:
            for sh in ("bash", "sh"):
                got = read(os.path.join(d, "%s.%d" % (sh, i)))
                want = b"%d\0%d\0%s\0%d\0" % (pos, len(hosts), addr, 29500)
                self.check(got == want, "env case %d through %s's eval: got "
                           "%r, want %r" % (i, sh, got[:200], want[:200]))
        print("ddprank env: %d cases through eval in bash and sh (%d values "
              "with control bytes)" %
              (len(ok), sum(1 for c in ok if has_ctrl(c[3]))), flush=True)


# --- containers ------------------------------------------------------------

RUNTIMES = ["shifter", "podman-hpc", "apptainer", "pyxis", "charliecloud"]


def no_ctrl(b):
    return bytes(c for c in b if c >= 32 and c != 127)


def cfg_string(b):
    """b as a libconfuse double-quoted string."""
    return b'"' + b.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


class Container:
    """A job in a container: a profile with hostile image and mounts."""

    def __init__(self, rng, i):
        self.i = i
        self.runtime = rng.choice(RUNTIMES)
        self.image = no_ctrl(rand_bytes(rng, 48, 1)) or b"img"
        self.mounts = []
        for _ in range(rng.randint(0, 3)):
            m = b"/" + no_ctrl(rand_bytes(rng, 24)).replace(
                b",", b"").replace(b":", b"")
            if rng.random() < 0.5:
                m += b":/" + no_ctrl(rand_bytes(rng, 24)).replace(
                    b",", b"").replace(b":", b"")
            self.mounts.append(m)
        self.args = [rand_bytes(rng) for _ in range(rng.randint(0, 4))]
        self.script = b"/scratch/my dir/train.py"

    def profile(self):
        lines = [b'extends = "slurm"', b'description = "quote property"',
                 b"container = " + self.runtime.encode(),
                 b"image = " + cfg_string(self.image)]
        if self.mounts:
            lines.append(b"container_mounts = {" + b", ".join(
                cfg_string(m) for m in self.mounts) + b"}")
        return b"\n".join(lines) + b"\n"

    def full_mounts(self):
        return [m if b":" in m else m + b":" + m for m in self.mounts]

    def refused(self):
        return self.image.startswith(b"-")

    def want(self, ddprank):
        """The words after ddprank's "--", and srun's container options;
        podman-hpc's -e pairs are checked apart (None stands for them)."""
        rt, ms = self.runtime, self.full_mounts()
        launch = [b"torchrun", b"--nproc_per_node=1", self.script] + self.args
        if rt == "shifter":
            return [b"shifter"] + [b"--volume=" + m for m in ms] + launch, []
        if rt == "podman-hpc":
            return ([b"podman-hpc", b"run", b"--rm", b"--net", b"host", None]
                    + [w for m in ms for w in (b"-v", m)] + [self.image]
                    + launch, [])
        if rt == "apptainer":
            return ([b"apptainer", b"exec"] + [w for m in ms
                    for w in (b"--bind", m)] + [self.image] + launch, [])
        if rt == "charliecloud":
            return ([b"ch-run"] + [w for m in ms for w in (b"-b", m)] +
                    [self.image, b"--"] + launch, [])
        d = os.path.dirname(ddprank)
        return launch, [b"--container-image=" + self.image,
                        b"--container-mounts=" + b",".join(
                            [d + b":" + d + b":ro"] + ms)]


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b"<missing>"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ddpgen", required=True)
    ap.add_argument("--ddprank", required=True)
    ap.add_argument("--standin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sbatch", action="store_true")
    a = ap.parse_args()
    print("seed %d, %d vectors" % (a.seed, a.n), flush=True)
    rng = random.Random(a.seed)
    vectors = [Vector(rng, i) for i in range(a.n)]
    c = Checker(a)
    t0 = time.time()
    jobs, d = c.generate(vectors, xml=False)
    c.run_sh(jobs, d)
    c.check_sbatch(jobs, d)
    print("sh: done in %.0f s" % (time.time() - t0), flush=True)
    t0 = time.time()
    jobs, d = c.generate(vectors, xml=True)
    c.run_xml(jobs, d)
    print("xml: done in %.0f s" % (time.time() - t0), flush=True)
    t0 = time.time()
    c.containers(rng, a.n // 20)
    print("containers: done in %.0f s" % (time.time() - t0), flush=True)
    t0 = time.time()
    c.ddprank_env(rng, a.n // 2)
    print("env: done in %.0f s" % (time.time() - t0), flush=True)
    for root, dirs, files in os.walk(a.work):
        for f in files:
            c.check("pwned" not in f, "%s/%s: an argument ran as code" %
                    (root, f))
    for kind, n in sorted(c.kinds.items(), key=lambda x: -x[1]):
        print("%6d failures: %s..." % (n, kind))
    print("%d checks, %d failures" % (c.checks, c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
