#!/usr/bin/env python3
"""flux-standin.py: the flux command, as far as a generated Flux job and
ddprank use it, for test/t-flux-emulate.sh. Installed as "flux" on PATH.

No Flux is packaged for Debian; this plays one batch job's instance on
the network-namespace nodes of test/cluster. What it copies from Flux is
data, taken from flux-core (github.com/flux-framework/flux-core, commit
4a5e79f, 2026-08-18):

- the options of flux run and their arguments: the ".. option::" lines
  of doc/man1/flux-run.rst and the doc/man1/common/*.rst files it
  includes (RUN_OPTS below); option processing stops at the first
  non-option, after which COMMAND and its arguments are passed verbatim
  (job-other-options.rst; src/shell/task.c appends argv untouched);
- the task environment: FLUX_JOB_ID (F58), FLUX_JOB_ID_PATH,
  FLUX_JOB_SIZE, FLUX_JOB_NNODES, FLUX_TASK_RANK, FLUX_TASK_LOCAL_ID,
  FLUX_JOB_TMPDIR, FLUX_URI, FLUX_KVS_NAMESPACE, FLUX_ENCLOSING_ID
  (doc/man7/flux-environment.rst, src/shell/shell.c and task.c); tasks
  get the environment flux run was given, as "flux run duplicates the
  current environment" (flux-run.rst);
- each task is a process group of its own (libsubprocess: SETPGRP unless
  NO_SETPGRP), and is signalled as one;
- -o exit-on-error: a fatal exception as soon as the first task to exit
  failed; otherwise exit-timeout=30s after the first task exits
  (doc/man7/flux-shell-options.rst); on the exception the tasks get
  SIGTERM, then SIGKILL;
- -l/--label-io: "RANK: " before each line of a task's output;
- flux job info [--original] [--base] ID KEY, KEY R: the job's resource
  set, RFC 20 (rfc/spec_20.rst): version 1, execution.R_lite and
  execution.nodelist (one RFC 29 hostlist), nslots, starttime,
  expiration; flux-job.rst;
- flux resource list [-s STATES] [-n] [-o FORMAT], FORMAT {nnodes}
  (flux-resource.rst, flux-environment.rst's example);
- flux [-p|--parent] batch [OPTIONS] SCRIPT: a submission to the
  enclosing instance (flux.rst), recorded with the environment it would
  carry (flux batch duplicates the current environment) for the harness
  to run; prints the new job id in F58.

Knobs of the harness, not of Flux: FLUXEMU_DIR (its state: job ids,
R files, task pids, submissions), FLUXEMU_NODES (the batch job's nodes,
"node1 node2"), FLUXEMU_NETNS (the prefix of their namespaces),
FLUXEMU_HOSTS (the hosts file each node sees), FLUXEMU_BINDS_<node>
("SRC:DST ..." bind mounts in that node's tasks), FLUXEMU_BATCH_ID.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

# Options of flux run: True when the option takes an argument. From the
# ".. option::" lines of flux-run.rst and the common/*.rst it includes.
RUN_OPTS = {
    "-N": True, "--nodes": True, "-x": False, "--exclusive": False,
    "-n": True, "--ntasks": True, "-c": True, "--cores-per-task": True,
    "-g": True, "--gpus-per-task": True, "--cores": True,
    "--tasks-per-node": True, "--gpus-per-node": True,
    "--tasks-per-core": True, "-q": True, "--queue": True, "-B": True,
    "--bank": True, "-t": True, "--time-limit": True, "--job-name": True,
    "--flags": True, "--input": True, "--output": True, "--error": True,
    "-u": False, "--unbuffered": False, "-l": False, "--label-io": False,
    "--requires": True, "--dependency": True, "--env": True,
    "--env-remove": True, "--env-file": True, "--rlimit": True,
    "--cwd": True, "--urgency": True, "-v": False, "--verbose": False,
    "-o": True, "--setopt": True, "-S": True, "--setattr": True,
    "--add-file": True, "--begin-time": True, "--signal": True,
    "--dry-run": False, "--debug": False, "--taskmap": True, "--cc": True,
    "--bcc": True, "--quiet": False, "--log": True, "--log-stderr": True,
    "--wait": False, "--wait-event": True, "--watch": False,
    "--progress": False, "--jps": False, "--define": True,
    "--shuffle": False, "--sep": True,
}

# Set by Flux for the initial program or a task; cleared by the broker
# for the initial program (flux-environment.rst).
UNSET_FOR_BATCH = ("FLUX_JOB_ID", "FLUX_JOB_SIZE", "FLUX_JOB_NNODES",
                   "FLUX_JOB_TMPDIR", "FLUX_TASK_RANK", "FLUX_TASK_LOCAL_ID",
                   "FLUX_KVS_NAMESPACE")


def die(msg, rc=1):
    sys.stderr.write(msg + "\n")
    sys.exit(rc)


def f58(n):
    s = ""
    while True:
        s = B58[n % 58] + s
        n //= 58
        if n == 0:
            return "\u0192" + s


def emu(*parts):
    return os.path.join(os.environ["FLUXEMU_DIR"], *parts)


def new_id():
    """A job id, unique in FLUXEMU_DIR, in F58."""
    path = emu("next-id")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+") as f:
        import fcntl
        fcntl.flock(f, fcntl.LOCK_EX)
        n = int(f.read() or "1000000")
        f.seek(0)
        f.write(str(n + 1))
        f.truncate()
    return f58(n)


def parse_run(argv):
    """flux run's options up to the first non-option, and the command."""
    opts = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        name, eq, val = a.partition("=")
        if name.startswith("--"):
            if name not in RUN_OPTS:
                die(f"flux-run: error: unrecognized arguments: {a}", 2)
            if RUN_OPTS[name] and not eq:
                i += 1
                if i >= len(argv):
                    die(f"flux-run: error: argument {name}: expected one "
                        "argument", 2)
                val = argv[i]
            opts.append((name, val))
        else:
            name = a[:2]
            if name not in RUN_OPTS:
                die(f"flux-run: error: unrecognized arguments: {a}", 2)
            val = a[2:]
            if RUN_OPTS[name] and not val:
                i += 1
                if i >= len(argv):
                    die(f"flux-run: error: argument {name}: expected one "
                        "argument", 2)
                val = argv[i]
            opts.append((name, val))
        i += 1
    if i >= len(argv):
        die("flux-run: error: job command and arguments are missing", 2)
    return opts, argv[i:]


def r_of(nodes, ncores=4):
    return {
        "version": 1,
        "execution": {
            "R_lite": [{"rank": f"0-{len(nodes) - 1}" if len(nodes) > 1
                        else "0", "children": {"core": f"0-{ncores - 1}"}}],
            "nodelist": [",".join(nodes)],
            "nslots": len(nodes),
            "starttime": time.time(),
            "expiration": 0.0,
        },
    }


class Task:
    def __init__(self, rank, node, proc):
        self.rank, self.node, self.proc = rank, node, proc
        self.status = None


def start_task(rank, node, cmd, env, label):
    """The task on node, in its namespace, a process group of its own."""
    binds = os.environ.get(f"FLUXEMU_BINDS_{node}", "")
    wrap = ["nsenter", f"--net=/run/netns/{os.environ['FLUXEMU_NETNS']}"
            f"{node}", "unshare", "--uts", "--mount", "sh", "-c",
            'hostname "$1" && mount --bind "$2" /etc/hosts || exit\n'
            'for b in $3; do mount --bind "${b%%:*}" "${b#*:}" || exit; '
            'done\nshift 3 && exec "$@"', "sh", node,
            os.environ["FLUXEMU_HOSTS"], binds]
    proc = subprocess.Popen(wrap + cmd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    lock = threading.Lock()

    def pump(src, dst):
        for line in iter(src.readline, b""):
            with lock:
                if label:
                    dst.buffer.write(f"{rank}: ".encode())
                dst.buffer.write(line)
                dst.flush()

    for src, dst in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
        threading.Thread(target=pump, args=(src, dst), daemon=True).start()
    return Task(rank, node, proc)


def kill_all(tasks):
    for t in tasks:
        if t.status is None:
            try:
                os.killpg(t.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    end = time.time() + 5
    while time.time() < end and any(t.proc.poll() is None for t in tasks):
        time.sleep(0.1)
    for t in tasks:
        if t.proc.poll() is None:
            try:
                os.killpg(t.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def status_of(rc):
    return 128 - rc if rc < 0 else rc


def cmd_run(argv):
    opts, cmd = parse_run(argv)
    all_nodes = os.environ["FLUXEMU_NODES"].split()
    nnodes, per_node, label, setopts = len(all_nodes), 1, False, []
    for name, val in opts:
        if name in ("-N", "--nodes"):
            nnodes = int(val)
        elif name == "--tasks-per-node":
            per_node = int(val)
        elif name in ("-l", "--label-io"):
            label = True
        elif name in ("-o", "--setopt"):
            setopts.append(val)
    if nnodes < 1 or nnodes > len(all_nodes):
        die(f"flux-run: ERROR: unsatisfiable request: {nnodes} nodes", 1)
    if per_node != 1:
        die("flux-standin: only --tasks-per-node=1 is played", 1)
    nodes = all_nodes[:nnodes]
    jobid = new_id()
    with open(emu("jobs", jobid + ".R"), "w") as f:
        json.dump(r_of(nodes), f, separators=(",", ":"))
    batch = os.environ.get("FLUXEMU_BATCH_ID", "")
    tasks = []
    os.makedirs(emu("tasks", jobid))
    for rank, node in enumerate(nodes):
        env = dict(os.environ)
        env.update({
            "FLUX_JOB_ID": jobid, "FLUX_JOB_ID_PATH": f"/{batch}/{jobid}",
            "FLUX_JOB_SIZE": str(nnodes), "FLUX_JOB_NNODES": str(nnodes),
            "FLUX_TASK_RANK": str(rank), "FLUX_TASK_LOCAL_ID": "0",
            "FLUX_JOB_TMPDIR": tempfile.mkdtemp(prefix=f"jobtmp-{node}-",
                                                dir=emu()),
            "FLUX_URI": f"local://{emu()}/{node}/local",
            "FLUX_KVS_NAMESPACE": f"job-{jobid}",
            "FLUX_ENCLOSING_ID": batch,
        })
        t = start_task(rank, node, cmd, env, label)
        tasks.append(t)
        with open(emu("tasks", jobid, node + ".pid"), "w") as f:
            f.write(str(t.proc.pid))
    exit_on_error = "exit-on-error" in setopts
    first_exit = None
    while any(t.status is None for t in tasks):
        for t in tasks:
            if t.status is None and t.proc.poll() is not None:
                t.status = status_of(t.proc.returncode)
                if first_exit is None:
                    first_exit = time.time()
                    if exit_on_error and t.status != 0:
                        sys.stderr.write(f"flux-job: task {t.rank} "
                                         f"({t.node}) exited with status "
                                         f"{t.status}: exit-on-error\n")
                        kill_all(tasks)
        if first_exit is not None and time.time() - first_exit > 30:
            sys.stderr.write("flux-job: exit-timeout (30s) expired\n")
            kill_all(tasks)
        time.sleep(0.05)
    for t in tasks:
        t.status = status_of(t.proc.returncode)
    import shutil
    shutil.rmtree(emu("tasks", jobid))
    time.sleep(0.2)		# the pumps' last lines
    return max(t.status for t in tasks)


def cmd_job(argv):
    args = [a for a in argv if a not in ("-o", "--original", "-b", "--base")]
    if len(args) != 3 or args[0] != "info":
        die("flux-standin: only 'flux job info [--original] [--base] ID KEY' "
            "is played", 1)
    jobid, key = args[1], args[2]
    try:
        with open(emu("jobs", jobid + "." + key)) as f:
            sys.stdout.write(f.read() + "\n")
    except FileNotFoundError:
        die(f"flux-job: {jobid}: No such file or directory", 1)
    return 0


def cmd_resource(argv):
    if not argv or argv[0] != "list":
        die("flux-standin: only 'flux resource list' is played", 1)
    fmt, header, i = None, True, 1
    while i < len(argv):
        a = argv[i]
        if a in ("-s", "--states", "-o", "--format"):
            i += 1
            if a in ("-o", "--format"):
                fmt = argv[i]
        elif a.startswith("--states=") or a.startswith("-s"):
            pass
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        elif a.startswith("-o"):
            fmt = a[2:]
        elif a in ("-n", "--no-header"):
            header = False
        else:
            die(f"flux-resource: error: unrecognized arguments: {a}", 2)
        i += 1
    if fmt != "{nnodes}":
        die("flux-standin: only -o {nnodes} is played", 1)
    if header:
        print("NNODES")
    print(len(os.environ["FLUXEMU_NODES"].split()))
    return 0


def cmd_batch(argv, parent):
    """Records a submission for the harness; prints its job id."""
    if not parent:
        die("flux-standin: a batch job submits to the enclosing instance "
            "only with --parent", 1)
    script = argv[-1]
    jobid = new_id()
    d = emu("submitted", jobid)
    os.makedirs(d)
    with open(os.path.join(d, "args"), "w") as f:
        json.dump(argv[:-1], f, ensure_ascii=False)
    with open(script, "rb") as src, open(os.path.join(d, "script"),
                                         "wb") as dst:
        dst.write(src.read())
    env = {k: v for k, v in os.environ.items()}
    with open(os.path.join(d, "env"), "w") as f:
        json.dump(env, f)
    print(jobid)
    return 0


# RFC 36 directives as flux batch reads them: the sentinel's pattern and
# the shlex settings of src/bindings/python/flux/job/directives.py.
DIRECTIVE = r"^([^\w]*)((?:flux|FLUX):)(.*)$"


def directives(path):
    """The arguments of the script's #flux: lines, in order."""
    import re
    import shlex
    args = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = re.match(DIRECTIVE, line.rstrip("\n"))
            if not m:
                continue
            lexer = shlex.shlex(m.group(3), posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            lexer.escapedquotes = "\"'"
            args.extend(lexer)
    return args


def batch_opts(args):
    """The batch options the generated scripts use, by flux-batch.rst."""
    o = {"nodes": None, "name": None, "output": "flux-{{id}}.out",
         "signal": None, "mode": "truncate", "time": None}
    takes = {"-N": "nodes", "--nodes": "nodes", "--job-name": "name",
             "--output": "output", "--signal": "signal", "-t": "time",
             "--time-limit": "time", "-q": None, "--queue": None,
             "-B": None, "--bank": None, "--requires": None, "-o": "setopt",
             "--setopt": "setopt"}
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, val = a.partition("=")
        if name in ("-x", "--exclusive"):
            i += 1
            continue
        if name not in takes:
            die(f"flux-batch: error: unrecognized arguments: {a}", 2)
        if not eq:
            i += 1
            val = args[i]
        key = takes[name]
        if key == "setopt":
            if val == "output.mode=append":
                o["mode"] = "append"
        elif key is not None:
            o[key] = val
        i += 1
    return o


def running_tasks():
    """The process groups of the tasks of the jobs still running."""
    pids = []
    root = emu("tasks")
    for job in os.listdir(root):
        for f in os.listdir(os.path.join(root, job)):
            with open(os.path.join(root, job, f)) as fp:
                pids.append(int(fp.read()))
    return pids


def deliver(signo, batch_pgid):
    """--signal: to the batch script (it shares the broker's process
    group) and to every running job (flux-batch.rst's note)."""
    for pgid in [batch_pgid] + running_tasks():
        try:
            os.killpg(pgid, signo)
        except ProcessLookupError:
            pass


def emulate_batch(envfile, script):
    """Runs script as flux batch's job would on the first node: the
    initial program's environment (the submitter's, less what the broker
    unsets, with FLUX_URI and FLUX_ENCLOSING_ID), its directives applied
    to the output file and the warning signal; the warning is sent when
    the harness creates FLUXEMU_DIR/signal-BATCHID (Flux's timer)."""
    with open(envfile) as f:
        env = json.load(f)
    for k in UNSET_FOR_BATCH:
        env.pop(k, None)
    o = batch_opts(directives(script))
    jobid = os.environ["FLUXEMU_BATCH_ID"]
    first = os.environ["FLUXEMU_NODES"].split()[0]
    env.update({"FLUX_URI": f"local://{emu()}/{first}/local",
                "FLUX_ENCLOSING_ID": jobid, "FLUXEMU_BATCH_ID": jobid})
    for k in [k for k in os.environ if k.startswith("FLUXEMU_")]:
        env[k] = os.environ[k]
    tmp = tempfile.mkdtemp(prefix="batch-", dir=emu())
    copy = os.path.join(tmp, "script")
    with open(script, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    os.chmod(copy, 0o700)
    out = o["output"].replace("{{id}}", jobid).replace("{{name}}",
                                                         o["name"] or "")
    fd = open(out, "ab" if o["mode"] == "append" else "wb")
    proc = subprocess.Popen(
        ["nsenter", f"--net=/run/netns/{os.environ['FLUXEMU_NETNS']}{first}",
         "unshare", "--uts", "--mount", "sh", "-c",
         'hostname "$1" && mount --bind "$2" /etc/hosts || exit\n'
         'shift 2 && exec "$@"', "sh", first, os.environ["FLUXEMU_HOSTS"],
         copy], env=env, stdin=subprocess.DEVNULL, stdout=fd,
        stderr=subprocess.STDOUT, start_new_session=True)
    trigger = emu("signal-" + jobid)
    sent = False

    def expire(signo, frame):
        """The harness's time limit: the job and its runs are killed."""
        deliver(signal.SIGKILL, proc.pid)
        sys.exit(124)

    signal.signal(signal.SIGTERM, expire)
    while proc.poll() is None:
        if o["signal"] and not sent and os.path.exists(trigger):
            name = o["signal"].split("@")[0] or "USR1"
            deliver(getattr(signal, "SIG" + name.removeprefix("SIG")),
                    proc.pid)
            sent = True
        time.sleep(0.1)
    print(out)
    return status_of(proc.returncode)


def main(argv):
    if argv[:1] == ["--emulate-batch"]:
        return emulate_batch(argv[1], argv[2])
    parent = False
    while argv and argv[0] in ("-p", "--parent"):
        parent = True
        argv = argv[1:]
    if not argv:
        die("usage: flux [-p] run|job|resource|batch ...", 2)
    sub, rest = argv[0], argv[1:]
    if sub == "run":
        return cmd_run(rest)
    if sub == "job":
        return cmd_job(rest)
    if sub == "resource":
        return cmd_resource(rest)
    if sub == "batch":
        return cmd_batch(rest, parent)
    die(f"flux: '{sub}' is not played by the stand-in", 1)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
