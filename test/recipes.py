#!/usr/bin/env python3
"""recipes.py: checks contrib/'s Spack package and EasyBuild easyconfigs
against the tree, parsing them (Python's ast) without Spack or EasyBuild.

usage: recipes.py SRCDIR CONFIGURE-HELP-FILE

Each libraries configure requires (its `need MODULE PACKAGE` lines) and
Open MPI (--with-mpi) must be a dependency of each recipe, and each
library's Debian package a Build-Depends of debian/control; the version
must be VERSION's, the checksum a placeholder of the right shape, and
every configure flag a recipe passes one that `configure --help` lists.
Prints one line per failed check and exits 1 if there was one."""

import ast
import glob
import os
import re
import sys

# pkg-config module of configure -> (Spack package, EasyBuild name).
NAMES = {
    "libconfuse": ("libconfuse", "libconfuse"),
    "libpcre2-8": ("pcre2", "PCRE2"),
    "check": ("check", "Check"),
    "libcrypto": ("openssl", "OpenSSL"),
    "hwloc": ("hwloc", "hwloc"),
    "ompi-c": ("openmpi", "OpenMPI"),
}
# EasyBuild toolchains that bring Open MPI.
MPI_TOOLCHAINS = {"gompi", "foss"}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def configure_needs(srcdir):
    """pkg-config modules configure requires, from its need lines."""
    with open(os.path.join(srcdir, "configure")) as f:
        text = f.read()
    return re.findall(r"^need (\S+) \S+$", text, re.M)


def configure_packages(srcdir):
    """Debian packages configure names for its libraries."""
    with open(os.path.join(srcdir, "configure")) as f:
        return re.findall(r"^need \S+ (\S+)$", f.read(), re.M)


def check_debian(path, packages):
    """Every library configure needs is a Build-Depends of the package."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"^Build-Depends:(.*?)^\S", text, re.M | re.S)
    deps = set(re.findall(r"([a-z0-9][a-z0-9+.-]+)", m.group(1))) if m else set()
    for pkg in packages:
        if pkg not in deps:
            fail(f"{path}: configure needs {pkg}, not a Build-Depends")


def help_flags(path):
    with open(path) as f:
        return set(re.findall(r"--[a-z][a-z0-9-]*", f.read()))


def check_flags(where, flags, known):
    for flag in flags:
        name = flag.split("=")[0]
        if name not in known:
            fail(f"{where}: configure flag {name} is not in configure --help")


def strings_in(node):
    return [n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def call_name(node):
    f = node.func
    return f.id if isinstance(f, ast.Name) else None


def check_spack(path, version, needs, known):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) != 1 or classes[0].name != "Ddpgen":
        fail(f"{path}: no class Ddpgen")
        return
    calls = [n for n in ast.walk(classes[0]) if isinstance(n, ast.Call)]
    versions = [c for c in calls if call_name(c) == "version"]
    got = [c.args[0].value for c in versions if c.args]
    if got != [version]:
        fail(f"{path}: versions {got}, want [{version}]")
    for c in versions:
        sha = {k.arg: k.value.value for k in c.keywords}.get("sha256", "")
        if not re.fullmatch(r"[0-9a-f]{64}", sha):
            fail(f"{path}: version without a sha256 (or its placeholder)")
    url = next((s.value.value for s in classes[0].body
                if isinstance(s, ast.Assign) and s.targets[0].id == "url"), "")
    if f"ddpgen-{version}.tar.gz" not in url:
        fail(f"{path}: url {url} is not of ddpgen-{version}.tar.gz")
    deps = {}
    for c in calls:
        if call_name(c) == "depends_on" and c.args:
            kw = {k.arg: k.value for k in c.keywords}
            when = kw["when"].value if "when" in kw else None
            deps[c.args[0].value] = when
    variants = [c.args[0].value for c in calls
                if call_name(c) == "variant" and c.args]
    for mod in needs:
        if NAMES.get(mod, (None,))[0] not in deps:
            fail(f"{path}: configure needs {mod}, not a dependency")
    if "mpi" not in variants:
        fail(f"{path}: no mpi variant")
    if deps.get("openmpi") != "+mpi":
        fail(f"{path}: +mpi does not depend on openmpi")
    # configure_args: its flags, and --with-mpi under +mpi.
    funcs = {n.name: n for n in ast.walk(classes[0])
             if isinstance(n, ast.FunctionDef)}
    if "configure_args" not in funcs or "edit" not in funcs:
        fail(f"{path}: no configure_args or edit")
        return
    flags = [s for s in strings_in(funcs["configure_args"]) if s.startswith("--")]
    flags += [s.split("{")[0] for n in ast.walk(funcs["configure_args"])
              if isinstance(n, ast.JoinedStr) for s in strings_in(n)
              if s.startswith("--")]
    check_flags(path, flags, known)
    if "--with-mpi" not in flags:
        fail(f"{path}: +mpi does not configure --with-mpi")
    if "./configure" not in strings_in(funcs["edit"]):
        fail(f"{path}: edit does not run ./configure")


def check_easyconfig(path, version, needs, known):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    v = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name):
            try:
                v[n.targets[0].id] = ast.literal_eval(n.value)
            except ValueError:
                v[n.targets[0].id] = None      # SOURCE_TAR_GZ and the like
    if v.get("name") != "ddpgen" or v.get("version") != version:
        fail(f"{path}: name/version {v.get('name')}/{v.get('version')}, "
             f"want ddpgen/{version}")
    tc = v.get("toolchain") or {}
    want = f"ddpgen-{version}-{tc.get('name')}-{tc.get('version')}.eb"
    if os.path.basename(path) != want:
        fail(f"{path}: file name is not {want}")
    sums = v.get("checksums") or []
    if len(sums) != 1 or not re.fullmatch(r"[0-9a-f]{64}", str(sums[0])):
        fail(f"{path}: checksums is not one sha256 (or its placeholder)")
    if v.get("easyblock") != "ConfigureMake":
        fail(f"{path}: easyblock is not ConfigureMake")
    names = {d[0] for d in (v.get("dependencies") or []) +
             (v.get("builddependencies") or [])}
    # OpenSSL comes from the system (osdependencies: one name per OS family).
    osdeps = [n for d in (v.get("osdependencies") or []) for n in
              (d if isinstance(d, tuple) else (d,))]
    if "libssl-dev" in osdeps:
        names.add("OpenSSL")
    mpi = "--with-mpi" in (v.get("configopts") or "").split()
    if mpi and tc.get("name") not in MPI_TOOLCHAINS:
        fail(f"{path}: --with-mpi without an MPI toolchain")
    for mod in needs:
        if NAMES.get(mod, (None, None))[1] not in names:
            fail(f"{path}: configure needs {mod}, not a dependency")
    check_flags(path, (v.get("configopts") or "").split(), known)
    if v.get("runtest") != "unit-check":
        fail(f"{path}: runtest is not unit-check")
    return mpi


def main():
    srcdir, helpfile = sys.argv[1], sys.argv[2]
    with open(os.path.join(srcdir, "VERSION")) as f:
        version = f.read().strip()
    needs = configure_needs(srcdir)
    if len(needs) < 3:
        fail(f"cannot read configure's libraries: {needs}")
    for mod in needs:
        if mod not in NAMES:
            fail(f"configure needs {mod}: this test and the recipes lack it")
    known = help_flags(helpfile)
    if "--prefix" not in known or "--with-mpi" not in known:
        fail(f"cannot read configure --help: {sorted(known)}")
    check_spack(os.path.join(srcdir, "contrib/spack/ddpgen/package.py"),
                version, needs, known)
    check_debian(os.path.join(srcdir, "debian/control"),
                 configure_packages(srcdir))
    ecs = sorted(glob.glob(os.path.join(srcdir, "contrib/easybuild/*.eb")))
    mpis = [check_easyconfig(p, version, needs, known) for p in ecs]
    if sorted(mpis) != [False, True]:
        fail(f"want one easyconfig without MPI and one with: {ecs}")
    print(f"{len(ecs) + 1} recipes, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
