#!/usr/bin/python3
"""runtime.py: stand-ins for the container runtimes this machine lacks,
for t-e2e-runtimes.sh. Called by the name of the runtime (a link named
shifter, podman-hpc or apptainer, or "srun" for Pyxis's options), each
parses its command line by the real tool's grammar, copied below as data
from its documentation, refuses what the tool would refuse, builds the
environment the tool would give the command, records both as one JSON
line in $DDPTEST_STANDIN_LOG, and executes the command. No container is
made: what is checked is the command line and what crosses into it."""

import json
import os
import sys

# --- the grammars (option: takes a value) --------------------------------------

# shifter.readthedocs.io, "shifter command" (Shifter 18.03), read
# 2026-12: -i|--image, -V|--volume, -h|--help, -v|--verbose; NERSC's
# "How to use Shifter" (read 2026-12) adds --module=NAME[,NAME] and
# --env=NAME=VALUE. Image precedence: SHIFTER, then SHIFTER_IMAGE and
# SHIFTER_IMAGETYPE, then SLURM_SPANK_SHIFTER_IMAGE(TYPE), then --image.
SHIFTER = {"-i": True, "--image": True, "-V": True, "--volume": True,
           "-h": False, "--help": False, "-v": False, "--verbose": False,
           "-m": True, "--module": True, "-e": True, "--env": True}

# podman-run(1), podman 4.3 (Debian 12), read 2026-12: the options a
# podman-hpc run line uses; NERSC's podman-hpc README and "Podman at
# NERSC" (read 2026-12): the modules --gpu, --nccl, --mpi, --cuda-mpi,
# --openmpi-pmi2, --openmpi-pmix are options without values. "-e NAME"
# without "=" copies NAME from podman's environment only when it is set.
PODMAN = {"--rm": False, "-d": False, "--detach": False, "-i": False,
          "--interactive": False, "-t": False, "--tty": False,
          "--net": True, "--network": True, "-e": True, "--env": True,
          "--env-file": True, "-v": True, "--volume": True,
          "--mount": True, "-w": True, "--workdir": True, "--shm-size": True,
          "--ipc": True, "--pid": True, "--userns": True, "-u": True,
          "--user": True, "--name": True, "--entrypoint": True,
          "--gpu": False, "--nccl": False, "--mpi": False,
          "--cuda-mpi": False, "--openmpi-pmi2": False,
          "--openmpi-pmix": False}

# apptainer-exec(1), Apptainer 1.2 (apptainer.org user guide, "apptainer
# exec", read 2026-12): the options a job line uses. The host
# environment passes unless --cleanenv; --bind takes src[:dest[:opts]]
# items, comma-separated.
APPTAINER = {"--nv": False, "--rocm": False, "-B": True, "--bind": True,
             "--mount": True, "-e": False, "--cleanenv": False,
             "--env": True, "--env-file": True, "--pwd": True,
             "-C": False, "--containall": False, "-c": False,
             "--contain": False, "--no-home": False, "-H": True,
             "--home": True, "--writable-tmpfs": False, "-w": False,
             "--writable": False, "--fakeroot": False}

# NVIDIA/pyxis wiki, "Usage" (pyxis 0.20, read 2026-12): srun options.
# --container-mounts=SRC:DST[:FLAGS][,SRC:DST...], flags joined by "+".
PYXIS = {"--container-image": True, "--container-mounts": True,
         "--container-workdir": True, "--container-name": True,
         "--container-save": True, "--container-mount-home": False,
         "--no-container-mount-home": False,
         "--container-remap-root": False,
         "--no-container-remap-root": False,
         "--container-entrypoint": False,
         "--no-container-entrypoint": False,
         "--container-writable": False, "--container-readonly": False,
         "--container-env": True}


def die(msg, code=125):
    sys.stderr.write("%s: %s\n" % (os.path.basename(sys.argv[0]), msg))
    sys.exit(code)


def parse(argv, grammar, stop_at_operand=True):
    """Options before the first operand: [(name, value)], rest."""
    opts = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return opts, argv[i + 1:]
        if not a.startswith("-") or a == "-":
            break
        name, eq, val = a.partition("=")
        if name not in grammar:
            die("unknown flag: %s" % name)
        if grammar[name]:
            if not eq:
                i += 1
                if i >= len(argv):
                    die("flag needs an argument: %s" % name)
                val = argv[i]
        elif eq:
            die("flag takes no argument: %s" % name)
        opts.append((name, val))
        i += 1
    return opts, argv[i:]


def values(opts, *names):
    return [v for n, v in opts if n in names]


def check_mount(spec, what):
    src, _, rest = spec.partition(":")
    dst = rest.partition(":")[0] or src
    if not src.startswith("/") or not dst.startswith("/"):
        die("%s: not absolute: %r" % (what, spec))
    if not os.path.exists(src):
        die("%s: no such source: %r" % (what, src))


def record(kind, argv, image, command, env):
    path = os.environ.get("DDPTEST_STANDIN_LOG")
    if path:
        line = json.dumps({"runtime": kind, "argv": argv, "image": image,
                           "command": command, "env": sorted(env),
                           "host": os.uname().nodename})
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def run(command, env):
    if not command:
        die("no command")
    os.execvpe(command[0], command, env)


def shifter(argv):
    opts, command = parse(argv, SHIFTER)
    env = dict(os.environ)
    image = (env.get("SHIFTER") or env.get("SHIFTER_IMAGE")
             or env.get("SLURM_SPANK_SHIFTER_IMAGE")
             or (values(opts, "-i", "--image") or [None])[-1])
    if not image:
        die("no image: #SBATCH --image, or --image")
    for v in values(opts, "-V", "--volume"):
        for spec in v.split(";"):
            check_mount(spec, "--volume")
    record("shifter", argv, image, command, env)
    run(command, env)


def podman_hpc(argv):
    if not argv or argv[0] != "run":
        die("only 'run' is stood in for")
    opts, rest = parse(argv[1:], PODMAN)
    if not rest:
        die("no image")
    image, command = rest[0], rest[1:]
    # The image's environment, then -e: nothing else crosses.
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                   "/sbin:/bin", "container": "podman",
           "HOSTNAME": os.uname().nodename, "HOME": "/root"}
    for v in values(opts, "-e", "--env"):
        name, eq, val = v.partition("=")
        if eq:
            env[name] = val
        elif name in os.environ:
            env[name] = os.environ[name]
    for v in values(opts, "-v", "--volume"):
        check_mount(v, "--volume")
    record("podman-hpc", argv, image, command, env)
    # The image's working directory: the command's paths must not be
    # relative to where podman ran.
    os.chdir(values(opts, "-w", "--workdir")[-1:] and
             values(opts, "-w", "--workdir")[-1] or "/")
    run(command, env)


def apptainer(argv):
    if not argv or argv[0] != "exec":
        die("only 'exec' is stood in for")
    opts, rest = parse(argv[1:], APPTAINER)
    if not rest:
        die("no image")
    image, command = rest[0], rest[1:]
    env = {} if values(opts, "-e", "--cleanenv") else dict(os.environ)
    env["APPTAINER_CONTAINER"] = image
    for v in values(opts, "-B", "--bind"):
        for spec in v.split(","):
            check_mount(spec, "--bind")
    record("apptainer", argv, image, command, env)
    run(command, env)


def srun(argv):
    """Pyxis's options out of srun's, the rest to the real srun, which
    starts this file again as "pyxis-task" around the command."""
    real = os.environ["DDPTEST_REAL_SRUN"]
    keep, pyx = [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-"):
            break
        name = a.partition("=")[0]
        if name.startswith("--container") or name.startswith(
                "--no-container"):
            if name not in PYXIS:
                die("unrecognized option '%s'" % a, 1)
            if PYXIS[name] and "=" not in a:
                die("option '%s' requires an argument" % name, 1)
            pyx.append(a)
        else:
            keep.append(a)
        i += 1
    command = argv[i:]
    if not pyx:
        os.execv(real, [real] + keep + command)
    task = [sys.executable, os.path.realpath(__file__), "pyxis-task"]
    os.execv(real, [real] + keep + task + pyx + ["--"] + command)


def pyxis_task(argv):
    opts, command = parse(argv, PYXIS)
    image = (values(opts, "--container-image") or [None])[-1]
    if not image:
        die("no --container-image")
    mounts = []
    for v in values(opts, "--container-mounts"):
        for spec in v.split(","):
            check_mount(spec, "--container-mounts")
            src, _, rest = spec.partition(":")
            dst, _, flags = rest.partition(":")
            mounts.append((dst or src, flags.split("+")))
    # ddprank (the preflight's first word; the training's after bash -c,
    # its script and $0) must come from a read-only mount.
    ddprank = command[4] if command[:2] == ["/bin/bash", "-c"] else \
        command[0]
    if not any(ddprank.startswith(d.rstrip("/") + "/") and "ro" in f
               for d, f in mounts):
        die("ddprank %r is not in a read-only mount" % ddprank)
    record("pyxis", argv, image, command, os.environ)
    run(command, dict(os.environ))


def main():
    me = os.path.basename(sys.argv[0])
    if me == "runtime.py" and len(sys.argv) > 1 and \
            sys.argv[1] == "pyxis-task":
        return pyxis_task(sys.argv[2:])
    fn = {"shifter": shifter, "podman-hpc": podman_hpc,
          "apptainer": apptainer, "srun": srun}.get(me)
    if fn is None:
        die("called as %r" % me)
    fn(sys.argv[1:])


if __name__ == "__main__":
    main()
