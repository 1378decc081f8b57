#!/usr/bin/env python3
"""Checks that each target of Package.swift declares exactly the modules its files import (toolchain modules
aside): `swift package dump-package` on standard input, or run from the repository root."""
import json
import os
import re
import subprocess
import sys

TOOLCHAIN = {"Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Synchronization", "Testing", "XCTest",
             "_Concurrency"}
# The targets linked into the `weathertag` binary import FoundationEssentials, never Foundation: Foundation brings
# FoundationInternationalization and ICU (34 MB of data; docs/PERFORMANCE.md, issue 21).
ESSENTIALS_ONLY = {"WeathertagCore", "WeathertagHTTP", "WeathertagGPSD", "WeathertagSQLite", "WeathertagDaemon",
                   "weathertag"}
# Declared for a reason other than an import, and why.
NOT_IMPORTED = {("WeathertagIntegrationTests", "weathertag"): "so that `swift test` builds the binary it runs"}


IMPORT = re.compile(r"^(?:@\w+(?:\(\w+\))?[ \t]+)*import[ \t]+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)[ \t]+)?(\w+)")


def imports(path):
    """The modules a file imports: its header only (imports, attributes, comments, #if), not text in strings."""
    found = set()
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith(("//", "/*", "*", "#if", "#else", "#endif")):
            continue
        match = IMPORT.match(line)
        if not match:
            break
        found.add(match.group(1))
    return found


def main():
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                         capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        name = target["name"]
        default = ("Tests/" if target["type"] == "test" else "Sources/") + name
        folder = target.get("path") or default
        if not any(f.endswith(".swift") for _, _, files in os.walk(folder) for f in files):
            continue
        declared = {list(d.values())[0][0] for d in target["dependencies"]}
        imported = set()
        for root, _, files in os.walk(folder):
            for file in files:
                if file.endswith(".swift"):
                    imported |= imports(os.path.join(root, file))
        if name in ESSENTIALS_ONLY and "Foundation" in imported:
            problems.append(f"{name}: imports Foundation; the binary's targets import FoundationEssentials")
        imported -= TOOLCHAIN
        for module in sorted(imported - declared):
            problems.append(f"{name}: imports {module} but does not declare it")
        for module in sorted(declared - imported):
            if (name, module) not in NOT_IMPORTED:
                problems.append(f"{name}: declares {module} but no file imports it")
    for problem in problems:
        print(problem, file=sys.stderr)
    verdict = "dependencies match the imports" if not problems else f"{len(problems)} mismatches"
    print(f"{len(manifest['targets'])} targets: {verdict}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
