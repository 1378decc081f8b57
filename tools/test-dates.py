#!/usr/bin/env python3
"""Runs the Swift test suite with the clock set to chosen dates (`make test-dates`).

A test that reads today's date can pass on the day it was written and fail on another: on 29 February, on
31 December or 1 January, on the night a zone changes its clock, or on a day the fixtures have an entry in an
earlier year ("On this day"). This runs the built test bundle once per date with tools/test-clock.c preloaded
(LD_PRELOAD) and TEST_CLOCK_OFFSET set to the date's distance from the real clock, in seconds: the wall clock
starts at that date and keeps running, the monotonic clocks (timeouts, backoffs) and files' times are the
kernel's. The tests carry both variables to every process they start (ChildProcess.keepingTheClock), so the
daemon, the command line and the stand-ins share the date. Go programs (Syncthing) read the clock without the C
library and keep the real date; the Syncthing test compares files, not dates.

Usage: tools/test-dates.py [--filter REGEX] [DATE[@ZONE] ...]; with no dates, the ones in DATES. Exit status 1
when any date fails. Needs a build with tests (`swift build --build-tests`) and a C compiler.
"""

import argparse
import datetime
import os
import subprocess
import sys
import time

# (UTC start, zone the suite runs in, why)
DATES = [
    ("2026-12-01T09:00:00", "UTC", "a year after the year-long diary's newest entry (On this day finds it)"),
    ("2028-02-29T00:30:00", "UTC", "29 February, half an hour into it"),
    ("2027-12-31T23:30:00", "UTC", "the year's last half hour"),
    ("2028-01-01T00:10:00", "UTC", "the year's first minutes"),
    ("2027-12-31T23:30:00", "Europe/Berlin", "the new year already on the reader's clock, not yet in UTC"),
    ("2027-03-28T00:30:00", "Europe/Berlin", "half an hour before Berlin's clocks go forward"),
    ("2027-10-31T00:30:00", "Europe/Berlin", "half an hour before Berlin's clocks go back"),
]


def build_clock(folder):
    """tools/test-clock.c as a shared library under .build/."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-clock.c")
    library = os.path.join(folder, "test-clock.so")
    os.makedirs(folder, exist_ok=True)
    subprocess.check_call(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", source, "-o", library, "-ldl"])
    return library


def bundle(swift):
    """The built tests, which `swift test` runs (run here directly: nothing to build, one process fewer)."""
    folder = subprocess.check_output([swift, "build", "--show-bin-path"], text=True).strip()
    return os.path.join(folder, "weathertagPackageTests.xctest")


def run(start, zone, filter_, tests, clock):
    target = datetime.datetime.fromisoformat(start).replace(tzinfo=datetime.timezone.utc)
    env = dict(os.environ)
    env.update(LD_PRELOAD=clock, TEST_CLOCK_OFFSET=str(int(target.timestamp() - time.time())), TZ=zone)
    command = [tests, "--testing-library", "swift-testing"]
    if filter_:
        command += ["--filter", filter_]
    print(f"== {start} UTC in {zone}", flush=True)
    log = f".build/test-dates-{start[:10]}-{zone.replace('/', '-')}.log"
    with open(log, "w") as out:
        status = subprocess.call(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    with open(log, errors="replace") as out:
        lines = out.read().splitlines()
    ran = False
    for line in lines:
        if "recorded an issue" in line or "Test run with" in line:
            print("   " + line, flush=True)
            ran = ran or "Test run with" in line
    print(f"   exit {status}; the whole output in {log}", flush=True)
    return status == 0 and ran


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dates", nargs="*", help="DATE (UTC, ISO 8601) or DATE@ZONE")
    parser.add_argument("--filter", help="only the tests whose names match (swift test --filter)")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"))
    arguments = parser.parse_args()
    clock = build_clock(".build/test-clock")
    tests = bundle(arguments.swift)
    dates = [(d.split("@")[0], d.split("@")[1] if "@" in d else "UTC", "given") for d in arguments.dates] or DATES
    failed = [f"{start} {zone}" for start, zone, _ in dates if not run(start, zone, arguments.filter, tests, clock)]
    print("dates: %d passed, %d failed" % (len(dates) - len(failed), len(failed)))
    for date in failed:
        print("   failed: " + date)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
