#!/usr/bin/env python3
"""weathertag's Debian package, checked the way Debian checks a package (`make test-deb`, run by `make test`).

Without root: the package is built twice, in two folders, and the two .deb files must be the same bytes; lintian
must find no error and no warning that is not overridden with a reason; its file list must be
tools/deb-contents.txt; its dependencies must come from dpkg-shlibdeps; debian/copyright must name every package
linked into the binary. As root, on top: it is installed with apt-get from a PATH without Swift, the installed
binary is run (--version, and `check` against the loopback stand-in), it is upgraded, removed and purged, and the
file system is compared with what it was before.

PID 1 is not systemd on the build machines. The maintainer scripts ask deb-systemd-invoke to start, restart and stop
the units, and deb-systemd-invoke first asks /usr/sbin/policy-rc.d, Debian's policy layer for exactly this: the
check puts there, for its run, a policy-rc.d that writes down what it was asked and answers 101 (do not run), and
makes /run/systemd/system for the scripts to act as on a machine that boots with systemd; both are put back as they
were. The check is that installing asks to start the daemon, an upgrade to restart it and removal to stop it.
Enabling is real (deb-systemd-helper's symlinks in /etc).

It prints one line per check and a closing line `deb: N passed, M failed`; exit status 1 when any check failed.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, ".build", "deb")
PACKAGE = "weathertag"
# Packages the test targets use and the binary does not link (Package.swift: Yams checks the front-matter reader).
TEST_ONLY = {"yams"}
# What the binary carries from the Swift toolchain (--static-swift-stdlib) besides the packages it resolves.
TOOLCHAIN = ["swiftlang/swift", "swiftlang/swift-foundation", "swiftlang/swift-corelibs-libdispatch",
             "swiftlang/swift-experimental-string-processing"]
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# What apt, dpkg, man-db and the user database change by themselves during an install and a purge.
UNTRACKED = ("/var/lib/dpkg/", "/var/lib/apt/", "/var/cache/apt/", "/var/cache/man/", "/var/cache/debconf/",
             "/var/cache/ldconfig/", "/var/log/", "/etc/ld.so.cache")
USER_DATABASE = {"/etc/passwd-", "/etc/group-", "/etc/shadow-", "/etc/gshadow-", "/etc/.pwd.lock"}
SNAPSHOT = ("/etc", "/usr", "/var/lib", "/var/cache", "/srv", "/opt/weathertag")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("ok    %s" % name, flush=True)
        else:
            self.failed.append(name)
            print("FAIL  %s%s" % (name, ("\n      " + detail.replace("\n", "\n      ")) if detail else ""),
                  flush=True)
        return ok


def run(command, **options):
    options.setdefault("capture_output", True)
    options.setdefault("text", True)
    return subprocess.run(command, **options)


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def build(folder):
    result = run([os.path.join(ROOT, "tools", "build-deb.sh"), folder])
    if result.returncode != 0:
        sys.exit("test-deb: the package did not build:\n" + result.stderr)
    return result.stdout.strip()


def release_layout(binary):
    """(ok, detail): whether `binary` (the package's, before it is stripped) has DT_RELR, .plt and .text.unnamed before
    .text, and 99 % of the bytes of the functions release/hot-text.order names in the first half of .text (they
    take 39 % with the list, 88 % without it)."""
    dynamic = run(["readelf", "-d", binary]).stdout
    headers = run(["readelf", "-SW", binary]).stdout
    sections = [line.split()[1] for line in headers.splitlines()
                if re.match(r"\s*\[\s*\d+\]", line) and len(line.split()) > 2]
    order = {name: index for index, name in enumerate(sections)}
    placed = all(name in order for name in (".plt", ".text.unnamed", ".text")) and \
        order[".plt"] < order[".text"] and order[".text.unnamed"] < order[".text"]
    text = re.search(r"\s\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", headers)
    with open(os.path.join(ROOT, "release", "hot-text.order")) as handle:
        listed = {line.strip() for line in handle if line.strip()}
    functions = []
    for line in run(["nm", "-S", "--defined-only", binary]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW" and fields[3] in listed:
            functions.append((int(fields[0], 16), int(fields[1], 16)))
    if not text or not functions:
        return False, "no .text or none of the listed functions in %s" % binary
    start, size = int(text.group(1), 16), int(text.group(2), 16)
    functions.sort()
    total, running, reach = sum(length for _, length in functions), 0, start
    for address, length in functions:
        running += length
        if running >= 0.99 * total:
            reach = address + length
            break
    share = (reach - start) / size
    ok = "RELR" in dynamic and placed and share <= 0.5
    return ok, "DT_RELR %s; sections %s; 99 %% of %d listed functions within the first %.0f %% of .text" % (
        "RELR" in dynamic, [name for name in sections if name in (".init", ".plt", ".text.unnamed", ".text")],
        len(functions), share * 100)


def members(deb):
    """The package's files, one line each: mode, owner/group, path and a link's target (sizes change with the code)."""
    lines = []
    for line in run(["dpkg-deb", "--contents", deb], check=True).stdout.splitlines():
        fields = line.split(None, 5)
        mode, owner, path = fields[0], fields[1], fields[5]
        lines.append("%s %s %s" % (mode, owner, path))
    return lines


def differing_members(first, second):
    """Which files of two packages differ, for the message when they are not the same bytes."""
    folders = []
    for deb in (first, second):
        folder = tempfile.mkdtemp(prefix="deb-")
        run(["dpkg-deb", "-R", deb, folder], check=True)
        folders.append(folder)
    differ = []
    for directory, _, files in os.walk(folders[0]):
        for name in files:
            path = os.path.join(directory, name)
            other = os.path.join(folders[1], os.path.relpath(path, folders[0]))
            if not os.path.islink(path) and (not os.path.exists(other) or sha256(path) != sha256(other)):
                differ.append(os.path.relpath(path, folders[0]))
    for folder in folders:
        shutil.rmtree(folder)
    return differ or ["(the files are the same: the archive's order, times or owners differ)"]


def snapshot():
    paths = set()
    for top in SNAPSHOT:
        for directory, folders, files in os.walk(top):
            for name in folders + files:
                paths.add(os.path.join(directory, name))
    return paths


def tracked(path):
    return not path.startswith(UNTRACKED) and path not in USER_DATABASE


class ServicePolicy:
    """A policy-rc.d that writes down what deb-systemd-invoke asks of it and lets nothing run, and /run/systemd/system,
    while the package is installed and removed; what was there before is put back."""

    HELPER = "/usr/sbin/policy-rc.d"

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="weathertag-deb-policy-")
        self.log = os.path.join(self.folder, "asked.log")
        open(self.log, "w").close()
        self.saved = None
        if os.path.lexists(self.HELPER):
            self.saved = os.path.join(self.folder, "policy-rc.d.saved")
            shutil.move(self.HELPER, self.saved)
        with open(self.HELPER, "w") as handle:
            handle.write('#!/bin/sh\necho "$1 $2" >> "%s"\nexit 101\n' % self.log)
        os.chmod(self.HELPER, 0o755)
        self.made_run = not os.path.isdir("/run/systemd/system")
        if self.made_run:
            os.makedirs("/run/systemd/system")

    def asked(self):
        with open(self.log) as handle:
            text = handle.read()
        open(self.log, "w").close()
        return text

    def close(self):
        if self.made_run:
            os.rmdir("/run/systemd/system")
        os.remove(self.HELPER)
        if self.saved:
            shutil.move(self.saved, self.HELPER)
        shutil.rmtree(self.folder)


def apt(*arguments):
    environment = {"PATH": SYSTEM_PATH, "DEBIAN_FRONTEND": "noninteractive", "LANG": "C.UTF-8"}
    return run(["apt-get", "-y", "-q", "-o", "Dpkg::Options::=--force-confdef", "-o",
                "Dpkg::Options::=--force-confold"] + list(arguments), env=environment)


def upgraded(deb, folder):
    """The same package under a higher version, to see what an upgrade does."""
    tree = os.path.join(folder, "tree")
    run(["dpkg-deb", "-R", deb, tree], check=True)
    control = os.path.join(tree, "DEBIAN", "control")
    with open(control) as handle:
        text = handle.read()
    text = re.sub(r"^Version: (.*)$", r"Version: \1+upgrade1", text, flags=re.M)
    with open(control, "w") as handle:
        handle.write(text)
    path = os.path.join(folder, "weathertag-upgrade.deb")
    run(["dpkg-deb", "--root-owner-group", "-b", tree, path], check=True)
    return path


def check_installed_binary(checks, version):
    result = run(["/usr/bin/weathertag", "--version"])
    checks.check("the installed weathertag --version says the package's version (%s)" % version,
                 result.stdout.strip() == version, result.stdout + result.stderr)
    with open("/usr/bin/weathertag", "rb") as handle:
        binary = handle.read()
    checks.check("the release binary holds no test knob (the debug build's WEATHERTAG_TEST_FAULTS and "
                 "WEATHERTAG_TEST_PAGE_INTERVAL)",
                 b"weathertag-test-fault" not in binary and b"WEATHERTAG_TEST_FAULTS" not in binary
                 and b"WEATHERTAG_TEST_PAGE_INTERVAL" not in binary)

    coastlines = "/usr/share/weathertag/map/coastlines.bin"
    with open(coastlines, "rb") as handle:
        checks.check("the map's shorelines are installed where the binary looks (%s)" % coastlines,
                     handle.read(8) == b"WTMAP1\n\0")

    folder = tempfile.mkdtemp(prefix="weathertag-deb-check-")
    standin = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "openweather-standin.py"), "--key", "k"],
                               stdout=subprocess.PIPE, text=True)
    try:
        base = "http://127.0.0.1:%d" % json.loads(standin.stdout.readline())["port"]
        os.makedirs(os.path.join(folder, "inbox"))
        config = os.path.join(folder, "config.json")
        with open(config, "w") as handle:
            json.dump({
                "open_meteo": {"base_url": base, "archive_url": base, "air_quality_url": base},
                "location": {"providers": [{"type": "fixed", "latitude": 51.5074, "longitude": -0.1278}]},
                "cache": {"directory": os.path.join(folder, "cache")},
                "state": {"directory": os.path.join(folder, "state")},
                "inbox": {"path": os.path.join(folder, "inbox")},
                "socket": {"path": os.path.join(folder, "weathertag.sock")},
            }, handle)
        result = run(["/usr/bin/weathertag", "check", "--config", config], env={"PATH": SYSTEM_PATH}, timeout=120)
        checks.check("the installed weathertag check asks Open-Meteo's stand-in, keyless, and passes",
                     result.returncode == 0 and "open-meteo" in result.stdout, result.stdout + result.stderr)
    finally:
        standin.terminate()
        standin.wait()
        shutil.rmtree(folder)


def install_run_remove_purge(checks, deb, version):
    # A run cut off halfway may have left the package behind.
    if run(["dpkg-query", "-W", "-f=${Status}", PACKAGE]).stdout.endswith(" installed"):
        run(["dpkg", "--purge", PACKAGE])
    before = snapshot()
    policy = ServicePolicy()
    work = tempfile.mkdtemp(prefix="weathertag-deb-")
    try:
        checks.check("apt-get runs with no Swift on its PATH", shutil.which("swift", path=SYSTEM_PATH) is None)
        result = apt("install", os.path.abspath(deb))
        if not checks.check("apt-get install ./%s" % os.path.basename(deb), result.returncode == 0,
                            result.stdout[-3000:] + result.stderr[-3000:]):
            return
        asked = policy.asked()
        checks.check("installing starts the daemon", "weathertag.service start\n" in asked, asked)
        wants = {"/etc/systemd/system/multi-user.target.wants/weathertag.service",
                 "/etc/systemd/system/sockets.target.wants/weathertag.socket"}
        checks.check("the daemon and its socket are enabled", all(os.path.islink(path) for path in wants))
        checks.check("the user units are not enabled for every user",
                     os.path.exists("/usr/lib/systemd/user/weathertag.service")
                     and not os.path.lexists("/etc/systemd/user/default.target.wants/weathertag.service")
                     and not os.path.lexists("/etc/systemd/user/sockets.target.wants/weathertag.socket"))
        checks.check("gpxlogger's unit is installed, not enabled",
                     os.path.exists("/lib/systemd/system/weathertag-gpxlogger.service")
                     and not os.path.exists("/etc/systemd/system/multi-user.target.wants/"
                                            "weathertag-gpxlogger.service"))
        users = run(["getent", "passwd", "weathertag"]).stdout
        groups = run(["id", "-nG", "weathertag"]).stdout.split()
        checks.check("sysusers made the user weathertag, in the group diary",
                     ":/var/lib/weathertag:" in users and "diary" in groups, users + " ".join(groups))
        tracks = os.stat("/var/lib/weathertag/tracks") if os.path.isdir("/var/lib/weathertag/tracks") else None
        checks.check("tmpfiles made gpxlogger's folder for the weathertag user",
                     tracks is not None and tracks.st_uid == int(users.split(":")[2]))
        conffiles = run(["dpkg-query", "-W", "-f=${Conffiles}", PACKAGE]).stdout
        checks.check("/etc/weathertag/config.json is a conffile", "/etc/weathertag/config.json" in conffiles,
                     conffiles)
        with open("/etc/weathertag/config.json") as handle:
            config = handle.read()
        checks.check("the installed configuration holds no key", "api_key" not in config)
        schema = run([sys.executable, "-c", "import json, jsonschema; jsonschema.validate("
                      "json.load(open('/etc/weathertag/config.json')), "
                      "json.load(open('/etc/weathertag/config.schema.json')))"])
        checks.check("the installed configuration is valid for the schema beside it", schema.returncode == 0,
                     schema.stderr[-2000:])
        man = run(["man", "-w", "weathertag.json"], env={"PATH": SYSTEM_PATH})
        checks.check("man weathertag.json finds its page", man.returncode == 0, man.stderr)
        check_installed_binary(checks, version)

        # An upgrade keeps the settings changed by hand and restarts the daemon.
        with open("/etc/weathertag/config.json", "a") as handle:
            handle.write("\n")
        result = apt("install", upgraded(deb, work))
        asked = policy.asked()
        checks.check("an upgrade restarts the daemon",
                     result.returncode == 0 and "weathertag.service restart\n" in asked, asked + result.stderr[-2000:])
        with open("/etc/weathertag/config.json") as handle:
            checks.check("an upgrade keeps config.json as it was changed", handle.read() == config + "\n")

        # What the daemon leaves when it has run: its memory and its cache.
        os.makedirs("/var/lib/weathertag", exist_ok=True)
        os.makedirs("/var/cache/weathertag/icons", exist_ok=True)
        for path in ("/var/lib/weathertag/state.sqlite", "/var/cache/weathertag/icons/01d@2x.png"):
            open(path, "w").close()
        result = apt("remove", PACKAGE)
        asked = policy.asked()
        checks.check("apt-get remove stops the daemon and removes the binary", result.returncode == 0
                     and "weathertag.service stop\n" in asked and not os.path.exists("/usr/bin/weathertag"),
                     asked + result.stderr[-2000:])
        checks.check("remove keeps the configuration, the memory and the cache",
                     all(os.path.exists(path) for path in ("/etc/weathertag/config.json",
                                                           "/var/lib/weathertag/state.sqlite",
                                                           "/var/cache/weathertag/icons/01d@2x.png")))
        result = apt("purge", PACKAGE)
        checks.check("apt-get purge", result.returncode == 0, result.stderr[-2000:])
        left = sorted(path for path in snapshot() - before if tracked(path))
        checks.check("purge leaves nothing behind but the user and the group", not left, "\n".join(left[:40]))
        checks.check("the user weathertag stays after purge (files in the diary belong to it)",
                     run(["getent", "passwd", "weathertag"]).returncode == 0)
    finally:
        if run(["dpkg-query", "-W", "-f=${Status}", PACKAGE]).stdout.endswith(" installed"):
            apt("purge", PACKAGE)
        policy.close()
        shutil.rmtree(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--once", action="store_true", help="build once: skip the reproducibility check")
    arguments = parser.parse_args()
    checks = Checks()
    version = run(["dpkg-parsechangelog", "-l", os.path.join(ROOT, "debian", "changelog"), "-S", "Version"],
                  check=True).stdout.strip()

    print("== building the package (tools/build-deb.sh)", flush=True)
    deb = build(os.path.join(BUILD, "test"))
    if not arguments.once:
        # Another folder, a path of another length: a build path that reached the binary would show.
        again = build(os.path.join(BUILD, "test-again", "elsewhere"))
        checks.check("two builds from the same tree in two folders are the same bytes", sha256(deb) == sha256(again),
                     "\n".join(differing_members(deb, again)))

    lintian = run(["lintian", "--fail-on", "error,warning", "--display-info", deb])
    checks.check("lintian: no error, no warning that is not overridden with a reason", lintian.returncode == 0,
                 lintian.stdout + lintian.stderr)

    expected_path = os.path.join(ROOT, "tools", "deb-contents.txt")
    with open(expected_path) as handle:
        expected = [line for line in handle.read().splitlines() if line and not line.startswith("#")]
    actual = members(deb)
    missing, extra = sorted(set(expected) - set(actual)), sorted(set(actual) - set(expected))
    checks.check("dpkg-deb --contents is tools/deb-contents.txt", not missing and not extra,
                 "\n".join(["missing: " + line for line in missing] + ["extra: " + line for line in extra]))

    fields = run(["dpkg-deb", "-f", deb, "Version", "Depends"]).stdout
    depends = re.search(r"^Depends: (.*)$", fields, flags=re.M)
    libraries = ["libc6", "libsqlite3-0", "libyaml-0-2", "libstdc++6", "libcurl4"]
    checks.check("Depends holds what dpkg-shlibdeps read off the binary, with versions, and libcurl4",
                 depends is not None and all(re.search(r"\b%s\b" % re.escape(name), depends.group(1))
                                             for name in libraries)
                 and "(>= " in depends.group(1), fields)

    binary = os.path.join(os.path.dirname(deb), "weathertag-%s" % version, ".build", "deb", "release", "weathertag")
    layout, detail = release_layout(binary)
    checks.check("the packaged binary is linked as release/flags.mk says: packed relative relocations, the PLT and "
                 "Swift's unnamed functions before .text, release/hot-text.order's functions first", layout, detail)

    with open(os.path.join(ROOT, "debian", "copyright")) as handle:
        copyright_text = handle.read()
    checkouts = os.path.join(os.path.dirname(deb), "weathertag-%s" % version, ".build", "deb", "checkouts")
    bundled = sorted(name for name in os.listdir(checkouts) if name.lower() not in TEST_ONLY)
    unnamed = [name for name in bundled + [name.split("/")[1] for name in TOOLCHAIN]
               if "/%s\n" % name not in copyright_text and "/%s/" % name not in copyright_text]
    checks.check("debian/copyright names every package linked into the binary (%d)" % (len(bundled) + len(TOOLCHAIN)),
                 not unnamed, "not named: " + ", ".join(unnamed))

    if os.geteuid() == 0 and shutil.which("apt-get"):
        install_run_remove_purge(checks, deb, version)
    else:
        print("skip  installing, upgrading, removing and purging: they need root and apt-get", flush=True)

    print("deb: %d passed, %d failed" % (checks.passed, len(checks.failed)), flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
