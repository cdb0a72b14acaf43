#!/usr/bin/env python3
"""check_job.py: check the DDPTEST lines a cluster job printed.

usage: check_job.py [options] OUTPUT...

Reads the lines test/train.py printed (anywhere in a line, so srun's
--label prefixes do no harm) from the job's output files and checks that
they describe one complete, consistent DDP run.  Prints every problem
found, one line each, and exits 1 if there was any; exits 0 with a
one-line summary otherwise; exits 2 on misuse.
"""

import argparse
import json
import sys

PREFIX = "DDPTEST "


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="check_job.py",
        description="Check the DDPTEST lines printed by test/train.py.")
    ap.add_argument("outputs", nargs="+", metavar="OUTPUT",
                    help="job output file(s) holding DDPTEST lines")
    ap.add_argument("--nodes", type=int, required=True,
                    help="number of nodes the job ran on")
    ap.add_argument("--procs-per-node", type=int, required=True,
                    help="torchrun processes per node")
    ap.add_argument("--master-addr",
                    help="the MASTER_ADDR every rank must have seen")
    ap.add_argument("--node-order",
                    help="hostnames in Slurm's node order, separated by "
                         "commas or spaces: node rank i must run on the "
                         "i-th (0-based)")
    ap.add_argument("--virtual-nodes", action="store_true",
                    help="every node is a virtual one on one host (ddpgen's "
                         "local jobs): one host holds every node rank")
    ap.add_argument("--argv-file", metavar="FILE",
                    help="expected arguments, each ended by a NUL byte "
                         "(printf '%%s\\0' ARGS >FILE); an empty file "
                         "expects no arguments")
    ap.add_argument("--expect-env", action="append", default=[],
                    metavar="NAME=VALUE",
                    help="every rank saw NAME=VALUE (train.py's env keys)")
    ap.add_argument("--expect-unset", action="append", default=[],
                    metavar="NAME",
                    help="no rank saw NAME set (train.py's env keys)")
    args = ap.parse_args(argv)
    if args.nodes < 1 or args.procs_per_node < 1:
        ap.error("--nodes and --procs-per-node must be positive")
    for e in args.expect_env:
        if "=" not in e:
            ap.error("--expect-env wants NAME=VALUE: %r" % e)
    return args


def expected_argv(args):
    """The expected argv as a list of hex strings, or None."""
    if args.argv_file is not None:
        with open(args.argv_file, "rb") as f:
            data = f.read()
        if data and not data.endswith(b"\0"):
            raise ValueError("%s: last argument not ended by NUL"
                             % args.argv_file)
        return [a.hex() for a in data.split(b"\0")[:-1]]
    return None


def read_records(paths, problems):
    records = []
    for path in paths:
        with open(path, "rb") as f:
            for n, raw in enumerate(f, 1):
                line = raw.decode("utf-8", "replace")
                at = line.find(PREFIX)
                if at < 0:
                    continue
                try:
                    rec = json.loads(line[at + len(PREFIX):])
                    if not isinstance(rec, dict):
                        raise ValueError("not an object")
                except ValueError as e:
                    problems.append("%s:%d: bad DDPTEST line (%s): %s"
                                    % (path, n, e, line.strip()[:200]))
                    continue
                rec["_where"] = "%s:%d" % (path, n)
                records.append(rec)
    # Messages in rank order, whatever order the lines came in.
    records.sort(key=lambda r: (not isinstance(r.get("rank"), int),
                                str(r.get("rank")).zfill(12)))
    return records


def sorted_ranks(ranks):
    return sorted(ranks, key=lambda x: (not isinstance(x, int),
                                        str(x).zfill(12)))


def show_argv(hexes):
    return "[%s]" % ", ".join(repr(bytes.fromhex(h)) for h in hexes)


def check(args, records, problems):
    nodes, ppn = args.nodes, args.procs_per_node
    world = nodes * ppn
    if not records:
        problems.append("no DDPTEST lines in %s" % ", ".join(args.outputs))
        return
    if len(records) != world:
        problems.append("%d DDPTEST lines, want %d (%d nodes x %d)"
                        % (len(records), world, nodes, ppn))

    by_rank = {}
    for r in records:
        ws = r.get("world_size")
        if ws != world:
            problems.append("%s: rank %s: world size %s, want %d"
                            % (r["_where"], r.get("rank"), ws, world))
        by_rank.setdefault(r.get("rank"), []).append(r)
    for rank, rs in sorted(by_rank.items(), key=lambda kv: str(kv[0])):
        if len(rs) > 1:
            problems.append("rank %s reported %d times" % (rank, len(rs)))
    missing = [i for i in range(world) if i not in by_rank]
    if missing:
        problems.append("ranks missing: %s" % " ".join(map(str, missing)))
    extra = [k for k in by_rank if k not in range(world)]
    if extra:
        problems.append("unexpected ranks: %s" % " ".join(map(str, extra)))

    check_placement(args, records, problems)

    if args.master_addr is not None:
        for r in records:
            if r.get("master_addr") != args.master_addr:
                problems.append("rank %s: master address %s, want %s"
                                % (r.get("rank"), r.get("master_addr"),
                                   args.master_addr))

    for key in ("param_sum", "param_sha256"):
        values = {}
        for r in records:
            values.setdefault(r.get(key), []).append(r.get("rank"))
        if len(values) > 1:
            problems.append("%s differs between ranks: %s" % (key, "; ".join(
                "%s on ranks %s" % (v, " ".join(map(str, sorted_ranks(rs))))
                for v, rs in values.items())))

    want = expected_argv(args)
    for r in records:
        got = r.get("argv_hex")
        ref = want if want is not None else records[0].get("argv_hex")
        if got != ref:
            problems.append("rank %s: argv %s, want %s"
                            % (r.get("rank"), show_argv(got or []),
                               show_argv(ref or [])))

    for e in args.expect_env:
        name, value = e.split("=", 1)
        for r in records:
            got = r.get("env", {}).get(name)
            if got != value:
                problems.append("rank %s: %s=%s, want %s"
                                % (r.get("rank"), name, got, value))

    for name in args.expect_unset:
        for r in records:
            got = r.get("env", {}).get(name)
            if got is not None:
                problems.append("rank %s: %s=%s, want it unset"
                                % (r.get("rank"), name, got))


def check_placement(args, records, problems):
    """Node ranks, local ranks and hosts agree with torchrun's layout."""
    nodes, ppn = args.nodes, args.procs_per_node
    order = None
    if args.node_order is not None:
        order = args.node_order.replace(",", " ").split()
        if len(order) != nodes:
            problems.append("--node-order names %d hosts, --nodes says %d"
                            % (len(order), nodes))
    host_of_node = {}
    for r in records:
        rank, node, local = r.get("rank"), r.get("node_rank"), \
            r.get("local_rank")
        host = r.get("hostname")
        if not isinstance(node, int) or not 0 <= node < nodes:
            problems.append("rank %s: node rank %s, want 0..%d"
                            % (rank, node, nodes - 1))
            continue
        if not isinstance(local, int) or not 0 <= local < ppn:
            problems.append("rank %s: local rank %s, want 0..%d"
                            % (rank, local, ppn - 1))
        elif isinstance(rank, int) and rank != node * ppn + local:
            problems.append("rank %s: is local rank %d on node rank %d, "
                            "want global rank %d"
                            % (rank, local, node, node * ppn + local))
        if order is not None and node < len(order) and host != order[node]:
            problems.append("rank %s: node rank %d ran on %s, want %s"
                            % (rank, node, host, order[node]))
        host_of_node.setdefault(node, set()).add(host)
    for node, hosts in sorted(host_of_node.items()):
        if len(hosts) > 1:
            problems.append("node rank %d ran on several hosts: %s"
                            % (node, " ".join(sorted(map(str, hosts)))))
    seen = {}
    for node, hosts in host_of_node.items():
        for h in hosts:
            seen.setdefault(h, set()).add(node)
    if args.virtual_nodes:
        if len(seen) != 1:
            problems.append("virtual nodes ran on several hosts: %s"
                            % " ".join(sorted(map(str, seen))))
        return
    for h, ns in sorted(seen.items(), key=lambda kv: str(kv[0])):
        if len(ns) > 1:
            problems.append("host %s holds several node ranks: %s"
                            % (h, " ".join(map(str, sorted(ns)))))


def main(argv):
    args = parse_args(argv)
    problems = []
    try:
        records = read_records(args.outputs, problems)
        check(args, records, problems)
    except (OSError, ValueError) as e:
        problems.append(str(e))
    for p in problems:
        print("check_job: %s" % p, file=sys.stderr)
    if problems:
        return 1
    print("check_job: ok: %d ranks on %d nodes, master %s"
          % (len(records), args.nodes, records[0].get("master_addr")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
