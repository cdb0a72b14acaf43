"""bindcheck.py DIR NODES PPN MODE [--local-rank-arg]: the records
bindprobe.py wrote in DIR are NODES nodes' PPN workers each, and each
node's workers run as MODE says: "bound", each on CPUs of its own
(disjoint from the others') with OMP_NUM_THREADS their number and the
plan in its environment; "unbound", all on every CPU of this machine,
no plan, and one OMP_NUM_THREADS for all (the job script's). With
--local-rank-arg, each worker's first argument is --local_rank=
LOCAL_RANK. Exits non-zero naming the first wrong record."""

import collections
import glob
import json
import os
import sys


def fail(msg):
    sys.exit("bindcheck: " + msg)


def main(argv):
    d, nodes, ppn, mode = argv[0], int(argv[1]), int(argv[2]), argv[3]
    rest = argv[4:]
    lra = "--local-rank-arg" in rest
    by_host = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        with open(path) as f:
            rec = json.load(f)
        by_host[rec["host"]].append(rec)
    if len(by_host) != nodes:
        fail("records from %d nodes, want %d: %s" % (len(by_host), nodes,
                                                    sorted(by_host)))
    for host, recs in sorted(by_host.items()):
        ranks = sorted(r["local_rank"] for r in recs)
        if ranks != [str(i) for i in range(ppn)]:
            fail("%s: local ranks %s, want 0 to %d" % (host, ranks, ppn - 1))
        for r in recs:
            if lra and (not r["argv"] or
                        r["argv"][0] != "--local_rank=" + r["local_rank"]):
                fail("%s rank %s: arguments %s do not start with "
                     "--local_rank=%s" % (host, r["local_rank"], r["argv"],
                                          r["local_rank"]))
            if mode == "bound":
                if r["omp"] != str(len(r["affinity"])):
                    fail("%s rank %s: OMP_NUM_THREADS %s for CPUs %s"
                         % (host, r["local_rank"], r["omp"], r["affinity"]))
                if not r["plan"]:
                    fail("%s rank %s: no plan" % (host, r["local_rank"]))
            else:
                if r["plan"] is not None:
                    fail("%s rank %s: a plan %s" % (host, r["local_rank"],
                                                   r["plan"]))
                if r["omp"] != recs[0]["omp"]:
                    fail("%s rank %s: OMP_NUM_THREADS %s, rank %s's %s"
                         % (host, r["local_rank"], r["omp"],
                            recs[0]["local_rank"], recs[0]["omp"]))
        sets = [set(r["affinity"]) for r in recs]
        if mode == "bound":
            for i in range(len(sets)):
                for j in range(i):
                    if sets[i] & sets[j]:
                        fail("%s: ranks %s and %s share CPUs %s" % (
                            host, recs[i]["local_rank"],
                            recs[j]["local_rank"],
                            sorted(sets[i] & sets[j])))
        elif any(s != sets[0] for s in sets) or \
                sets[0] != os.sched_getaffinity(0):
            fail("%s: unbound workers on CPUs %s, want all of this "
                 "machine's %s" % (host, [sorted(s) for s in sets],
                                   sorted(os.sched_getaffinity(0))))


if __name__ == "__main__":
    main(sys.argv[1:])
