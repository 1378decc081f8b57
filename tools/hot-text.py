#!/usr/bin/env python3
"""Writes release/hot-text.order: the functions weathertag runs, which the release link places first.

`make hot-text` runs it. Why: the release binary's code is 15 MiB, of which a daemon's life runs about 2.5 MiB,
scattered. A kernel that reads the binary in large page-cache folios (Linux 6.x with a large read-ahead, as on this
project's machines) maps a whole folio, up to 2 MiB, for the first byte run in it: scattered, that code kept 17 MiB
of the binary resident. Placed together it keeps a few folios (docs/PERFORMANCE.md, "Code placed by use").

How: the release binary built with release/flags.mk's flags is run under valgrind's callgrind through some of
bench/run.py's rows, as `make bench` runs them; every function callgrind saw run that the binary defines is written
once, in the order callgrind reported them. lld's `--symbol-ordering-file` places their sections first, in that order.
A function the list does not name (new, renamed) is only placed among the rest: the list never changes what the
program does, only where its code lies. Run it again after large changes; `make bench` says how much of the list the
binary still defines.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys

# The rows run under callgrind: start-up, stamping (current weather, a burst), history (the ten-year diary, an
# import), the socket and the latency of a stamp. Quick sizes (callgrind runs code about 50 times slower), but the
# whole ten-year diary: its time is history's pacing, and it runs 90 functions a short diary never reaches (history
# read back from the store, its pacing waited out).
ROWS = (("startup", True), ("socket", True), ("latency", True), ("diary", False), ("import", True),
        ("burst", True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the release weathertag, built with release/flags.mk")
    parser.add_argument("--fslimit", required=True)
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--work", required=True, help="a folder for the profile")
    parser.add_argument("--output", required=True)
    arguments = parser.parse_args()

    shutil.rmtree(arguments.work, ignore_errors=True)
    profiles = os.path.join(arguments.work, "callgrind")
    os.makedirs(profiles)
    # valgrind 3.19 (Debian 12) cannot read the DWARF 5 Swift writes; the symbol table is all it needs.
    binary = os.path.join(arguments.work, "weathertag")
    subprocess.run(["objcopy", "--strip-debug", arguments.binary, binary], check=True)
    wrapper = os.path.join(arguments.work, "weathertag-under-callgrind")
    with open(wrapper, "w") as handle:
        handle.write("#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --dump-instr=no --dump-line=no "
                     "--compress-strings=no --compress-pos=no --callgrind-out-file=%s/out.%%p %s \"$@\"\n" % (
                         profiles, binary))
    os.chmod(wrapper, 0o755)
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "run.py")
    for row, quick in ROWS:
        print("== %s, under callgrind" % row, flush=True)
        run = subprocess.run([sys.executable, bench, "--binary", wrapper, "--fslimit", arguments.fslimit,
                              "--loadgen", arguments.loadgen, "--only", row, "--runs", "1", "--burst", "500",
                              "--burst-runs", "1", "--no-scratch"] + (["--quick"] if quick else []),
                             capture_output=True, text=True)
        if run.returncode != 0:
            # A row that times out under callgrind still leaves the profiles of what it ran.
            print("   (the row stopped: %s)" % (run.stderr.strip().splitlines() or ["?"])[-1], flush=True)

    defined = set()
    symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    for line in symbols.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            defined.add(fields[2])
    ordered, seen = [], set()
    for profile in sorted(glob.glob(os.path.join(profiles, "out.*"))):
        with open(profile, errors="replace") as handle:
            for line in handle:
                if line.startswith("fn="):
                    name = line[3:].strip()
                    if name in defined and name not in seen:
                        seen.add(name)
                        ordered.append(name)
    if len(ordered) < 1000:
        sys.exit("hot-text.py: only %d functions were seen running; the rows did not run" % len(ordered))
    with open(arguments.output, "w") as handle:
        handle.write("".join(name + "\n" for name in ordered))
    print("%d functions run, of %d defined: %s" % (len(ordered), len(defined), arguments.output))


if __name__ == "__main__":
    main()
