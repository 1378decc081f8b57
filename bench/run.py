#!/usr/bin/env python3
"""make bench: weathertag measured beside its references in one run.

References: the filesystem limit (bench/fslimit.c), the script a user writes instead (bench/stamp-script.sh:
inotifywait + curl + awk), and nginx serving the same JSON over a Unix socket, hit by the same load generator
(bench/loadgen.c). Each figure runs several times; the table shows the median and the spread (min-max). The table
is printed and written to docs/PERFORMANCE.md with the machine it ran on. Exits non-zero only when something could
not run, never on a missed target.
"""
import argparse
import ctypes
import json
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY = "bench-key-0123456789"
LATITUDE, LONGITUDE = 46.2044, 6.1432


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------------
# Processes


class StandIn:
    """tools/openweather-standin.py on 127.0.0.1:0."""

    def __init__(self, directory):
        self.log = open(os.path.join(directory, "standin.log"), "w")
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tools/openweather-standin.py"), "--key", KEY],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = json.loads(self.process.stdout.readline())["port"]
        self.base_url = "http://127.0.0.1:%d" % self.port

    def calls(self, endpoint="weather"):
        return json.loads(http_tcp(self.port, "/_stats")).get(endpoint, 0)

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.log.close()


def http_tcp(port, path):
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    return data.split(b"\r\n\r\n", 1)[1].decode()


def http_unix(path, target):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        connection.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % target).encode())
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    return int(head.split(b" ")[1]), body.decode()


def cpu_seconds(pid):
    """The CPU time (user + system) process `pid` has used, its ended threads included (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid):
    """(anonymous RSS, total RSS) in KiB."""
    fields = {}
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return int(fields["RssAnon"].split()[0]), int(fields["VmRSS"].split()[0])


class Daemon:
    """The release weathertag binary, started with a datagram socket standing in for $NOTIFY_SOCKET."""

    def __init__(self, binary, config, directory):
        self.notify_path = os.path.join(directory, "notify-%d.sock" % time.monotonic_ns())
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": directory,
                       "NOTIFY_SOCKET": self.notify_path}
        self.log = open(os.path.join(directory, "daemon.log"), "a")
        start = time.perf_counter()
        self.process = subprocess.Popen([binary, "serve", "--config", config, "--log-level", "warning"],
                                        env=environment, stderr=self.log)
        # Half a second at a time: a daemon that exits (a configuration error) is told at once, not after 30 s.
        self.notify.settimeout(0.5)
        deadline = time.monotonic() + 30
        while True:
            try:
                message = self.notify.recv(4096).decode()
            except TimeoutError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.notify.close()
                    os.unlink(self.notify_path)
                    self.log.close()
                    raise TimeoutError("weathertag exited (%s) or was not ready in 30 s" % self.process.returncode)
                continue
            if "READY=1" in message:
                break
        self.startup = time.perf_counter() - start
        self.pid = self.process.pid

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        self.notify.close()
        os.unlink(self.notify_path)
        self.log.close()


# ---------------------------------------------------------------------------------------------------------------
# inotify through ctypes: when did the daemon's stamp of each entry land?

IN_MOVED_FROM, IN_MOVED_TO = 0x40, 0x80


class StampWatcher(threading.Thread):
    """Records the moment each entry's stamped version lands: an IN_MOVED_TO whose cookie belongs to an
    IN_MOVED_FROM of a temp file (weathertag's, or the limit loop's with `suffix=".tmp"`)."""

    def __init__(self, folder, suffix=".weathertag-tmp"):
        super().__init__(daemon=True)
        self.suffix = suffix
        self.libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = self.libc.inotify_init1(0)
        self.libc.inotify_add_watch(self.fd, folder.encode(), IN_MOVED_FROM | IN_MOVED_TO)
        self.stamped = {}
        self.running = True

    def run(self):
        cookies = set()
        while self.running:
            data = os.read(self.fd, 65536)
            moment = time.perf_counter()
            offset = 0
            while offset + 16 <= len(data):
                _, mask, cookie, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                offset += 16 + length
                if mask & IN_MOVED_FROM and name.endswith(self.suffix):
                    cookies.add(cookie)
                elif mask & IN_MOVED_TO and cookie in cookies:
                    cookies.discard(cookie)
                    self.stamped.setdefault(name, moment)


# ---------------------------------------------------------------------------------------------------------------
# Where the file figures run


class Scratch:
    """A fresh ext4 filesystem with a journal (as `mkfs.ext4` makes for a Debian install) on a loop device over an
    image on the machine's disk, made anew for each file measurement.

    Why not $TMPDIR: on these machines it is ext4 *without* a journal, where allocating an inode skips every inode
    freed in the last 30 s to 5.5 min (`recently_deleted`), so each burst is slowed by whatever was deleted before
    it and the limit itself swings between 1,000 and 2,500 files/s from one run to the next. A new filesystem
    per measurement gives both sides the same start. Without root or loop devices the bench falls back to
    $TMPDIR and says so; `--no-scratch` asks for that.

    The image is written with zeros once, and `mkfs.ext4` is told not to discard or zero it again: otherwise the
    image's blocks are unallocated or "unwritten" in the filesystem below, and every first write through the loop
    device would also pay for allocating them there."""

    SIZE_MIB = 1536
    INODES = 131072  # 50,000 staged entries and their stamps need more than the default for this size

    def __init__(self, work, enabled):
        self.work = work
        self.image = os.path.join(work, "scratch.img")
        self.mountpoint = os.path.join(work, "scratch")
        self.mounted = False
        self.available = False
        self.reason = "--no-scratch"
        if enabled:
            try:
                subprocess.run(["dd", "if=/dev/zero", "of=" + self.image, "bs=1M", "count=%d" % self.SIZE_MIB,
                                "conv=fsync", "status=none"], check=True, capture_output=True)
                self.fresh()
                self.available = True
            except (OSError, subprocess.CalledProcessError) as error:
                detail = getattr(error, "stderr", b"") or b""
                self.reason = "no scratch filesystem: %s %s" % (error, detail.decode(errors="replace").strip())
                self.release()
                log("falling back to %s: %s" % (work, self.reason))

    # What `fresh` makes: ext4 as a Debian install has it (the target), ext4 without a journal (as /tmp is on these
    # machines, and close to what btrfs, xfs or a tuned NVMe cost per fsync), and tmpfs (no disk at all).
    KINDS = ("journal", "no-journal", "tmpfs")

    def fresh(self, kind="journal"):
        """A new, empty filesystem of `kind`; returns where to put the folders."""
        self.unmount()
        os.makedirs(self.mountpoint, exist_ok=True)
        if kind == "tmpfs":
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm,nr_inodes=%d" % (self.SIZE_MIB, self.INODES),
                            "tmpfs", self.mountpoint], check=True, capture_output=True)
        else:
            features = ["-O", "^has_journal"] if kind == "no-journal" else []
            subprocess.run(["mkfs.ext4", "-q", "-F", "-N", str(self.INODES)] + features +
                           ["-E", "nodiscard,lazy_itable_init=1,lazy_journal_init=1", self.image],
                           check=True, capture_output=True)
            # noinit_itable: no background thread zeroing inode tables during a measurement.
            subprocess.run(["mount", "-o", "loop,noinit_itable", self.image, self.mountpoint], check=True,
                           capture_output=True)
        self.mounted = True
        # The new filesystem's blocks (and the last one's, unmounted) on the disk before the measurement starts:
        # their writeback otherwise lands in its first seconds, in front of its fsyncs.
        os.sync()
        return self.mountpoint

    def unmount(self):
        if self.mounted:
            subprocess.run(["umount", self.mountpoint], check=True, capture_output=True)
            self.mounted = False

    def release(self):
        self.unmount()
        if os.path.exists(self.image):
            os.unlink(self.image)


def describe_filesystem(path):
    """"ext4 with a journal", "ext4 without a journal", "tmpfs", ... for the filesystem holding `path`."""
    path = os.path.realpath(path)
    best = ("", "?", "?")
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            fields = line.split()
            mountpoint = fields[4]
            separator = fields.index("-")
            fstype, source = fields[separator + 1], fields[separator + 2]
            inside = path == mountpoint or path.startswith(mountpoint.rstrip("/") + "/")
            if inside and len(mountpoint) >= len(best[0]):
                best = (mountpoint, fstype, source)
    _, fstype, source = best
    if fstype in ("ext3", "ext4"):
        journal = os.path.exists("/proc/fs/jbd2/%s-8" % os.path.basename(source))
        return "%s %s a journal" % (fstype, "with" if journal else "without")
    return fstype


# ---------------------------------------------------------------------------------------------------------------
# The bench


class Bench:
    def __init__(self, arguments):
        self.binary = arguments.binary
        self.fslimit = arguments.fslimit
        self.loadgen = arguments.loadgen
        self.runs = arguments.runs
        self.burst_runs = arguments.burst_runs
        self.burst = arguments.burst
        self.quick = arguments.quick
        self.filesystems = arguments.filesystem or ["journal"]
        self.work = tempfile.mkdtemp(prefix="weathertag-bench-", dir=arguments.work)
        self.standin = StandIn(self.work)
        self.scratch = Scratch(self.work, enabled=not arguments.no_scratch)
        # Where the inbox, the staging folder and the limit's files go: the scratch filesystem, made anew per
        # measurement (see `fresh`), or the work folder.
        self.files = self.work
        self.results = {}
        self.hot_text = hot_text_coverage(self.binary, arguments.hot_text) if arguments.hot_text else None
        drop_from_page_cache(self.binary)

    def close(self):
        self.standin.stop()
        self.scratch.release()
        shutil.rmtree(self.work, ignore_errors=True)

    def fresh(self, scratch=True):
        """Starts a file measurement on a new scratch filesystem (or, with scratch=False, in the work folder; with
        scratch a kind of `Scratch.KINDS`, a new filesystem of that kind)."""
        kind = scratch if isinstance(scratch, str) else "journal"
        self.files = self.scratch.fresh(kind) if scratch and self.scratch.available else self.work

    def folder(self, name, files=False):
        path = os.path.join(self.files if files else self.work, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path

    def config(self, inbox, cache, timeline=None):
        path = os.path.join(self.work, "config.json")
        with open(path, "w") as handle:
            json.dump({
                "openweather": {"api_key": KEY, "base_url": self.standin.base_url,
                                "icon_base_url": self.standin.base_url + "/img/wn"},
                "location": {"providers": [{"type": "fixed", "latitude": LATITUDE, "longitude": LONGITUDE}]},
                "cache": {"directory": cache},
                "state": {"directory": os.path.join(self.work, "state")},
                # The place's name (on by default) and the air: each one more call for a new place, none after.
                "air_quality": {"enabled": True},
                "inbox": {"path": inbox, "settle_seconds": 0},
                "socket": {"path": os.path.join(self.work, "wt.sock")},
                **({"timeline": {"output": timeline}} if timeline else {}),
            }, handle)
        return path

    @staticmethod
    def entry(index):
        """A diary entry of about 1 KiB; every other one has front matter."""
        body = "".join("Line %d of entry %d: the day went by, as days do, with tea and rain.\n" % (line, index)
                       for line in range(14))
        if index % 2 == 0:
            return "---\ntitle: \"Entry %d\"\ntags: [diary, bench]\n---\n\n%s" % (index, body)
        return "# Entry %d\n\n%s" % (index, body)

    def stage(self, count):
        staging = self.folder("staging", files=True)
        names = ["e%06d.md" % index for index in range(count)]
        for index, name in enumerate(names):
            with open(os.path.join(staging, name), "w") as handle:
                handle.write(self.entry(index))
        return staging, names

    def start(self, cold=True):
        inbox = self.folder("inbox", files=True)
        cache = os.path.join(self.work, "cache")
        if cold:
            shutil.rmtree(cache, ignore_errors=True)
        # The entries of each run are new ones under the same names: the memory of the last run's (given back
        # within state.forget_after_seconds of their removal) must not be there.
        shutil.rmtree(os.path.join(self.work, "state"), ignore_errors=True)
        daemon = Daemon(self.binary, self.config(inbox, cache), self.work)
        return daemon, inbox

    def socket_path(self):
        return os.path.join(self.work, "wt.sock")

    # -- figures ----------------------------------------------------------------------------------------------

    def weathertag_burst(self, count, scratch=True):
        self.fresh(scratch)
        staging, names = self.stage(count)
        kinds = ("weather", "geo", "air")
        calls_before = {kind: self.standin.calls(kind) for kind in kinds}
        daemon, inbox = self.start(cold=True)
        http_unix(self.socket_path(), "/v1/tag")  # warms the cache: one call of each kind
        idle_anon, idle_total = memory(daemon.pid)
        peak = [idle_anon, idle_total]
        done = threading.Event()

        def sample():
            while not done.is_set():
                anon, total = memory(daemon.pid)
                peak[0], peak[1] = max(peak[0], anon), max(peak[1], total)
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        cpu_before = cpu_seconds(daemon.pid)
        start = time.perf_counter()
        for name in names:
            os.rename(os.path.join(staging, name), os.path.join(inbox, name))
        while True:
            status = json.loads(http_unix(self.socket_path(), "/v1/status")[1])
            if status["entries"]["stamped"] >= count:
                break
            time.sleep(0.01)  # each look is a request the daemon answers: not too often
        seconds = time.perf_counter() - start
        # The daemon's CPU for the burst (its answers to these looks included: about 100 a second).
        cpu = cpu_seconds(daemon.pid) - cpu_before
        done.set()
        sampler.join()
        calls = {kind: self.standin.calls(kind) - calls_before[kind] for kind in kinds}
        with open(os.path.join(inbox, names[1])) as handle:
            stamped_example = handle.read()
        # What the daemon keeps once the burst is over: it gives the heap's free pages back when nothing is held
        # or in flight any more (`.giveBackMemory`), within milliseconds of the last stamp.
        time.sleep(0.5)
        after_anon, _ = memory(daemon.pid)
        daemon.stop()
        return {"seconds": seconds, "rate": count / seconds, "calls": calls, "idle_anon": idle_anon,
                "idle_total": idle_total, "peak_anon": peak[0], "peak_total": peak[1], "after_anon": after_anon,
                "example": stamped_example, "startup": daemon.startup, "cpu_us": cpu / count * 1e6}

    def syscalls(self, count, header):
        """System calls per entry during a burst of `count` (strace -c -f on the daemon, attached before the burst
        and detached once every entry is stamped), beside the limit loop's per file (strace -c -f on it)."""
        self.fresh(scratch=False)
        summary = os.path.join(self.work, "strace-daemon.txt")
        names = self.traced_burst(count, ["strace", "-c", "-f", "-o", summary, "-p"])
        ours = self.strace_counts(summary)
        # The limit loop, traced whole, on the same number of files.
        folder = self.folder("limit-trace")
        for name in names:
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(self.entry(int(name[1:7])))
        header_path = os.path.join(self.work, "header")
        with open(header_path, "w") as handle:
            handle.write(header)
        limit_summary = os.path.join(self.work, "strace-limit.txt")
        subprocess.run(["strace", "-c", "-f", "-o", limit_summary, self.fslimit, folder, header_path],
                       input="\n".join(names) + "\n", check=True, capture_output=True, text=True)
        theirs = self.strace_counts(limit_summary)
        # strace stops the daemon at every call: a burst traced by it runs several times slower, and what happens
        # per moment rather than per entry (the watcher's wake-ups, a lock tried again) counts more per entry than
        # it does at full speed. perf counts the calls' tracepoints in the kernel instead, and the burst keeps its
        # pace. (perf counts the threads the daemon has when it attaches: the daemon starts them before READY=1, and
        # a thread found after the burst that was not there before it is reported as not counted.)
        self.fresh(scratch=False)
        counted = os.path.join(self.work, "perf-syscalls.txt")
        threads = []
        self.traced_burst(count, ["perf", "stat", "-x", ",", "-o", counted, "-e", "syscalls:sys_enter_*", "-p"],
                          threads=threads)
        full_speed = self.perf_counts(counted)
        return {"count": count, "weathertag": ours, "limit": theirs, "full_speed": full_speed,
                "threads": threads}

    @staticmethod
    def perf_counts(path):
        """`perf stat -x ,` of `syscalls:sys_enter_*`: each call's count by name (those never made left out)."""
        counts = {}
        with open(path) as handle:
            for line in handle:
                fields = line.strip().split(",")
                if len(fields) >= 3 and fields[0].isdigit() and fields[2].startswith("syscalls:sys_enter_"):
                    if int(fields[0]):
                        counts[fields[2][len("syscalls:sys_enter_"):]] = int(fields[0])
        return counts

    def traced_burst(self, count, tracer, threads=None):
        """A burst of `count` in a fresh inbox (where `fresh` put the files), with `tracer` + [the daemon's pid]
        attached to the daemon from before the burst until every entry is stamped; returns the entries' names.
        `threads`, when given, gets the daemon's threads (their ids) before and after the burst."""
        staging, names = self.stage(count)
        daemon, inbox = self.start(cold=True)
        http_unix(self.socket_path(), "/v1/tag")
        tasks = os.path.join("/proc", str(daemon.pid), "task")
        if threads is not None:
            threads.append(sorted(int(tid) for tid in os.listdir(tasks)))
        process = subprocess.Popen(tracer + [str(daemon.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # strace and perf attach to each thread in turn: the moment they need before the burst.
        time.sleep(1)
        for name in names:
            os.rename(os.path.join(staging, name), os.path.join(inbox, name))
        while json.loads(http_unix(self.socket_path(), "/v1/status")[1])["entries"]["stamped"] < count:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        process.wait()
        if threads is not None:
            threads.append(sorted(int(tid) for tid in os.listdir(tasks)))
        daemon.stop()
        return names

    @staticmethod
    def strace_counts(path):
        counts = {}
        with open(path) as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
                    counts[fields[-1]] = int(fields[3])
        return counts

    # Where a stamp's time goes: each sample of `perf record -g` is counted for the innermost of these purposes on
    # its stack (a symbol matching the expression), so SQLite inside the diary index counts as the index, and
    # YAML inside the decision as the decision.
    PROFILE_PURPOSES = (
        ("reading the entry for the diary index (title, excerpt, text, time, place)", r"DiaryEntryV4read|EntryBatchO9indexItem"),
        ("the diary index in SQLite (its row, its FTS5 text, the placeholders of a listing)", r"DiaryTables|SQLiteDiaryStore"),
        ("the stamp memory in SQLite", r"SQLiteStampMemory\w*(?:remember|blocks|apply)|SQLiteEntryStore"),
        ("parsing the front matter and composing the block (the decision)", r"StampDecision|FrontMatterStamper|BackdatingPolicy"),
        ("writing the temp file, the exchange, the folder's fsync", r"EntryFileO14writeTemporary|EntryFileO8exchange|fsyncDirectory|SwappedOriginal"),
        ("opening, leasing and reading the entry", r"EntryFileO4open|EntryFileO5stamp|FileIO"),
        ("the crash guard's note", r"CrashGuard"),
        ("the watcher (inotify events, conflict copies, lock files)", r"InboxWatcher|InotifyReader|SyncConflict|EditorLock"),
        ("logging", r"Logging|LogHandler"),
        ("the inbox's machine and its loop", r"InboxStateMachine|InboxService|InboxReporter|Arrivals|EntryBatch|InboxFiles"),
        ("the bench's status requests over the socket", r"APIRouter|NIOPosix.*Channel|NIOHTTP|SocketServer"),
    )
    # Counted only when no purpose above is on the stack: the transaction around them (begin, commit, the WAL).
    PROFILE_FALLBACKS = (("the batch's SQLite transaction (begin, commit, the WAL)", r"WeathertagSQLite|StateDatabase"),)

    def profile(self, count, kind="tmpfs"):
        """A burst of `count` under `perf record -g` (on a fresh `kind`): the share of the daemon's samples each
        purpose of `PROFILE_PURPOSES` takes, and the CPU time an entry that is (the burst measured without perf)."""
        import re
        plain = self.weathertag_burst(count, scratch=kind)
        self.fresh(kind)
        data = os.path.join(self.work, "perf.data")
        # DWARF call graphs: libc, libyaml and libsqlite3 are built without frame pointers, and unwound by frame
        # pointers half of the samples lost the stack that says what they were for.
        self.traced_burst(count, ["perf", "record", "-F", "999", "--call-graph", "dwarf,16384", "-o", data, "-p"])
        script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym"], capture_output=True, text=True,
                                check=True).stdout
        purposes = [(name, re.compile(expression)) for name, expression in self.PROFILE_PURPOSES]
        fallbacks = [(name, re.compile(expression)) for name, expression in self.PROFILE_FALLBACKS]
        counts = {name: 0 for name, _ in self.PROFILE_PURPOSES + self.PROFILE_FALLBACKS}
        counts["other: the runtime, malloc, the scheduler, idle pool threads"] = 0
        for sample in script.split("\n\n"):
            frames = [line.strip().split(" ", 1)[-1] for line in sample.strip().split("\n")[1:]]
            if not frames:
                continue
            purpose = next((name for rules in (purposes, fallbacks) for frame in frames for name, expression in rules
                            if expression.search(frame)), "other: the runtime, malloc, the scheduler, idle pool threads")
            counts[purpose] += 1
        total = sum(counts.values())
        return {"count": count, "kind": kind, "cpu_us": plain["cpu_us"], "samples": total,
                "shares": {name: n / total for name, n in counts.items()}}

    def binary_size(self):
        """The installed binary's size (stripped, as `make install` puts it down), and whether it carries ICU."""
        stripped = os.path.join(self.work, "weathertag-stripped")
        subprocess.run(["strip", "-o", stripped, self.binary], check=True)
        size = os.path.getsize(stripped)
        symbols = subprocess.run(["nm", self.binary], capture_output=True, text=True).stdout
        return {"bytes": size, "icu": "icudt" in symbols}

    def limit_burst(self, count, header, scratch=True):
        self.fresh(scratch)
        staging, names = self.stage(count)
        header_path = os.path.join(self.work, "header")
        with open(header_path, "w") as handle:
            handle.write(header)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        output = subprocess.run([self.fslimit, staging, header_path], input="\n".join(names) + "\n",
                                capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = json.loads(output.stdout)
        result["rate"] = count / result["seconds"]
        result["cpu_us"] = ((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)) / count * 1e6
        return result

    def script_burst(self, count):
        self.fresh()
        staging, names = self.stage(count)
        inbox = self.folder("script-inbox", files=True)
        calls_before = self.standin.calls()
        script = subprocess.Popen(
            [os.path.join(ROOT, "bench/stamp-script.sh"), inbox, self.standin.base_url, KEY, str(LATITUDE),
             str(LONGITUDE)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(0.5)  # inotifywait prints nothing when its watch is set up; give it a moment before the burst
        start = time.perf_counter()
        for name in names:
            os.rename(os.path.join(staging, name), os.path.join(inbox, name))
        deadline = time.time() + 600
        while self.standin.calls() - calls_before < count and time.time() < deadline:
            time.sleep(0.05)
        pending = list(names)
        while pending and time.time() < deadline:
            with open(os.path.join(inbox, pending[-1])) as handle:
                if "\nweather:\n" in handle.read():
                    pending.pop()
                    continue
            time.sleep(0.02)
        seconds = time.perf_counter() - start
        os.killpg(script.pid, signal.SIGTERM)
        script.wait()
        return {"seconds": seconds, "rate": count / seconds, "calls": self.standin.calls() - calls_before,
                "complete": not pending}

    def latency(self, count, rate):
        self.fresh()
        daemon, inbox = self.start(cold=True)
        http_unix(self.socket_path(), "/v1/tag")
        staging, names = self.stage(count)
        watcher = StampWatcher(inbox)
        watcher.start()
        dropped = paced(names, rate, lambda name: os.rename(os.path.join(staging, name), os.path.join(inbox, name)))
        deadline = time.time() + 30
        while len(watcher.stamped) < count and time.time() < deadline:
            time.sleep(0.01)
        watcher.running = False
        daemon.stop()
        latencies = sorted((watcher.stamped[name] - dropped[name]) * 1000 for name in names
                           if name in watcher.stamped)
        return {"p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
                "seen": len(latencies)}

    def limit_latency(self, count, rate, header):
        """The limit loop's drop-to-stamp time measured as `latency` measures the daemon's: each file's name handed
        to it at `rate` per second on a fresh filesystem, and the moment its stamped version is renamed in seen by
        the same watcher. A disk that stalls for a moment holds back every stamp made in that moment, the daemon's
        and the loop's alike; a burst would let the loop's stall count for one file of thousands."""
        self.fresh()
        staging, names = self.stage(count)
        header_path = os.path.join(self.work, "header")
        with open(header_path, "w") as handle:
            handle.write(header)
        watcher = StampWatcher(staging, suffix=".tmp")
        watcher.start()
        loop = subprocess.Popen([self.fslimit, staging, header_path], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, text=True)

        def hand(name):
            loop.stdin.write(name + "\n")
            loop.stdin.flush()

        dropped = paced(names, rate, hand)
        loop.stdin.close()
        loop.wait()
        deadline = time.time() + 30
        while len(watcher.stamped) < count and time.time() < deadline:
            time.sleep(0.01)
        watcher.running = False
        latencies = sorted((watcher.stamped[name] - dropped[name]) * 1000 for name in names
                           if name in watcher.stamped)
        return {"p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
                "seen": len(latencies)}

    def restore_latency(self, count, rate):
        """Entries stamped, then each written again unstamped the way rsync does (a temp file renamed over it):
        the time until the remembered block is back, and whether it is the same block."""
        self.fresh()
        daemon, inbox = self.start(cold=True)
        http_unix(self.socket_path(), "/v1/tag")
        staging, names = self.stage(count)
        originals = {}
        for name in names:
            with open(os.path.join(staging, name)) as handle:
                originals[name] = handle.read()
            os.rename(os.path.join(staging, name), os.path.join(inbox, name))
        deadline = time.time() + 60
        while json.loads(http_unix(self.socket_path(), "/v1/status")[1])["entries"]["stamped"] < count:
            if time.time() > deadline:
                raise RuntimeError("the entries were not stamped")
            time.sleep(0.01)
        stamped = {}
        for name in names:
            with open(os.path.join(inbox, name)) as handle:
                stamped[name] = handle.read()
        watcher = StampWatcher(inbox)
        watcher.start()

        def write_again(name):
            # The unstamped version, as rsync writes it: a temp file renamed over the entry.
            temporary = os.path.join(inbox, "." + name + ".rsync")
            with open(temporary, "w") as handle:
                handle.write(originals[name])
            os.rename(temporary, os.path.join(inbox, name))

        written = paced(names, rate, write_again)
        deadline = time.time() + 30
        while len(watcher.stamped) < count and time.time() < deadline:
            time.sleep(0.01)
        watcher.running = False
        restored = json.loads(http_unix(self.socket_path(), "/v1/status")[1])["entries"]["restored"]
        same = 0
        for name in names:
            with open(os.path.join(inbox, name)) as handle:
                same += handle.read() == stamped[name]
        daemon.stop()
        latencies = sorted((watcher.stamped[name] - written[name]) * 1000 for name in names
                           if name in watcher.stamped)
        return {"p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99), "restored": restored,
                "same": same, "count": count}

    def socket_throughput(self, server_socket, connections, seconds):
        output = subprocess.run([self.loadgen, server_socket, "/v1/tag", str(connections), str(seconds), "1"],
                                capture_output=True, text=True, check=True)
        result = json.loads(output.stdout)
        # A server that answers with errors is measured serving error pages: the row would compare nothing.
        if result["errors"] or result["non_200"]:
            raise RuntimeError("%s answered %d requests with errors and %d with a status other than 200" % (
                server_socket, result["errors"], result["non_200"]))
        return result

    def nginx(self, body):
        root = self.folder("nginx")
        with open(os.path.join(root, "tag.json"), "w") as handle:
            handle.write(body)
        socket_path = os.path.join(root, "nginx.sock")
        config = os.path.join(root, "nginx.conf")
        with open(config, "w") as handle:
            # As root, nginx's workers run as `nobody`, who cannot enter the bench's private folder: every answer
            # was a 403 (until 2026-11 the rows compared weathertag with nginx's error page). They run as the
            # bench's own user instead.
            handle.write(("user root;\n" if os.geteuid() == 0 else "") + """
worker_processes auto;
daemon off;
pid %(root)s/nginx.pid;
error_log %(root)s/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    client_body_temp_path %(root)s/tmp; proxy_temp_path %(root)s/tmp; fastcgi_temp_path %(root)s/tmp;
    uwsgi_temp_path %(root)s/tmp; scgi_temp_path %(root)s/tmp;
    server {
        listen unix:%(socket)s;
        location = /v1/tag { default_type application/json; add_header Cache-Control no-store;
                             alias %(root)s/tag.json; }
    }
}
""" % {"root": root, "socket": socket_path})
        process = subprocess.Popen(["nginx", "-c", config, "-p", root], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(socket_path) and time.time() < deadline:
            time.sleep(0.01)
        return process, socket_path

    WORDS = ("tea rain river bridge market letter garden window train station mountain harbour lantern snow "
             "coffee bread library bicycle festival museum ferry island forest temple cherry blossom autumn leaves "
             "winter spring summer evening morning night friend mother father sister brother cousin teacher "
             "concert painting photograph notebook pencil umbrella kitchen dinner breakfast picnic beach shell "
             "lighthouse storm thunder fog mist sunrise sunset moon stars walk run swim read write sleep dream").split()
    CONDITIONS = (("Clear", "clear sky", "01d"), ("Clouds", "broken clouds", "04d"), ("Rain", "light rain", "10d"),
                  ("Snow", "light snow", "13d"), ("Mist", "mist", "50d"), ("Thunderstorm", "thunderstorm", "11d"))
    PLACES = ("Seoul", "Busan", "Gangneung", "Jeonju", "Gyeongju", "Sokcho", "Mokpo", "Daegu")
    # Where each place is, for the stamp's location (and the map).
    COORDINATES = ((37.566, 126.978), (35.180, 129.076), (37.752, 128.876), (35.824, 127.148), (35.856, 129.225),
                   (38.207, 128.592), (34.812, 126.392), (35.871, 128.601))

    def stamped_entry(self, index, random):
        """An entry written on a day of the ten years before 2026, stamped then (its block in it), about 1 KiB."""
        condition = self.CONDITIONS[index % len(self.CONDITIONS)]
        day = time.gmtime(1_451_606_400 + index * (315_360_000 // 50_000) + 34_200)
        words = " ".join(random.choice(self.WORDS) for _ in range(120))
        latitude, longitude = self.COORDINATES[index % len(self.COORDINATES)]
        # Somewhere in the town, as a phone's fix would be (three decimals, as privacy rounds them).
        latitude += random.uniform(-0.05, 0.05)
        longitude += random.uniform(-0.05, 0.05)
        return ("---\ntitle: \"Entry %d\"\ndate: %s\nweather:\n  condition: %s\n  description: %s\n  icon: %s\n"
                "  temperature: %.1f\n  units: metric\n  place: %s\n  country: KR\n  kind: current\n  location:\n"
                "    latitude: %.3f\n    longitude: %.3f\n    source: gpsd\n---\n\n%s\n") % (
            index, time.strftime("%Y-%m-%dT%H:%M:%SZ", day), condition[0], condition[1], condition[2],
            random.uniform(-10, 32), self.PLACES[index % len(self.PLACES)], latitude, longitude, words)

    def until(self, daemon, done):
        """Polls `/v1/status` until `done(status)`: the seconds it took, and the daemon's peak (private, total)
        RSS in KiB meanwhile."""
        start = time.perf_counter()
        peak = [0, 0]
        while True:
            anon, total = memory(daemon.pid)
            peak = [max(peak[0], anon), max(peak[1], total)]
            if done(json.loads(http_unix(self.socket_path(), "/v1/status")[1])):
                return time.perf_counter() - start, peak
            time.sleep(0.05)

    def diary_index(self, count):
        """`count` entries stamped earlier, and no state database: the time from READY until all are indexed
        again, then text searches and filtered pages over the socket (a new connection each, as `weathertag
        entries` makes), and the memory meanwhile."""
        import random as random_module
        random = random_module.Random(13)
        self.fresh()
        inbox = self.folder("inbox", files=True)
        for index in range(count):
            folder = os.path.join(inbox, "%04d" % (2016 + index * 10 // count))
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "e%06d.md" % index), "w") as handle:
                handle.write(self.stamped_entry(index, random))
        shutil.rmtree(os.path.join(self.work, "state"), ignore_errors=True)
        # The reference: reading the same files, as `find -exec cat` does (the page cache as warm for both).
        began = time.perf_counter()
        subprocess.run("find %s -type f -name '*.md' -exec cat {} + > /dev/null" % inbox, shell=True, check=True)
        cat = time.perf_counter() - began
        daemon = Daemon(self.binary, self.config(inbox, os.path.join(self.work, "cache")), self.work)

        # Done when the last batch is reported: its rows are committed by then (one transaction with its memory).
        # The lanes below are read from the index, but `/v1/status` keeps them for a second, which would add up to
        # a second to the figure; they are checked after it.
        def reported(status):
            return status["entries"]["already_stamped"] + status["entries"]["stamped"] >= count

        def rebuilt(status):
            lanes = status.get("lanes") or {}
            return sum(lane["count"] for lane in lanes.values()) >= count and lanes["stamped"]["count"] >= count

        rebuild, peak = self.until(daemon, reported)
        began = time.perf_counter()
        self.until(daemon, lambda status: rebuilt(status) or time.perf_counter() - began > 10)
        if not rebuilt(json.loads(http_unix(self.socket_path(), "/v1/status")[1])):
            raise RuntimeError("every entry reported, and the index does not list them all as stamped")

        def timed(targets):
            times = []
            for target in targets:
                began = time.perf_counter()
                code, body = http_unix(self.socket_path(), target)
                times.append((time.perf_counter() - began) * 1000)
                if code != 200:
                    raise RuntimeError("%s: %d %s" % (target, code, body[:200]))
            return sorted(times)

        searches = timed("/v1/entries?q=%s&limit=50" % "%20".join(random.sample(self.WORDS, random.choice((1, 2))))
                         for _ in range(300))
        pages = timed("/v1/entries?condition=%s&place=%s&since=%d-01-01&until=%d-12-31&limit=50" % (
            random.choice(self.CONDITIONS)[0], random.choice(self.PLACES), year, year + 2)
            for year in (random.randrange(2016, 2024) for _ in range(300)))
        anon, total = memory(daemon.pid)
        database = sum(os.path.getsize(os.path.join(self.work, "state", name))
                       for name in os.listdir(os.path.join(self.work, "state")))
        drawn = self.map_and_page(os.path.join(self.work, "config.json"))
        daemon.stop()
        return {"count": count, "rebuild": rebuild, "cat": cat, "search_p50": percentile(searches, 50),
                "search_p99": percentile(searches, 99), "page_p50": percentile(pages, 50),
                "page_p99": percentile(pages, 99), "peak_anon": peak[0], "peak_total": peak[1], "anon": anon,
                "database": database, "map": drawn}

    def map_and_page(self, config):
        """`weathertag map` and `weathertag timeline` of the whole diary through the running daemon, each run
        alone: its wall time, the file's size and the command's peak RSS (wait4's ru_maxrss, KiB); median of three."""
        environment = dict(os.environ, WEATHERTAG_MAP=os.path.join(ROOT, ".build/map"),
                           WEATHERTAG_TOWNS=os.path.join(ROOT, ".build/towns"), LANG="en_US.UTF-8")
        results = {}
        for name, command, output in (("map", "map", "map.svg"), ("page", "timeline", "page.html")):
            path = os.path.join(self.work, output)
            runs = []
            for _ in range(3):
                began = time.perf_counter()
                child = subprocess.Popen([self.binary, command, "--config", config, "--output", path],
                                         env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                _, status, usage = os.wait4(child.pid, 0)
                seconds = time.perf_counter() - began
                if status != 0:
                    raise RuntimeError("%s: %s" % (command, child.stderr.read()[:400]))
                runs.append((seconds, usage.ru_maxrss))
            seconds, rss = sorted(runs)[1]
            results[name] = {"seconds": seconds, "bytes": os.path.getsize(path), "peak_rss": rss}
        return results

    def track_year(self, seconds_apart=10, days=365, one_file=False):
        """A year of GPX points `seconds_apart` (3.15 million at 10 s) in a file a day, as GPSLogger writes them;
        the time from READY until the `track` provider has indexed them all, then "where was I at T" for random
        moments of the year over the socket (`GET /v1/location?at=`, a connection each, as the history's lookups
        are one at a time), the index's size on disk, and the memory meanwhile."""
        import math
        import random as random_module
        random = random_module.Random(29)
        tracks = self.folder("tracks")
        start_of_year = 1_735_689_600  # 2025-01-01T00:00:00Z
        per_day = 86_400 // seconds_apart
        written = 0
        header = ('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="GPSLogger 131" '
                  'xmlns="http://www.topografix.com/GPX/1/1">\n')
        if one_file:
            with open(os.path.join(tracks, "all.gpx"), "w") as handle:
                handle.write(header)
        for day in range(days):
            lines = [] if one_file else [header]
            lines.append('<trk><name>day %d</name><trkseg>\n' % day)
            for step in range(per_day):
                t = start_of_year + day * 86_400 + step * seconds_apart
                angle = 2 * math.pi * (t % 86_400) / 86_400
                lines.append('<trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele><time>%s</time><hdop>%.1f</hdop>'
                             '</trkpt>\n' % (37.55 + 0.05 * math.sin(angle) + day * 1e-4,
                                             126.98 + 0.05 * math.cos(angle), 40 + 5 * math.sin(angle),
                                             time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)),
                                             0.8 + (step % 7) / 10))
            lines.append("</trkseg></trk>\n")
            if one_file:
                with open(os.path.join(tracks, "all.gpx"), "a") as handle:
                    handle.write("".join(lines) + ("</gpx>\n" if day == days - 1 else ""))
            else:
                with open(os.path.join(tracks, "%s.gpx" % time.strftime(
                        "%Y%m%d", time.gmtime(start_of_year + day * 86_400))), "w") as handle:
                    handle.write("".join(lines) + "</gpx>\n")
            written += per_day
        size = sum(os.path.getsize(os.path.join(tracks, name)) for name in os.listdir(tracks))
        shutil.rmtree(os.path.join(self.work, "state"), ignore_errors=True)
        config = self.config(self.folder("inbox"), os.path.join(self.work, "cache"))
        with open(config) as handle:
            document = json.load(handle)
        document["location"]["providers"].insert(0, {"type": "track", "path": tracks})
        with open(config, "w") as handle:
            json.dump(document, handle)
        daemon = Daemon(self.binary, config, self.work)

        def indexed(status):
            if status["providers"][0].get("track_error"):
                raise RuntimeError(status["providers"][0]["track_error"])
            return status["providers"][0].get("indexed") == "yes"

        indexing, peak = self.until(daemon, indexed)
        track = json.loads(http_unix(self.socket_path(), "/v1/status")[1])["providers"][0]
        points = int(track["track_points"])
        if points != written:
            raise RuntimeError("indexed %d points of %d" % (points, written))
        times = []
        for _ in range(2000):
            moment = start_of_year + random.uniform(0, days * 86_400 - seconds_apart)
            target = "/v1/location?at=%s" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))
            began = time.perf_counter()
            code, body = http_unix(self.socket_path(), target)
            times.append((time.perf_counter() - began) * 1000)
            if code != 200 or json.loads(body).get("source") != "track":
                raise RuntimeError("%s: %d %s" % (target, code, body[:200]))
        times.sort()
        anon, total = memory(daemon.pid)
        index = sum(os.path.getsize(os.path.join(self.work, "state", name))
                    for name in os.listdir(os.path.join(self.work, "state")) if name.startswith("tracks.sqlite"))
        daemon.stop()
        shutil.rmtree(tracks, ignore_errors=True)
        return {"points": points, "files": 1 if one_file else days, "gpx": size, "indexing": indexing, "lookup_p50": percentile(times, 50),
                "lookup_p99": percentile(times, 99), "index": index, "peak_anon": peak[0], "peak_total": peak[1],
                "anon": anon}

    def keyless_history_config(self, inbox):
        """A configuration without an OpenWeather key (Open-Meteo, the stand-in's), history on, and no state: what
        a diary moved in or imported meets on a fresh machine."""
        shutil.rmtree(os.path.join(self.work, "state"), ignore_errors=True)
        config = self.config(inbox, os.path.join(self.work, "cache"))
        with open(config) as handle:
            document = json.load(handle)
        del document["openweather"]["api_key"]
        document["open_meteo"] = {"base_url": self.standin.base_url, "archive_url": self.standin.base_url,
                                  "air_quality_url": self.standin.base_url}
        document["history"] = {"enabled": True}
        with open(config, "w") as handle:
            json.dump(document, handle)
        return config

    def ten_year_diary(self, days=3650):
        """A diary of ten years written in three towns (a day each, the towns taking turns) moved into the inbox
        at once, keyless, with `history` on and Open-Meteo's limits as configured by default: the time until every
        entry is stamped with its own hour's weather, the requests and weighted calls spent, the memory
        meanwhile."""
        self.fresh()
        staging = self.folder("staging", files=True)
        towns = [(46.2, 6.15), (47.37, 8.54), (37.57, 126.98)]
        first = 1_420_113_600  # 2015-01-01T12:00:00Z
        for day in range(days):
            latitude, longitude = towns[day % 3]
            with open(os.path.join(staging, "%s.md" % time.strftime("%Y-%m-%d", time.gmtime(first + day * 86_400))),
                      "w") as handle:
                handle.write("---\nlocation: [%s, %s]\n---\nDay %d of the diary.\n" % (latitude, longitude, day))
        inbox = self.folder("inbox", files=True)
        config = self.keyless_history_config(inbox)
        archive_before = len(json.loads(http_tcp(self.standin.port, "/_queries/open-meteo-archive")))
        daemon = Daemon(self.binary, config, self.work)
        for name in os.listdir(staging):
            os.rename(os.path.join(staging, name), os.path.join(inbox, name))

        def all_stamped(status):
            return status["entries"]["stamped"] >= days

        seconds, peak = self.until(daemon, all_stamped)
        status = json.loads(http_unix(self.socket_path(), "/v1/status")[1])
        queries = json.loads(http_tcp(self.standin.port, "/_queries/open-meteo-archive"))[archive_before:]
        weight = 0.0
        for query in queries:
            start = time.mktime(time.strptime(query["start_date"], "%Y-%m-%d"))
            end = time.mktime(time.strptime(query["end_date"], "%Y-%m-%d"))
            weight += 1.4 * ((end - start) / 86_400 + 1) / 14
        daemon.stop()
        return {"entries": days, "seconds": seconds, "requests": len(queries), "weight": weight,
                "history_requests": status["history"]["requests"], "peak_anon": peak[0], "peak_total": peak[1]}

    def dayone_import(self, days=3650):
        """A ten-year Day One export (a day an entry, three towns, half with Day One's own weather) imported with
        `weathertag import dayone`, keyless, the other half's weather from Open-Meteo's archive: the wall time and
        the command's peak RSS, beside `cp -r` of the diary it wrote."""
        self.fresh()
        towns = [(46.2, 6.15, "Geneva", "Europe/Zurich"), (47.37, 8.54, "Zurich", "Europe/Zurich"),
                 (37.57, 126.98, "Seoul", "Asia/Seoul")]
        codes = [("clear", "Clear"), ("mostly-cloudy", "Mostly Cloudy"), ("rain", "Light Rain"),
                 ("fair", "Fair"), ("snow", "Snow")]
        first = 1_420_113_600  # 2015-01-01T12:00:00Z
        entries = []
        for day in range(days):
            latitude, longitude, name, zone = towns[day % 3]
            created = first + day * 86_400
            entry = {"uuid": "%032X" % (day + 1), "creationDate": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                                 time.gmtime(created)),
                     "timeZone": zone, "starred": day % 17 == 0, "tags": ["day %d" % (day % 7)],
                     "text": "# Day %d\n\nA page of the diary\\. Written in %s\\." % (day, name),
                     "location": {"placeName": name, "localityName": name, "country": "Somewhere",
                                  "latitude": latitude, "longitude": longitude}}
            if day % 2 == 0:
                code, words = codes[day % len(codes)]
                entry["weather"] = {"temperatureCelsius": 10 + day % 20, "conditionsDescription": words,
                                    "weatherCode": code, "weatherServiceName": "HAMweather",
                                    "relativeHumidity": 70, "windSpeedKPH": 11, "pressureMB": 1013}
            entries.append(entry)
        export = os.path.join(self.work, "Journal.json")
        with open(export, "w") as handle:
            json.dump({"metadata": {"version": "1.0"}, "entries": entries}, handle, indent=2)
        diary = self.folder("diary", files=True)
        config = self.keyless_history_config(self.folder("inbox", files=True))
        peak_file = os.path.join(self.work, "import-peak.txt")
        start = time.perf_counter()
        run = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak_file, self.binary, "import", "dayone", export,
                              "--into", diary, "--config", config],
                             capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                                                   "HOME": self.work})
        seconds = time.perf_counter() - start
        with open(peak_file) as handle:
            peak = int(handle.read().split()[-1])
        if run.returncode != 0 or ("imported %d entries" % days) not in run.stdout:
            raise RuntimeError("import: %d %s %s" % (run.returncode, run.stdout[-500:], run.stderr[-500:]))
        historical = 0
        for folder, _, names in os.walk(diary):
            for name in names:
                with open(os.path.join(folder, name)) as handle:
                    if "  kind: historical\n" in handle.read():
                        historical += 1
        start = time.perf_counter()
        subprocess.run(["cp", "-r", diary, diary + "-copy"], check=True)
        copy = time.perf_counter() - start
        return {"entries": days, "seconds": seconds, "copy_seconds": copy, "historical": historical,
                "export": os.path.getsize(export), "peak_rss": peak}

    def daemon_page(self, count):
        """The daemon's own timeline page (`timeline.output`) of `count` entries dropped at once: its private RSS
        while it writes the page (after the last stamp, until the page holds them all) and half a second after."""
        self.fresh(scratch=False)
        inbox = self.folder("inbox", files=True)
        for index in range(count):
            with open(os.path.join(inbox, "e%06d.md" % index), "w") as handle:
                handle.write(self.entry(index))
        shutil.rmtree(os.path.join(self.work, "state"), ignore_errors=True)
        page = os.path.join(self.work, "timeline.html")
        daemon = Daemon(self.binary, self.config(inbox, os.path.join(self.work, "cache"), timeline=page), self.work)
        peak, writing, done = [0], threading.Event(), threading.Event()

        def sample():
            while not done.is_set():
                anon, _ = memory(daemon.pid)
                if writing.is_set():
                    peak[0] = max(peak[0], anon)
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        start = time.perf_counter()
        try:
            while True:
                status = json.loads(http_unix(self.socket_path(), "/v1/status")[1])
                if status["entries"]["stamped"] >= count:
                    writing.set()
                timeline = status.get("timeline") or {}
                if writing.is_set() and timeline.get("entries") == count and not timeline.get("stale"):
                    break
                time.sleep(0.05)
            seconds = time.perf_counter() - start
            time.sleep(0.5)
            after, _ = memory(daemon.pid)
        finally:
            done.set()
            sampler.join()
            daemon.stop()
        return {"count": count, "seconds": seconds, "peak_anon": peak[0], "after_anon": after,
                "bytes": os.path.getsize(page)}

    def only(self, figure):
        """One figure alone, for trying a change to what it measures."""
        if figure == "page":
            log(json.dumps(self.daemon_page(5000 if self.quick else 50000)))
        elif figure == "diary":
            log(json.dumps(self.ten_year_diary(365 if self.quick else 3650)))
        elif figure == "import":
            log(json.dumps(self.dayone_import(365 if self.quick else 3650)))
        elif figure == "track":
            log(json.dumps(self.track_year(days=36 if self.quick else 365)))
            log(json.dumps(self.track_year(days=10 if self.quick else 100, one_file=True)))
        elif figure == "burst":
            self.burst_only()
        elif figure == "socket":
            log(json.dumps(self.socket_only()))
        elif figure == "startup":
            log(json.dumps(self.startup_only()))
        elif figure == "profile":
            log(json.dumps(self.profile(self.burst, self.filesystems[0] if self.filesystems != ["journal"] else "tmpfs"),
                           indent=1))
        elif figure == "syscalls":
            header = self.weathertag_burst(10)["example"].split("# Entry 1")[0]
            log(json.dumps(self.syscalls(500 if self.quick else 2000, header)))
            log(json.dumps(self.binary_size()))
        elif figure in ("index", "map"):
            log(json.dumps(self.diary_index(self.burst if figure == "index" else 50000)))
        elif figure == "growth":
            result = self.weathertag_burst(self.burst)
            log(json.dumps({key: value for key, value in result.items() if key != "example"}))
        elif figure == "latency":
            header = self.weathertag_burst(10)["example"].split("# Entry 1")[0]
            log(json.dumps([(self.latency(200, 20), self.limit_latency(200, 20, header)) for _ in range(self.runs)]))
        else:
            log(json.dumps([self.restore_latency(200, 20) for _ in range(self.runs)]))

    def socket_only(self):
        """The socket beside nginx at 1, 8 and 64 connections, each as `run` measures it."""
        daemon, _ = self.start(cold=False)
        _, body = http_unix(self.socket_path(), "/v1/tag")
        nginx, nginx_socket = self.nginx(body)
        seconds = 2 if self.quick else 5
        results = {}
        try:
            for connections in (1, 8, 64):
                for server, path in (("weathertag", self.socket_path()), ("nginx", nginx_socket)):
                    runs = [self.socket_throughput(path, connections, seconds) for _ in range(self.runs)]
                    results["%s %d" % (server, connections)] = runs
        finally:
            nginx.terminate()
            nginx.wait()
            daemon.stop()
        return results

    def startup_only(self):
        """Ten starts to READY=1 with a warm cache, in ms."""
        self.fresh(scratch=False)
        cache = os.path.join(self.work, "cache")
        startups = []
        for _ in range(10):
            daemon = Daemon(self.binary, self.config(self.folder("inbox"), cache), self.work)
            startups.append(round(daemon.startup * 1000, 1))
            daemon.stop()
        return startups

    def burst_only(self):
        """The burst alone, interleaved with the limit as in `run`, on each kind of filesystem (`--filesystem`): for
        trying a change to the stamping path."""
        for kind in self.filesystems:
            ratios = []
            for _ in range(self.burst_runs):
                ours = self.weathertag_burst(self.burst, scratch=kind)
                header = ours["example"].split("# Entry 1")[0]
                limit = self.limit_burst(self.burst, header, scratch=kind)
                ratios.append(ours["rate"] / limit["rate"])
                log("%s: weathertag %.0f/s (%.0f µs CPU an entry), limit %.0f/s (%.0f µs): %.1f %%" % (
                    kind, ours["rate"], ours["cpu_us"], limit["rate"], limit["cpu_us"], 100 * ratios[-1]))
            log("%s: median %.1f %%" % (kind, 100 * statistics.median(ratios)))

    def run(self):
        runs, burst = self.runs, self.burst
        log("== burst of %d: weathertag vs the filesystem limit (%d runs)" % (burst, self.burst_runs))
        # Interleaved: on ext4 a burst of deletions slows the next inode allocations for a minute
        # (`recently_deleted`), so each side runs after the other the same number of times.
        # On each kind of fresh filesystem: a journaled ext4 (the target, where fsync hides the rest), and where
        # fsync is cheap and the daemon's own work shows: ext4 without a journal, and tmpfs.
        self.results["bursts"] = {}
        for kind in (Scratch.KINDS if self.scratch.available else (False,)):
            if kind != "journal":
                log("== the same on %s" % (kind if kind else describe_filesystem(self.work)))
            weathertag, limit = [], []
            for _ in range(self.burst_runs):
                weathertag.append(self.weathertag_burst(burst, scratch=kind))
                header = weathertag[0]["example"].split("# Entry 1")[0]
                limit.append(self.limit_burst(burst, header, scratch=kind))
            self.results["bursts"][kind] = (weathertag, limit)
        self.results["burst"] = self.results["bursts"][Scratch.KINDS[0] if self.scratch.available else False]

        log("== system calls per entry (strace -c -f), and the binary")
        self.results["syscalls"] = self.syscalls(500 if self.quick else 2000, header)
        self.results["binary"] = self.binary_size()

        script_count = 50 if self.quick else 500
        log("== the script, burst of %d" % script_count)
        self.results["script"] = [self.script_burst(script_count)]

        log("== drop-to-stamp latency, 20 entries/s, beside the limit loop handed the same files at the same pace")
        self.results["latency"], self.results["limit_latency"] = [], []
        for _ in range(runs):
            self.results["latency"].append(self.latency(40 if self.quick else 200, 20))
            self.results["limit_latency"].append(self.limit_latency(40 if self.quick else 200, 20, header))

        log("== restoring a block after an overwrite, 20 entries/s")
        self.results["restore"] = [self.restore_latency(40 if self.quick else 200, 20) for _ in range(runs)]

        log("== start-up to READY=1 with a warm cache")
        self.fresh(scratch=False)
        startups = []
        cache = os.path.join(self.work, "cache")
        for _ in range(10):
            daemon = Daemon(self.binary, self.config(self.folder("inbox"), cache), self.work)
            startups.append(daemon.startup * 1000)
            daemon.stop()
        self.results["startup"] = startups

        log("== socket: GET /v1/tag, keep-alive, weathertag vs nginx")
        daemon, _ = self.start(cold=False)
        _, body = http_unix(self.socket_path(), "/v1/tag")
        nginx, nginx_socket = self.nginx(body)
        seconds = 2 if self.quick else 5
        socket_results = {}
        for connections in (1, 8, 64):
            for server, path in (("weathertag", self.socket_path()), ("nginx", nginx_socket)):
                socket_results[(server, connections)] = [
                    self.socket_throughput(path, connections, seconds) for _ in range(runs)]
        idle_anon, idle_total = memory(daemon.pid)
        self.results["socket_memory"] = (idle_anon, idle_total)
        nginx.terminate()
        nginx.wait()
        daemon.stop()
        self.results["socket"] = socket_results

        log("== the diary index at %d entries" % (5000 if self.quick else 50000))
        self.results["index"] = self.diary_index(5000 if self.quick else 50000)

        log("== the daemon's own timeline page of %d entries" % (5000 if self.quick else 50000))
        self.results["daemon_page"] = self.daemon_page(5000 if self.quick else 50000)

        log("== a year of GPX points for the track provider")
        self.results["track"] = self.track_year(days=36 if self.quick else 365)
        log("== one GPX file of 100 MB")
        self.results["track_file"] = self.track_year(days=10 if self.quick else 100, one_file=True)

        log("== a ten-year diary in three towns moved in, history from Open-Meteo's archive (once)")
        self.results["diary"] = self.ten_year_diary(365 if self.quick else 3650)

        log("== a ten-year Day One export imported")
        self.results["import"] = self.dayone_import(365 if self.quick else 3650)

        log("== cost growth")
        sizes = (500, 5000) if self.quick else (500, 5000, 50000)
        self.results["growth"] = {size: self.weathertag_burst(size) for size in sizes}


def paced(names, rate, act):
    """Calls `act(name)` for each name, `rate` per second; returns when each call started (perf_counter)."""
    started = {}
    interval = 1.0 / rate
    next_call = time.perf_counter()
    for name in names:
        while time.perf_counter() < next_call:
            time.sleep(min(0.001, max(0.0, next_call - time.perf_counter())))
        started[name] = time.perf_counter()
        act(name)
        next_call += interval
    return started


def percentile(values, p):
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def median_spread(values, digits=1):
    values = sorted(values)
    middle = statistics.median(values)
    if len(values) == 1:
        return ("%." + str(digits) + "f") % middle
    return ("%." + str(digits) + "f (%." + str(digits) + "f–%." + str(digits) + "f)") % (middle, values[0], values[-1])


def verdict(ok):
    return "met" if ok else "**missed**"


def drop_from_page_cache(path):
    """Drops the binary's pages from the page cache, so that they are read from disk as after a boot, not found as
    the linker wrote them. It matters for total RSS: a kernel with large page-cache folios reads a binary in folios
    of up to 2 MiB (with a large read-ahead) and maps a whole folio for its first byte run, where the pages the
    linker wrote are mapped 64 KiB at a time (a byte touched in each MiB of the binary mapped 14.5 MiB of it read
    from disk, 5.5 MiB as `cp` had written it)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


def hot_text_coverage(binary, order):
    """(listed, defined): how many functions release/hot-text.order lists, and how many of those the binary defines:
    the list ages as the code changes (`make hot-text` writes it again)."""
    with open(order) as handle:
        listed = [line.strip() for line in handle if line.strip()]
    symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True).stdout
    defined = {fields[2] for fields in (line.split() for line in symbols.splitlines()) if len(fields) == 3}
    return len(listed), sum(1 for name in listed if name in defined)


def read_ahead(path):
    """The read-ahead of the block device under `path`, in KiB (None when it is not a plain block device)."""
    device = os.stat(path).st_dev
    try:
        with open("/sys/dev/block/%d:%d/queue/read_ahead_kb" % (os.major(device), os.minor(device))) as handle:
            return int(handle.read())
    except OSError:
        return None


def machine(bench):
    model = "unknown CPU"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as meminfo:
        memory_kib = int(meminfo.readline().split()[1])
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    if bench.scratch.available:
        files = "file figures each on a fresh %.1f GiB ext4 with a journal (loop device); %s is %s" % (
            Scratch.SIZE_MIB / 1024, bench.work.rsplit("/", 1)[0], describe_filesystem(bench.work))
    else:
        files = "file figures in %s (%s; %s)" % (bench.work, describe_filesystem(bench.work), bench.scratch.reason)
    nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    ahead = read_ahead(bench.binary)
    binary = "the binary dropped from the page cache first%s%s" % (
        ", read ahead %d KiB at a time" % ahead if ahead is not None else "",
        "; %d of release/hot-text.order's %d functions defined in it" % (bench.hot_text[1], bench.hot_text[0])
        if bench.hot_text else "")
    return ("%s, %d cores, %.0f GiB RAM, Linux %s; %s; %s; %s; %s" % (
        model, os.cpu_count(), memory_kib / 2 ** 20, platform.release(), files, binary,
        swift[0] if swift else "swift ?", nginx))


def report(bench):
    results = bench.results
    rows = []
    weathertag, limit = results["burst"]
    w_rate = statistics.median(r["rate"] for r in weathertag)
    l_rate = statistics.median(r["rate"] for r in limit)
    rows.append(("burst throughput (%d entries, warm cache)" % bench.burst,
                 "weathertag %s entries/s; filesystem limit %s files/s; ratio %.0f %%" % (
                     median_spread([r["rate"] for r in weathertag], 0), median_spread([r["rate"] for r in limit], 0),
                     100 * w_rate / l_rate),
                 "≥ 90 %% of the limit: %s" % verdict(w_rate >= 0.9 * l_rate)))
    names = {"no-journal": "a fresh ext4 without a journal", "tmpfs": "a fresh tmpfs"}
    for kind, (kind_w, kind_l) in results.get("bursts", {}).items():
        if kind not in names:
            continue
        ratio = statistics.median(r["rate"] for r in kind_w) / statistics.median(r["rate"] for r in kind_l)
        rows.append(("the same burst on %s" % names[kind],
                     "weathertag %s entries/s; filesystem limit %s files/s; ratio %.0f %%" % (
                         median_spread([r["rate"] for r in kind_w], 0), median_spread([r["rate"] for r in kind_l], 0),
                         100 * ratio),
                     "≥ 90 %% of the limit: %s" % verdict(ratio >= 0.9)))
    cpu_rows = [(kind, [r["cpu_us"] for r in kind_w], [r["cpu_us"] for r in kind_l])
                for kind, (kind_w, kind_l) in results.get("bursts", {}).items()]
    if cpu_rows:
        worst_cpu = max(statistics.median(ours) for _, ours, _ in cpu_rows)
        rows.append(("the daemon's CPU time (user + system, /proc/PID/stat) per stamped entry in these bursts",
                     "; ".join("%s: weathertag %s µs, the limit loop %s µs" % (
                         {"journal": "journaled ext4"}.get(kind, names.get(kind, "the work folder")),
                         median_spread(ours, 0), median_spread(theirs, 0)) for kind, ours, theirs in cpu_rows),
                     "≤ 150 µs: %s" % verdict(worst_cpu <= 150)))
    if "syscalls" in results:
        traced = results["syscalls"]
        ours, theirs = traced["weathertag"], traced["limit"]
        per_entry = sum(ours.values()) / traced["count"]
        top = sorted(ours.items(), key=lambda item: -item[1])[:9]
        rows.append(("system calls per stamped entry (strace -c -f on the daemon during a %d-entry burst; "
                     "counted, not timed)" % traced["count"],
                     "weathertag %.1f (%s); the limit loop %.1f per file" % (
                         per_entry, ", ".join("%s %.1f" % (name, n / traced["count"]) for name, n in top),
                         sum(theirs.values()) / traced["count"]),
                     "≤ 15: %s" % verdict(per_entry <= 15)))
        if traced.get("full_speed"):
            counted = traced["full_speed"]
            at_speed = sum(counted.values()) / traced["count"]
            top = sorted(counted.items(), key=lambda item: -item[1])[:9]
            before, after = traced["threads"]
            unseen = len(set(after) - set(before))
            rows.append(("the same, counted at full speed (perf stat of the syscalls tracepoints on the daemon's %d "
                         "threads%s, during another %d-entry burst)" % (
                             len(before), "" if not unseen else "; %d started later, not counted" % unseen,
                             traced["count"]),
                         "weathertag %.1f (%s)" % (
                             at_speed, ", ".join("%s %.1f" % (name, n / traced["count"]) for name, n in top)),
                         "≤ 15: %s" % verdict(at_speed <= 15 and not unseen)))
    if "binary" in results:
        binary = results["binary"]
        rows.append(("the installed binary (stripped, Swift runtime linked in)",
                     "%.1f MB; %s" % (binary["bytes"] / 1e6, "carries ICU" if binary["icu"] else "no ICU"),
                     "≤ 40 MB: %s" % verdict(binary["bytes"] <= 40e6 and not binary["icu"])))
    script = results["script"][0]
    calls = [r["calls"] for r in weathertag]
    rows.append(("OpenWeather calls for the burst, geocoding and air quality on",
                 "weathertag: weather %s, geocoder %s, air %s (the cache-warming calls for a new place; the %d "
                 "entries add none); the script %d for %d entries" % (
                     "/".join(str(c["weather"]) for c in calls), "/".join(str(c["geo"]) for c in calls),
                     "/".join(str(c["air"]) for c in calls), bench.burst, script["calls"], script["calls"]),
                 "exactly 1 of each: %s" % verdict(all(all(v == 1 for v in c.values()) for c in calls))))
    rows.append(("the script's throughput",
                 "%.0f entries/s (%.2f s for %d), %.1f %% of weathertag's rate%s" % (
                     script["rate"], script["seconds"], script["calls"], 100 * script["rate"] / w_rate,
                     "" if script["complete"] else "; did not finish"), "reference"))
    latency, limit_latency = results["latency"], results["limit_latency"]
    # The limit loop handed the same files at the same pace, run after each of the daemon's runs (`limit_latency`).
    limit_p99 = statistics.median(r["p99_ms"] for r in limit_latency)
    p99 = statistics.median(r["p99_ms"] for r in latency)
    rows.append(("drop-to-stamp latency, 20 entries/s (settle delay 0)",
                 "p50 %s ms, p99 %s ms; the limit loop handed the same files at the same pace p50 %s ms, p99 %s ms" % (
                     median_spread([r["p50_ms"] for r in latency], 2), median_spread([r["p99_ms"] for r in latency], 2),
                     median_spread([r["p50_ms"] for r in limit_latency], 2),
                     median_spread([r["p99_ms"] for r in limit_latency], 2)),
                 "p99 ≤ limit p99 + 1 ms: %s" % verdict(p99 <= limit_p99 + 1)))
    restore = results["restore"]
    restore_p99 = statistics.median(r["p99_ms"] for r in restore)
    exact = all(r["restored"] == r["count"] and r["same"] == r["count"] for r in restore)
    rows.append(("restore after an overwrite (an rsync-style rename of the unstamped version), 20 entries/s",
                 "p50 %s ms, p99 %s ms; %s of %d given back byte for byte" % (
                     median_spread([r["p50_ms"] for r in restore], 2), median_spread([r["p99_ms"] for r in restore], 2),
                     "/".join(str(r["same"]) for r in restore), restore[0]["count"]),
                 "all, p99 ≤ limit p99 + 5 ms: %s" % verdict(exact and restore_p99 <= limit_p99 + 5)))
    socket_results = results["socket"]
    worst = 1e9
    for connections in (1, 8, 64):
        w = [r["rps"] for r in socket_results[("weathertag", connections)]]
        n = [r["rps"] for r in socket_results[("nginx", connections)]]
        ratio = statistics.median(w) / statistics.median(n)
        worst = min(worst, ratio)
        rows.append(("socket throughput, %d connection%s" % (connections, "" if connections == 1 else "s"),
                     "weathertag %s req/s; nginx %s req/s; ratio %.0f %%%s" % (
                         median_spread(w, 0), median_spread(n, 0), 100 * ratio,
                         "; p99 weathertag %s µs, nginx %s µs" % (
                             median_spread([r["p99_us"] for r in socket_results[("weathertag", 64)]], 0),
                             median_spread([r["p99_us"] for r in socket_results[("nginx", 64)]], 0))
                         if connections == 64 else ""),
                     ("≥ 95 %% of nginx, p99 ≤ 1.5 ms in every run: %s" % verdict(
                         ratio >= 0.95 and max(r["p99_us"] for r in socket_results[("weathertag", 64)]) <= 1500)
                      if connections == 64 else "≥ 50 %% of nginx: %s" % verdict(ratio >= 0.5))))
    eight = socket_results[("weathertag", 8)]
    eight_nginx = socket_results[("nginx", 8)]
    p99_socket = statistics.median(r["p99_us"] for r in eight) / 1000
    rows.append(("socket latency, 8 connections",
                 "weathertag p50 %s µs, p99 %s µs; nginx p50 %s µs, p99 %s µs" % (
                     median_spread([r["p50_us"] for r in eight], 0), median_spread([r["p99_us"] for r in eight], 0),
                     median_spread([r["p50_us"] for r in eight_nginx], 0),
                     median_spread([r["p99_us"] for r in eight_nginx], 0)),
                 "p99 ≤ 1 ms: %s" % verdict(p99_socket <= 1)))
    startup = results["startup"]
    rows.append(("start-up, exec to READY=1, warm cache",
                 "%s ms (10 starts)" % median_spread(startup, 1),
                 "≤ 10 ms: %s" % verdict(statistics.median(startup) <= 10)))
    idle_anon = statistics.median(r["idle_anon"] for r in weathertag) / 1024
    idle_total = statistics.median(r["idle_total"] for r in weathertag) / 1024
    peak_anon = max(r["peak_anon"] for r in weathertag) / 1024
    peak_total = max(r["peak_total"] for r in weathertag) / 1024
    after_anon = statistics.median(r["after_anon"] for r in weathertag) / 1024
    rows.append(("memory",
                 "private (anonymous) RSS idle %.1f MiB, peak during the burst %.1f MiB, 0.5 s after its last stamp "
                 "%.1f MiB; total RSS idle %.1f MiB, peak %.1f MiB" % (
                     idle_anon, peak_anon, after_anon, idle_total, peak_total),
                 # Total RSS is mostly file-backed, shared pages (the binary's text, libcurl's TLS stack, libc,
                 # libsqlite3); issue 21 set it back to 24 MiB idle and 32 MiB at the peak, private as before.
                 # After the burst the daemon is idle again, and within the idle bound (its page caches full).
                 "private idle and after ≤ 8, burst ≤ 32; total idle ≤ 24, peak ≤ 32 MiB: %s" % verdict(
                     idle_anon <= 8 and after_anon <= 8 and peak_anon <= 32 and idle_total <= 24
                     and peak_total <= 32)))
    index = results["index"]
    rows.append(("the diary index at %d entries (stamped earlier; the state database deleted)" % index["count"],
                 "rebuilt from the files in %.1f s (%.0f entries/s; `find -exec cat` of the same files %.2f s, %.1f ×); "
                 "text search p50 %.1f ms, p99 %.1f ms; a page "
                 "filtered by condition, place and years p50 %.1f ms, p99 %.1f ms (over the socket, a connection "
                 "each); database %.0f MiB; private RSS peak %.1f MiB, total %.1f MiB" % (
                     index["rebuild"], index["count"] / index["rebuild"], index["cat"], index["rebuild"] / index["cat"],
                     index["search_p50"], index["search_p99"],
                     index["page_p50"], index["page_p99"], index["database"] / 1048576, index["peak_anon"] / 1024,
                     index["peak_total"] / 1024),
                 "rebuilt in ≤ 3 s and ≤ 2 × the cat, search p99 ≤ 50 ms, private RSS ≤ 32 MiB: %s" % verdict(
                     index["rebuild"] <= 3 and index["rebuild"] <= 2 * index["cat"] and index["search_p99"] <= 50
                     and index["peak_anon"] <= 32 * 1024)))
    drawn = index["map"]
    rows.append(("the map and the timeline page of the same %d entries (`weathertag map`, `weathertag timeline`, "
                 "through the daemon; median of 3)" % index["count"],
                 "map %.2f s, %.0f KiB of SVG, peak RSS %.1f MiB; page %.2f s, %.1f MiB of HTML, peak RSS %.1f MiB" % (
                     drawn["map"]["seconds"], drawn["map"]["bytes"] / 1024, drawn["map"]["peak_rss"] / 1024,
                     drawn["page"]["seconds"], drawn["page"]["bytes"] / 1048576, drawn["page"]["peak_rss"] / 1024),
                 "map < 2 MB: %s" % verdict(drawn["map"]["bytes"] < 2_000_000)))
    page = results["daemon_page"]
    rows.append(("the daemon's own timeline page (`timeline.output`) of %d entries dropped at once" % page["count"],
                 "stamped and the page written in %.1f s (%.1f MiB of HTML); private RSS peak while it is written "
                 "%.1f MiB, 0.5 s after %.1f MiB" % (
                     page["seconds"], page["bytes"] / 1048576, page["peak_anon"] / 1024, page["after_anon"] / 1024),
                 # The peak is every entry's document, read for the page; afterwards the heap is trimmed.
                 "after ≤ 16 MiB (the documents given back): %s" % verdict(page["after_anon"] <= 16 * 1024)))
    track = results["track"]
    rows.append(("where a back-dated entry was: a year of GPX points at 10 s (%d points in %d daily files, %.0f MiB "
                 "of GPX; the track index deleted)" % (track["points"], track["files"], track["gpx"] / 1048576),
                 "indexed in %.1f s (%.0f points/s); a position at a random moment of the year p50 %.2f ms, p99 "
                 "%.2f ms (GET /v1/location?at=, a connection each); index %.0f MiB on disk; private RSS peak "
                 "%.1f MiB, total %.1f MiB" % (
                     track["indexing"], track["points"] / track["indexing"], track["lookup_p50"],
                     track["lookup_p99"], track["index"] / 1048576, track["peak_anon"] / 1024,
                     track["peak_total"] / 1024),
                 "p99 ≤ 10 ms: %s" % verdict(track["lookup_p99"] <= 10)))
    big = results["track_file"]
    rows.append(("one GPX file of %.0f MiB (%d points), read in a stream" % (big["gpx"] / 1048576, big["points"]),
                 "indexed in %.1f s; private RSS peak %.1f MiB, total %.1f MiB; lookup p99 %.2f ms" % (
                     big["indexing"], big["peak_anon"] / 1024, big["peak_total"] / 1024, big["lookup_p99"]),
                 "private RSS ≤ 32 MiB (the file is never held whole): %s" % verdict(big["peak_anon"] <= 32 * 1024)))
    diary = results["diary"]
    paced_minutes = diary["weight"] / 300
    rows.append(("a ten-year diary in three towns (%d entries, a day each) moved in, keyless, history from "
                 "Open-Meteo's archive (one run)" % diary["entries"],
                 "every entry stamped with its own hour's weather in %.0f s; %d archive requests, %.0f weighted calls "
                 "(history's share of the free limits allows 300 a minute: %.1f min of pacing); private RSS peak "
                 "%.1f MiB, total %.1f MiB" % (
                     diary["seconds"], diary["requests"], diary["weight"], paced_minutes, diary["peak_anon"] / 1024,
                     diary["peak_total"] / 1024),
                 # Total RSS, file-backed pages included: the binary's code is most of them (release/flags.mk).
                 "≤ 60 requests, done within the pacing + 60 s, total RSS ≤ 40 MiB: %s" % verdict(
                     diary["requests"] <= 60 and diary["seconds"] <= paced_minutes * 60 + 60
                     and diary["peak_total"] <= 40 * 1024)))
    imported = results["import"]
    rows.append(("a ten-year Day One export (%d entries, half with Day One's weather, %.1f MiB of JSON) imported "
                 "with `weathertag import dayone`, the other half's weather from Open-Meteo's archive (one run)" % (
                     imported["entries"], imported["export"] / 1048576),
                 "%.1f s (cp -r of the diary it wrote: %.2f s); %d entries given their hour's weather from history; "
                 "peak RSS %.1f MiB" % (
                     imported["seconds"], imported["copy_seconds"], imported["historical"],
                     imported["peak_rss"] / 1024),
                 "every entry in, half from history: %s" % verdict(imported["historical"] == imported["entries"] // 2)))
    growth = results["growth"]
    sizes = sorted(growth)
    per_entry = ["%d: %.2f s, %.0f µs/entry, peak anon %.1f MiB, after %.1f MiB" % (
        size, growth[size]["seconds"], 1e6 * growth[size]["seconds"] / size, growth[size]["peak_anon"] / 1024,
        growth[size]["after_anon"] / 1024) for size in sizes]
    first, last = growth[sizes[0]], growth[sizes[-1]]
    linear = (last["seconds"] / sizes[-1]) <= 1.5 * (first["seconds"] / sizes[0])
    flat = last["peak_anon"] <= first["peak_anon"] + 8 * 1024
    rows.append(("cost growth", "; ".join(per_entry),
                 "linear time, flat memory: %s" % verdict(linear and flat)))

    table = ["| figure | measured: median (min–max) | target |", "|---|---|---|"]
    table += ["| %s | %s | %s |" % row for row in rows]
    return "\n".join(table)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--fslimit", required=True)
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--burst", type=int, default=5000)
    parser.add_argument("--burst-runs", type=int, default=5,
                        help="runs of each burst: the noisiest figure, the disk being shared")
    parser.add_argument("--quick", action="store_true", help="small sizes, for trying the bench itself")
    parser.add_argument("--only", choices=("burst", "index", "map", "page", "latency", "restore", "growth", "track", "diary",
                                           "import", "socket", "startup", "syscalls", "profile"),
                        help="one figure alone, printed, docs left alone: for trying a change (index and growth "
                             "at --burst entries)")
    parser.add_argument("--filesystem", action="append", choices=Scratch.KINDS,
                        help="--only burst: on this kind of scratch filesystem (repeatable; default: journal)")
    parser.add_argument("--work", default=None, help="where to put the temp folders (default: $TMPDIR)")
    parser.add_argument("--no-scratch", action="store_true",
                        help="run the file figures in the work folder, not on fresh loop-mounted ext4")
    parser.add_argument("--output", default=os.path.join(ROOT, "docs/PERFORMANCE.md"))
    parser.add_argument("--hot-text", default=None,
                        help="the release link's function order (release/hot-text.order): how much of it the binary "
                             "defines goes with the machine line")
    arguments = parser.parse_args()
    bench = Bench(arguments)
    if arguments.only:
        try:
            bench.only(arguments.only)
        finally:
            bench.close()
        return
    try:
        bench.run()
        table = report(bench)
        machine_line = machine(bench)
    finally:
        bench.close()
    print(table)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    generated = GENERATED_TEMPLATE.format(table=table, machine=machine_line, when=when, runs=arguments.runs,
                                         burst_runs=arguments.burst_runs)
    # The measured part sits between markers; what is written around it by hand (the analysis) is kept.
    document = PERFORMANCE_TEMPLATE.format(generated=generated)
    if os.path.exists(arguments.output):
        with open(arguments.output) as handle:
            current = handle.read()
        if BEGIN in current and END in current:
            document = current[:current.index(BEGIN)] + generated + current[current.index(END) + len(END):]
    with open(arguments.output + ".new", "w") as handle:
        handle.write(document)
    os.replace(arguments.output + ".new", arguments.output)
    log("written to %s" % arguments.output)


BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

GENERATED_TEMPLATE = BEGIN + """
Last run: {when}, on {machine}. Each figure ran {runs} times ({burst_runs} for the bursts): median, and in brackets the
smallest and largest.

{table}
""" + END

PERFORMANCE_TEMPLATE = """# Performance

`make bench` measures weathertag beside two references in the same run (absolute times drift on shared machines;
the targets are ratios measured together, plus a few budgets).

- **Filesystem limit** (`bench/fslimit.c`, `-O2`): per file, read it, write a temp file with the same weather
  block prepended, fsync, rename over, fsync the folder (weathertag fsyncs the folder once per entry too).
- **The script** (`bench/stamp-script.sh`): `inotifywait -m` + `curl` to the same loopback OpenWeather stand-in +
  `awk`, with a temp file, `sync` and `mv`: what a careful user writes instead.
- **nginx** serving the same `/v1/tag` JSON as a static file on a Unix socket, hit by the same load generator
  (`bench/loadgen.c`: keep-alive connections on one epoll thread, per-request latency).
- **Where the files live:** each file measurement gets a fresh ext4 filesystem with a journal on a loop device
  (see `Scratch` in bench/run.py); the burst runs again on a fresh ext4 without a journal and on a fresh tmpfs.

{generated}
"""

if __name__ == "__main__":
    main()
