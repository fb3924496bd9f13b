#!/usr/bin/env python3
"""The marker benchmarks' anchors: the same work done by well-known Python code, run side by side by
`stepcompass-buslab markers-load` and `markers-bench` (which print the ratio).

  markers-anchors.py json-load FILE
      Times json.load of a GeoJSON file (the standard library's C parser building the whole tree) and prints
      {"seconds", "features", "peakMiB"} as one JSON line.

  markers-anchors.py ckdtree POINTS QUERIES [--check N]
      POINTS and QUERIES are raw little-endian float64 (latitude, longitude) pairs in degrees, written by
      markers-bench from its seeded generator (the same points as Benchmarks/MarkerBenchmarks). Builds
      scipy.spatial.cKDTree over their 3-D unit vectors (the chord order is the great-circle order, as in
      MarkerKit's SpatialIndex) and times nearest-3 queries for every query point, batched in one call on one
      worker (scipy's best case: no Python per query) and one call per query (a service answering requests one
      at a time). Prints {"buildSeconds", "batchQueriesPerSecond", "loopQueriesPerSecond", "nearest"}:
      "nearest" is the index of the nearest point for the first N queries (default 1000), for a cross-check.

Exit code 2 when scipy (or numpy) is not importable: "pip install scipy" or "apt-get install python3-scipy".
"""

import json
import resource
import sys
import time


def peak_mib():
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def json_load(path):
    start = time.perf_counter()
    with open(path, "rb") as handle:
        document = json.load(handle)
    seconds = time.perf_counter() - start
    features = len(document.get("features", [])) if isinstance(document, dict) else 0
    print(json.dumps({"seconds": seconds, "features": features, "peakMiB": peak_mib()}))


def unit_vectors(numpy, pairs):
    latitude = numpy.radians(pairs[:, 0])
    longitude = numpy.radians(pairs[:, 1])
    cos_latitude = numpy.cos(latitude)
    return numpy.column_stack(
        (cos_latitude * numpy.cos(longitude), cos_latitude * numpy.sin(longitude), numpy.sin(latitude)))


def ckdtree(points_path, queries_path, check):
    try:
        import numpy
        from scipy.spatial import cKDTree
    except ImportError as error:
        print(f"scipy not importable ({error}): pip install scipy, or apt-get install python3-scipy", file=sys.stderr)
        sys.exit(2)
    points = unit_vectors(numpy, numpy.fromfile(points_path, dtype="<f8").reshape(-1, 2))
    queries = unit_vectors(numpy, numpy.fromfile(queries_path, dtype="<f8").reshape(-1, 2))
    builds = []
    tree = None
    for _ in range(3):
        start = time.perf_counter()
        tree = cKDTree(points, leafsize=16, balanced_tree=True, compact_nodes=True)
        builds.append(time.perf_counter() - start)
    batches = []
    for _ in range(3):
        start = time.perf_counter()
        tree.query(queries, k=3, workers=1)
        batches.append(time.perf_counter() - start)
    loop_count = min(len(queries), 100_000)
    start = time.perf_counter()
    for index in range(loop_count):
        tree.query(queries[index], k=3)
    loop = time.perf_counter() - start
    _, nearest = tree.query(queries[:check], k=1, workers=1)
    print(json.dumps({
        "points": len(points), "queries": len(queries),
        "buildSeconds": min(builds),
        "batchQueriesPerSecond": len(queries) / min(batches),
        "loopQueriesPerSecond": loop_count / loop,
        "nearest": [int(value) for value in nearest],
        "scipy": __import__("scipy").__version__,
    }))


def main(arguments):
    if len(arguments) >= 2 and arguments[0] == "json-load":
        json_load(arguments[1])
    elif len(arguments) >= 3 and arguments[0] == "ckdtree":
        check = int(arguments[4]) if len(arguments) >= 5 and arguments[3] == "--check" else 1000
        ckdtree(arguments[1], arguments[2], check)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main(sys.argv[1:])
