#!/usr/bin/env python3
"""Power loss, replayed (docs/RELIABILITY.md): the recorder's own tests (test-recorder.py), then the crash states of
each workload on each filesystem (crash-states.py), and the table of what was tried and found.

    runs.py --recorder RECORDER --binary WEATHERTAG [--filesystems "ext4 xfs"] [--workloads "burst new"]
            [--sample N] [crash-states.py's flags...]

Without `--sample`: every workload on every filesystem, every crash state (`make crash-test`). With it: each workload
on one filesystem, in turn, N of its crash states drawn with the seed and one restart (`make crash-sample`, in
`make test`). Without root, FUSE or a loop device it says so in one line and runs nothing.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import replay  # noqa: E402

FILESYSTEMS = ("ext4", "ext4-journal", "xfs", "btrfs")
WORKLOADS = ("burst", "single", "renamed", "edited", "restore", "checkpoint", "stamp", "page", "imported", "new")
MAKE_FILESYSTEM = {"ext4": "mkfs.ext4", "ext4-journal": "mkfs.ext4", "xfs": "mkfs.xfs", "btrfs": "mkfs.btrfs"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recorder", required=True)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--filesystems", default=" ".join(FILESYSTEMS))
    parser.add_argument("--workloads", default=" ".join(WORKLOADS))
    parser.add_argument("--sample", type=int, default=0)
    arguments, passed_on = parser.parse_known_args()
    filesystems, workloads = arguments.filesystems.split(), arguments.workloads.split()
    why = replay.missing(sorted({MAKE_FILESYSTEM[fs] for fs in filesystems} | {"e2fsck", "mount"}))
    if why:
        print("power loss: skipped (%s)" % why)
        return 0
    start = time.monotonic()
    if subprocess.run([sys.executable, os.path.join(HERE, "test-recorder.py"), arguments.recorder]).returncode:
        return 1
    if arguments.sample:
        runs = [(filesystems[number % len(filesystems)], workload) for number, workload in enumerate(workloads)]
        passed_on += ["--sample", str(arguments.sample), "--restarts", "1"]
    else:
        runs = [(fs, workload) for fs in filesystems for workload in workloads]
    failed = []
    with tempfile.NamedTemporaryFile("r", suffix=".tsv") as summary:
        for fs, workload in runs:
            ran = subprocess.run([sys.executable, os.path.join(HERE, "crash-states.py"), "--recorder",
                                  arguments.recorder, "--binary", arguments.binary, "--fs", fs, "--workload", workload,
                                  "--summary", summary.name] + passed_on)
            if ran.returncode:
                failed.append("%s on %s" % (workload, fs))
        rows = [line.rstrip("\n").split("\t") for line in summary]
    print("\n| workload | filesystem | crash states | with a temp file left | restarts | failed |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    states = sum(int(row[2]) for row in rows)
    print("power loss: %d runs, %d crash states, %d restarts, %d failed, in %.0f s" % (
        len(rows), states, sum(int(row[4]) for row in rows), sum(int(row[5]) for row in rows),
        time.monotonic() - start))
    for run in failed:
        print("FAILED  " + run)
    return 1 if failed or len(rows) != len(runs) else 0


if __name__ == "__main__":
    sys.exit(main())
