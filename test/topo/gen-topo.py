#!/usr/bin/python3
"""gen-topo.py: writes the hwloc XML topologies of test/topo/ (the seam
of the binding's tests: hwloc loads them in place of the machine), one
per node type, from the centres' published node descriptions. Run it
from anywhere; it rewrites test/topo/*.xml.

Each node is described below as data: packages, NUMA domains and L3
regions of consecutive cores, SMT siblings numbered after all first
threads (as Linux numbers AMD EPYC and Intel Xeon threads), and PCI
trees of GPUs and NICs hanging from the NUMA domain the centre names.
Where a centre does not say something (a bus id, which hsnN is which
NIC), the value is this file's choice and says so.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))


def mask(bits):
    """hwloc's bitmap syntax: 32-bit words in hex, highest first."""
    v = 0
    for b in bits:
        v |= 1 << b
    words = []
    while True:
        words.append(v & 0xffffffff)
        v >>= 32
        if v == 0:
            break
    return ",".join("0x%08x" % w for w in reversed(words))


class Gen:
    def __init__(self):
        self.gp = 0
        self.out = []

    def idx(self):
        self.gp += 1
        return self.gp

    def line(self, depth, s):
        self.out.append("  " * depth + s)


def node_xml(name, desc):
    """desc: smt, packages: [ [numa: [l3: [ncores]]] ], io: {numa: tree}."""
    g = Gen()
    ncores = sum(sum(l3 for l3 in numa) for pkg in desc["packages"]
                 for numa in pkg)
    smt = desc["smt"]
    allpus = list(range(ncores * smt))
    nnuma = sum(len(pkg) for pkg in desc["packages"])
    g.line(0, '<?xml version="1.0" encoding="UTF-8"?>')
    g.line(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    g.line(0, '<!-- %s: written by test/topo/gen-topo.py -->' % name)
    g.line(0, '<topology version="2.0">')

    def sets(pus, numas):
        return ('cpuset="%s" complete_cpuset="%s" nodeset="%s" '
                'complete_nodeset="%s"' % (mask(pus), mask(pus),
                                          mask(numas), mask(numas)))

    g.line(1, '<object type="Machine" os_index="0" %s allowed_cpuset="%s" '
           'allowed_nodeset="%s" gp_index="%d">'
           % (sets(allpus, range(nnuma)), mask(allpus), mask(range(nnuma)),
              g.idx()))
    g.line(2, '<info name="Backend" value="Linux"/>')
    g.line(2, '<info name="HostName" value="%s"/>' % name)
    core = 0
    numa = 0
    l3i = 0
    for p, pkg in enumerate(desc["packages"]):
        pkgpus = []
        first = core
        for n in pkg:
            for c in n:
                for k in range(c):
                    pkgpus += [first + k + s * ncores for s in range(smt)]
                first += c
        pkgnumas = list(range(numa, numa + len(pkg)))
        g.line(2, '<object type="Package" os_index="%d" %s gp_index="%d">'
               % (p, sets(pkgpus, pkgnumas), g.idx()))
        for n in pkg:
            npus = []
            c0 = core
            for c in n:
                for k in range(c):
                    npus += [c0 + k + s * ncores for s in range(smt)]
                c0 += c
            # A NUMA domain that is not the whole package is a Group
            # holding it (as hwloc shows AMD's NPS4), else the package
            # holds it.
            grouped = len(pkg) > 1
            d = 3
            if grouped:
                g.line(3, '<object type="Group" %s kind="1" subkind="0" '
                       'gp_index="%d">' % (sets(npus, [numa]), g.idx()))
                d = 4
            g.line(d, '<object type="NUMANode" os_index="%d" %s '
                   'local_memory="68719476736" gp_index="%d"/>'
                   % (numa, sets(npus, [numa]), g.idx()))
            for c in n:
                l3pus = [core + k + s * ncores for k in range(c)
                         for s in range(smt)]
                g.line(d, '<object type="L3Cache" %s cache_size="33554432" '
                       'depth="3" cache_linesize="64" '
                       'cache_associativity="16" cache_type="0" '
                       'gp_index="%d">' % (sets(l3pus, [numa]), g.idx()))
                for k in range(c):
                    pus = [core + s * ncores for s in range(smt)]
                    g.line(d + 1, '<object type="Core" os_index="%d" %s '
                           'gp_index="%d">' % (core, sets(pus, [numa]),
                                               g.idx()))
                    for pu in pus:
                        g.line(d + 2, '<object type="PU" os_index="%d" %s '
                               'gp_index="%d"/>' % (pu, sets([pu], [numa]),
                                                    g.idx()))
                    g.line(d + 1, '</object>')
                    core += 1
                g.line(d, '</object>')
                l3i += 1
            for tree in desc.get("io", {}).get(numa, []):
                io_xml(g, d, tree)
            if grouped:
                g.line(3, '</object>')
            numa += 1
        g.line(2, '</object>')
    g.line(1, '</object>')
    g.line(0, '</topology>')
    return "\n".join(g.out) + "\n"


def io_xml(g, d, tree):
    """tree: ("hostbridge", "0000:[c0-c7]", [children]),
    ("switch", busid, "0000:[c1-c3]", [children]),
    ("gpu", busid, "vendor:device", class),
    ("nic", busid, "vendor:device", class, iface, fabric, subtype)."""
    kind = tree[0]
    if kind == "hostbridge":
        g.line(d, '<object type="Bridge" gp_index="%d" bridge_type="0-1" '
               'depth="0" bridge_pci="%s">' % (g.idx(), tree[1]))
        for c in tree[2]:
            io_xml(g, d + 1, c)
        g.line(d, '</object>')
    elif kind == "switch":
        g.line(d, '<object type="Bridge" gp_index="%d" bridge_type="1-1" '
               'depth="1" bridge_pci="%s" pci_busid="%s" '
               'pci_type="0604 [1000:c030] [0000:0000] 00" '
               'pci_link_speed="0.000000">' % (g.idx(), tree[2], tree[1]))
        for c in tree[3]:
            io_xml(g, d + 1, c)
        g.line(d, '</object>')
    elif kind == "gpu":
        g.line(d, '<object type="PCIDev" gp_index="%d" pci_busid="%s" '
               'pci_type="%04x [%s] [%s] 00" pci_link_speed="0.000000"/>'
               % (g.idx(), tree[1], tree[3], tree[2], tree[2]))
    elif kind == "nic":
        _, busid, ids, cls, iface, fabric, sub = tree
        g.line(d, '<object type="PCIDev" gp_index="%d" pci_busid="%s" '
               'pci_type="%04x [%s] [%s] 00" pci_link_speed="0.000000">'
               % (g.idx(), busid, cls, ids, ids))
        st = ' subtype="%s"' % sub if sub else ""
        if iface:
            g.line(d + 1, '<object type="OSDev" gp_index="%d" name="%s" '
                   'osdev_type="2"%s/>' % (g.idx(), iface, st))
        if fabric:
            g.line(d + 1, '<object type="OSDev" gp_index="%d" name="%s" '
                   'osdev_type="3"%s/>' % (g.idx(), fabric, st))
        g.line(d, '</object>')


A100 = "10de:20b0"
H100 = "10de:2330"
MI250X = "1002:7408"
CASSINI = "17db:0501"
CX6 = "15b3:101b"
CX7 = "15b3:1021"
VGA_ASPEED = "1a03:2000"


def cassini(bus, n):
    return ("nic", "0000:%02x:00.0" % bus, CASSINI, 0x0200, "hsn%d" % n,
            "cxi%d" % n, "Slingshot")


# Perlmutter GPU node (NERSC, docs.nersc.gov/systems/perlmutter/
# architecture, read 2026-12): one AMD EPYC 7763 (64 cores, 2 threads
# each), 4 NUMA domains of 16 cores (8 per L3), 4 A100, 4 Slingshot 11
# NICs. GPU 0 is near NUMA 3 (cores 48-63), 1 near 2, 2 near 1, 3 near 0
# (nvidia-smi topo -m of a Perlmutter GPU node). The bus ids and hsnN
# being the NIC beside GPU N are this file's.
PERLMUTTER = {
    "smt": 2,
    "packages": [[[8, 8], [8, 8], [8, 8], [8, 8]]],
    "io": {
        3: [("hostbridge", "0000:[00-0f]", [
            ("gpu", "0000:03:00.0", A100, 0x0302), cassini(0x04, 0)])],
        2: [("hostbridge", "0000:[40-4f]", [
            ("gpu", "0000:41:00.0", A100, 0x0302), cassini(0x42, 1)])],
        1: [("hostbridge", "0000:[80-8f]", [
            ("gpu", "0000:82:00.0", A100, 0x0302), cassini(0x83, 2)])],
        0: [("hostbridge", "0000:[c0-cf]", [
            ("gpu", "0000:c1:00.0", A100, 0x0302), cassini(0xc2, 3),
            ("gpu", "0000:c5:00.0", VGA_ASPEED, 0x0300)])],
    },
}


def mi250x(lo, gcd_a, gcd_b, nic_bus, n):
    """One MI250X: its two GCDs and its NIC behind one PCIe switch."""
    return ("hostbridge", "0000:[%02x-%02x]" % (lo, lo + 7), [
        ("switch", "0000:%02x:00.0" % lo, "0000:[%02x-%02x]"
         % (lo + 1, lo + 7), [
             ("gpu", "0000:%02x:00.0" % gcd_a, MI250X, 0x0380),
             cassini(nic_bus, n),
             ("gpu", "0000:%02x:00.0" % gcd_b, MI250X, 0x0380)])])


# Frontier (OLCF, Frontier User Guide, "Frontier Compute Nodes", NUMA
# note and "NIC Mapping", olcf-user-docs systems/frontier_user_guide.rst
# at 27459031, read 2026-12): one 64-core EPYC (2 threads per core), 4
# NUMA domains of 2 L3 regions of 8 cores; GPU (GCD) 4 on cores 0-7, 5 on
# 8-15, 2 on 16-23, 3 on 24-31, 6 on 32-39, 7 on 40-47, 0 on 48-55, 1 on
# 56-63; bus ids c1 c6 c9 ce d1 d6 d9 de for GPUs 0-7 (hello_jobstep
# output); each of the 4 NICs connected to one MI250X (two GCDs). Which
# hsnN is which NIC is this file's (in bus order).
FRONTIER = {
    "smt": 2,
    "packages": [[[8, 8], [8, 8], [8, 8], [8, 8]]],
    "io": {
        3: [mi250x(0xc0, 0xc1, 0xc6, 0xc4, 0)],
        1: [mi250x(0xc8, 0xc9, 0xce, 0xcc, 1)],
        0: [mi250x(0xd0, 0xd1, 0xd6, 0xd4, 2)],
        2: [mi250x(0xd8, 0xd9, 0xde, 0xdc, 3)],
    },
}


# Polaris (ALCF, "Polaris Machine Overview", Device Affinity Information,
# user-guides docs/polaris/index.md at 321e3c3e, read 2026-12): one EPYC
# 7543P (32 cores, 2 threads each), GPU 0 on cores 24-31 (NUMA 3), 1 on
# 16-23 (2), 2 on 8-15 (1), 3 on 0-7 (0); mlx5_0 behind GPU 3's host
# bridge (PHB), mlx5_1 behind GPU 1's, both SYS to GPUs 0 and 2. Bus ids
# and interface names are this file's.
POLARIS = {
    "smt": 2,
    "packages": [[[8], [8], [8], [8]]],
    "io": {
        3: [("hostbridge", "0000:[00-0f]", [
            ("gpu", "0000:07:00.0", A100, 0x0302)])],
        2: [("hostbridge", "0000:[40-4f]", [
            ("gpu", "0000:46:00.0", A100, 0x0302),
            ("nic", "0000:43:00.0", CX6, 0x0207, "hsn1", "mlx5_1", None)])],
        1: [("hostbridge", "0000:[80-8f]", [
            ("gpu", "0000:85:00.0", A100, 0x0302)])],
        0: [("hostbridge", "0000:[c0-cf]", [
            ("gpu", "0000:c7:00.0", A100, 0x0302),
            ("nic", "0000:c3:00.0", CX6, 0x0207, "hsn0", "mlx5_0", None)])],
    },
}


def dgx_pair(sw, gpu_bus, nic_bus, n):
    """One H100 and its ConnectX-7 behind one PCIe switch."""
    return ("switch", "0000:%02x:00.0" % sw, "0000:[%02x-%02x]"
            % (sw + 1, sw + 3), [
                ("gpu", "0000:%02x:00.0" % gpu_bus, H100, 0x0302),
                ("nic", "0000:%02x:00.0" % nic_bus, CX7, 0x0207, "ib%d" % n,
                 "mlx5_%d" % n, None)])


# A 2-socket, 8-GPU DGX-class node (NVIDIA DGX H100 User Guide, "DGX H100
# System Topology", read 2026-12): two 56-core Xeons (2 threads per core),
# one NUMA domain each, GPUs 0-3 on the first socket and 4-7 on the
# second, each with its own ConnectX-7 behind the same PCIe switch. Bus
# ids and names are this file's.
DGX = {
    "smt": 2,
    "packages": [[[56]], [[56]]],
    "io": {
        0: [("hostbridge", "0000:[10-1f]", [dgx_pair(0x10, 0x12, 0x13, 0)]),
            ("hostbridge", "0000:[20-2f]", [dgx_pair(0x20, 0x22, 0x23, 1)]),
            ("hostbridge", "0000:[30-3f]", [dgx_pair(0x30, 0x32, 0x33, 2)]),
            ("hostbridge", "0000:[40-4f]", [dgx_pair(0x40, 0x42, 0x43, 3)])],
        1: [("hostbridge", "0000:[90-9f]", [dgx_pair(0x90, 0x92, 0x93, 4)]),
            ("hostbridge", "0000:[a0-af]", [dgx_pair(0xa0, 0xa2, 0xa3, 5)]),
            ("hostbridge", "0000:[b0-bf]", [dgx_pair(0xb0, 0xb2, 0xb3, 6)]),
            ("hostbridge", "0000:[c0-cf]", [dgx_pair(0xc0, 0xc2, 0xc3, 7)])],
    },
}


# A CPU-only node: Perlmutter's (NERSC, architecture page as above):
# two EPYC 7763, 4 NUMA domains of 16 cores each per socket (8 in all),
# one Slingshot 11 NIC, on the first socket here (this file's choice).
CPUONLY = {
    "smt": 2,
    "packages": [[[8, 8]] * 4, [[8, 8]] * 4],
    "io": {
        0: [("hostbridge", "0000:[00-0f]", [cassini(0x01, 0)])],
    },
}

# A GPU node where hwloc sees no GPU: Perlmutter's GPU node without its
# PCI tree (no I/O discovery: a container without /sys/bus/pci, or a
# GPU hwloc does not know).
NOGPU = {"smt": 2, "packages": PERLMUTTER["packages"]}

NODES = {
    "perlmutter": PERLMUTTER,
    "frontier": FRONTIER,
    "polaris": POLARIS,
    "dgx": DGX,
    "cpuonly": CPUONLY,
    "nogpu": NOGPU,
}

if __name__ == "__main__":
    for name, desc in NODES.items():
        with open(os.path.join(HERE, name + ".xml"), "w") as f:
            f.write(node_xml(name, desc))
