# Spack package for ddpgen.  Copy this directory into a Spack repository
# (spack repo create; packages/ddpgen/package.py), put the sha256 of the
# release tarball in place of the placeholder, then `spack install ddpgen`
# (or `ddpgen+mpi`).  test/t-contrib.sh checks the version, dependencies
# and configure flags here against VERSION and configure.

from spack.package import *


class Ddpgen(MakefilePackage):
    """Generates multi-node PyTorch job scripts for HPC schedulers (ddpgen)
    and computes each node's rank, master address and port inside the job
    (ddprank)."""

    homepage = "https://example.org/ddpgen"
    url = "https://example.org/ddpgen/ddpgen-0.1.0.tar.gz"

    # Placeholder: replace by `sha256sum ddpgen-0.1.0.tar.gz`.
    version("0.1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant("mpi", default=False,
            description="ddprank --exchange mpi, through Open MPI")

    depends_on("c", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("libconfuse")
    depends_on("pcre2")
    depends_on("openssl")
    # ddprank's binding: the node's cores, GPUs and NICs.
    depends_on("hwloc")
    # Only the test suites (make unit-check, run by check()) link Check:
    # configure does without it.
    depends_on("check", type="test")
    depends_on("openmpi", when="+mpi")

    def configure_args(self):
        args = [f"--prefix={self.prefix}"]
        if self.spec.satisfies("+mpi"):
            args.append("--with-mpi")
        return args

    # ddpgen's configure is not autoconf's: it writes the Makefile that
    # build and install then use.
    def edit(self, spec, prefix):
        configure = Executable("./configure")
        configure(*self.configure_args())

    # The unit suites; the shell tests need Slurm, root and more.
    def check(self):
        make("unit-check")
