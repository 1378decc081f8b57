#!/usr/bin/env python3
"""Every crash state of a workload, replayed from the disk's own writes (issue 64, docs/RELIABILITY.md "Power loss"):
the real weathertag binary writes on a filesystem recorded by tools/powercut/recorder.c, the inbox and the state
directory on it; then the disk after a power cut at each flush (and, between two flushes, at sampled subsets of the
writes not yet flushed: CrashMonkey's model) is built (replay.py), mounted (its journal recovered) and checked.

Before any restart, at every crash state:
- every entry written (and fsynced) before the cut is there exactly once, under its own name (its new one once a
  rename was fsynced);
- its bytes are the author's (their last fsynced save), or those with the one block the daemon wrote: never empty,
  zero-filled, truncated or doubled;
- nothing else in the inbox would be read as an entry (a temp file left behind is a hidden `.weathertag-tmp`,
  counted); nothing the daemon said was stamped is unstamped on the disk; the page is whole or absent;
- the state database opens whole and holds what its last checkpoint held.
After the daemon starts on a sample of them (`--restarts`):
- every entry is stamped exactly once, with the author's bytes intact, the index lists each one stamped, and the
  memory holds each one's block as the file does;
- no temp file or staging folder is left.

    crash-states.py --binary WEATHERTAG --recorder RECORDER [--fs ext4] [--workload burst] [--entries 20]
                    [--during 5] [--subsets 2] [--restarts 6] [--seed 1] [--sample N] [--summary FILE]

Workloads (each method of `Workload` says what it writes): burst, single, renamed, edited, restore, checkpoint,
stamp, page, imported, new. tools/powercut/runs.py runs them all.

As root. Prints what it found and "crash states: N passed, N failed".
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
import replay  # noqa: E402
import run as bench  # noqa: E402

SUFFIX = ".weathertag-tmp"
STATE_DATABASE = "state.sqlite"
WORKLOADS = ("burst", "single", "renamed", "edited", "restore", "checkpoint", "stamp", "page", "imported", "new")
# Workloads whose entries weathertag's commands make (`done:` marks), not an author.
MADE_BY_COMMANDS = ("imported", "new")

# Each filesystem as Debian makes it, big enough for its mkfs (XFS wants 300 MiB), and how it is made and mounted.
FILESYSTEMS = {
    "ext4": (128 << 20, [["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"]]),
    # data=journal as the superblock's default mount option: every mount of a replayed disk uses it too.
    "ext4-journal": (128 << 20, [["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"],
                                 ["tune2fs", "-o", "journal_data"]]),
    "xfs": (320 << 20, [["mkfs.xfs", "-q", "-f"]]),
    "btrfs": (256 << 20, [["mkfs.btrfs", "-q", "-f"]]),
}


def sh(arguments):
    return subprocess.run(arguments, check=True, capture_output=True, text=True)


class Mounted:
    def __init__(self, device, folder, options=()):
        self.device, self.folder, self.options = device, folder, list(options)

    def __enter__(self):
        os.makedirs(self.folder, exist_ok=True)
        sh(["mount"] + self.options + [self.device, self.folder])
        return self.folder

    def __exit__(self, *error):
        sh(["umount", self.folder])


def original(index):
    """The author's text of entry `index`: half with a front matter, half without; none stamped."""
    text = "Day %d. We walked by the river and the rain stopped at noon.\n" % index
    return ("---\ntitle: Day %d\n---\n" % index + text if index % 2 else text).encode()


def edited(index):
    """What the author saved over entry `index` in place, from the buffer they had opened before the stamp."""
    return original(index).replace(b"the rain stopped at noon", b"the rain came back at six, and we ran home")


def write_entries(inbox, indices):
    for index in indices:
        with open(os.path.join(inbox, "day-%03d.md" % index), "wb") as handle:
            handle.write(original(index))
            handle.flush()
            os.fsync(handle.fileno())
    folder = os.open(inbox, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(folder)
    os.close(folder)


def wait_until(what, condition, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


def stamped_count(socket_path):
    status = json.loads(bench.http_unix(socket_path, "/v1/status")[1])
    return status["entries"]["stamped"] + status["entries"]["already_stamped"]


def config(work, scratch, standin, page):
    path = os.path.join(work, "config.json")
    settings = {
        "openweather": {"api_key": bench.KEY, "base_url": standin.base_url,
                        "icon_base_url": standin.base_url + "/img/wn"},
        "location": {"providers": [{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]},
        "cache": {"directory": os.path.join(work, "cache")},
        "state": {"directory": os.path.join(scratch, "state")},
        "inbox": {"path": os.path.join(scratch, "inbox"), "settle_seconds": 0},
        "socket": {"path": os.path.join(work, "weathertag.sock")},
    }
    if page:
        settings["timeline"] = {"output": os.path.join(scratch, "site", "diary.html"),
                                "map_output": os.path.join(scratch, "site", "map.svg")}
    with open(path, "w") as handle:
        json.dump(settings, handle)
    return path


class Workload:
    """What runs on the recorded filesystem. Each entry is marked written (`written:I,J`) once its author's bytes
    are fsynced, with its folder: from that mark on, it must be there."""

    def __init__(self, arguments, work, scratch, mark, config_path):
        self.arguments, self.work, self.scratch, self.mark = arguments, work, scratch, mark
        self.config_path, self.inbox = config_path, os.path.join(scratch, "inbox")
        self.socket_path = os.path.join(work, "weathertag.sock")
        self.daemon = None

    def write(self, indices):
        write_entries(self.inbox, indices)
        self.mark("written:" + ",".join(str(index) for index in indices))

    def start(self):
        self.daemon = bench.Daemon(self.arguments.binary, self.config_path, self.work)

    def stop(self):
        if self.daemon:
            self.daemon.stop()
            self.daemon = None

    def wait_stamped(self, count):
        """Until the daemon says `count` entries are stamped; each count it says is marked (`reported:N`): from
        then on, that many must be stamped on the disk."""
        said = [0]

        def enough():
            now = stamped_count(self.socket_path)
            if now > said[0]:
                said[0] = now
                self.mark("reported:%d" % now)
            return now >= count

        wait_until("%d entries stamped" % count, enough)

    def burst(self):
        """Entries there before the daemon starts (a batch), then more while it runs."""
        first = list(range(self.arguments.entries))
        self.write(first)
        self.start()
        self.wait_stamped(len(first))
        self.write(list(range(len(first), len(first) + self.arguments.during)))
        self.wait_stamped(len(first) + self.arguments.during)

    def single(self):
        """Entries dropped one at a time into a running daemon, each stamped before the next comes."""
        self.start()
        for index in range(self.arguments.entries):
            self.write([index])
            self.wait_stamped(index + 1)

    def renamed(self):
        """Entries renamed by their author while the daemon stamps them (each rename fsynced with its folder, and
        marked): each is under one name at every moment, its new one once renamed, stamped once."""
        entries = list(range(self.arguments.entries))
        self.write(entries)
        self.start()
        for index in entries[1::2]:
            os.rename(os.path.join(self.inbox, "day-%03d.md" % index),
                      os.path.join(self.inbox, "day-%03d-renamed.md" % index))
            folder = os.open(self.inbox, os.O_RDONLY | os.O_DIRECTORY)
            os.fsync(folder)
            os.close(folder)
            self.mark("renamed:%d" % index)
        self.wait_stamped(len(entries))

    def edited(self):
        """Entries saved again in place by their author (the same inode truncated and written, as nano and vim with
        `backupcopy=yes` save), each save fsynced and marked (`edited:I`): from then on the entry holds the author's
        new text, or that with one block; in the end, that stamped. Saves race the first batch, come over stamps
        (from a buffer without the block: it goes back), and follow new entries at once, as the daemon reads them."""
        count, more = self.arguments.entries, self.arguments.during
        self.write(list(range(count)))
        self.start()
        early, late = list(range(1, count // 2, 2)), list(range(count // 2 + 1, count, 2))
        for index in early:
            self.save(index)
        self.wait_stamped(count)
        for index in late:
            self.save(index)
        for index in range(count, count + more):
            self.write([index])
            self.save(index)
        saved = set(early + late + list(range(count, count + more)))
        wait_until("every entry stamped with its author's last text", lambda: all(
            stripped(content) == (edited(index) if index in saved else original(index)) and b"weather:\n" in content
            for index, content in ((index, read(os.path.join(self.inbox, "day-%03d.md" % index)))
                                   for index in range(count + more))))
        entries_said = json.loads(bench.http_unix(self.socket_path, "/v1/status")[1])["entries"]
        print("edited: %d saves, %d of them over a stamp (its block given back)" % (
            len(saved), entries_said["restored"]))

    def save(self, index):
        descriptor = os.open(os.path.join(self.inbox, "day-%03d.md" % index), os.O_WRONLY | os.O_TRUNC)
        os.write(descriptor, edited(index))
        os.fsync(descriptor)
        os.close(descriptor)
        self.mark("edited:%d" % index)

    def checkpoint(self):
        """Entries one at a time, the state database's WAL checkpointed into it (and truncated) after every third
        stamp, each checkpoint marked (`checkpointed:N`, N stamps remembered): from then on, the database holds at
        least those N."""
        self.start()
        database = os.path.join(self.scratch, "state", STATE_DATABASE)
        for index in range(self.arguments.entries):
            self.write([index])
            self.wait_stamped(index + 1)
            if index % 3 == 2:
                connection = sqlite3.connect(database, timeout=30)
                try:
                    # The daemon's own settings: WAL, synchronous NORMAL (a checkpoint syncs the WAL, then the
                    # database). Counted first: the checkpoint holds at least what was counted.
                    connection.execute("PRAGMA synchronous = NORMAL")
                    remembered = connection.execute("SELECT count(*) FROM entry").fetchone()[0]
                    busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                finally:
                    connection.close()
                if not busy:
                    self.mark("checkpointed:%d" % remembered)

    def restore(self):
        """Stamped entries saved again without their block, as an editor saves an old buffer (a temp file renamed
        over it): the remembered block goes back, byte for byte."""
        entries = list(range(self.arguments.entries))
        self.write(entries)
        self.start()
        self.wait_stamped(len(entries))
        for index in entries[::2]:
            name = os.path.join(self.inbox, "day-%03d.md" % index)
            saved = os.path.join(self.inbox, ".day-%03d.md.save" % index)
            with open(saved, "wb") as handle:
                handle.write(original(index))
                handle.flush()
                os.fsync(handle.fileno())
            os.rename(saved, name)
        restored = lambda: json.loads(bench.http_unix(self.socket_path, "/v1/status")[1])["entries"]["restored"]
        wait_until("the blocks given back", lambda: restored() >= len(entries[::2]))

    def stamp(self):
        """`weathertag stamp` by itself (no daemon), on entries in the inbox."""
        entries = list(range(self.arguments.entries))
        self.write(entries)
        files = [os.path.join(self.inbox, "day-%03d.md" % index) for index in entries]
        sh([self.arguments.binary, "stamp", "--config", self.config_path, "--socket",
            os.path.join(self.work, "none.sock")] + files)

    def imported(self):
        """`weathertag import dayone` into the inbox: a journal of Day One's shape, each entry with its own weather.
        Once the command has said what it imported, each of those files is there, whole."""
        journal = os.path.join(self.work, "Journal.json")
        with open(journal, "w") as handle:
            json.dump({"metadata": {"version": "1.0"}, "entries": [
                {"uuid": "%032X" % (0xA000 + index), "creationDate": "2018-01-%02dT16:22:17Z" % (index + 1),
                 "timeZone": "Asia/Seoul", "text": "Imported day %d\n\nA walk by the river." % index,
                 "weather": {"temperatureCelsius": index, "conditionsDescription": "Light Rain",
                             "weatherCode": "rain", "weatherServiceName": "HAMweather"}}
                for index in range(self.arguments.entries)]}, handle)
        before = set(walk(self.inbox))
        sh([self.arguments.binary, "import", "dayone", journal, "--into", self.inbox, "--config", self.config_path])
        self.mark("done:" + ",".join(sorted(set(walk(self.inbox)) - before)))

    def new(self):
        """`weathertag new --no-edit`, one entry after another: once it has printed an entry's path, the entry is
        there, whole."""
        for index in range(self.arguments.entries):
            made = sh([self.arguments.binary, "new", "--no-edit", "--config", self.config_path, "Day", str(index)]
                      ).stdout.strip()
            self.mark("done:" + os.path.relpath(made, self.inbox))

    def page(self):
        """The burst, with the timeline page and the map the daemon keeps current on the same disk."""
        self.burst()
        page, drawn = (os.path.join(self.scratch, "site", name) for name in ("diary.html", "map.svg"))
        wait_until("the page and the map written", lambda: os.path.exists(page) and os.path.exists(drawn))


def record(arguments, work, standin):
    """The burst through the recorder: entries written and fsynced, the daemon started, more entries while it
    runs, the daemon stopped. Returns the base image, the log, the config and the mount point."""
    base, image, log = (os.path.join(work, name) for name in ("base.img", "disk.img", "disk.log"))
    size, makes = FILESYSTEMS[arguments.fs]
    with open(base, "wb") as handle:
        handle.truncate(size)
    shutil.copyfile(base, image)
    fuse, scratch = os.path.join(work, "fuse"), os.path.join(work, "scratch")
    os.makedirs(fuse)
    sh([arguments.recorder, image, log, fuse])
    loop = None
    try:
        loop = sh(["losetup", "-f", "--show", os.path.join(fuse, "disk.img")]).stdout.strip()
        for make in makes:
            sh(make + [loop])
        with Mounted(loop, scratch):
            mark = lambda text: os.setxattr(os.path.join(fuse, "disk.img"), "user.mark", text.encode())  # noqa
            os.makedirs(os.path.join(scratch, "inbox"))
            os.makedirs(os.path.join(scratch, "state"))
            os.makedirs(os.path.join(scratch, "site"))
            path = config(work, scratch, standin, page=arguments.workload == "page")
            workload = Workload(arguments, work, scratch, mark, path)
            os.sync()
            mark("begin")
            try:
                getattr(workload, arguments.workload)()
            finally:
                workload.stop()
            mark("stopped")
    finally:
        if loop:
            sh(["losetup", "-d", loop])
        sh(["umount", fuse])
    return base, log, path, scratch


def crash_states(found, start, subsets, rng):
    """(upto, kept) pairs: each prefix that ends at a flush after `start`, and between two flushes, `subsets` random
    subsets of the writes sent in between (kept on top of the prefix)."""
    flushes = [record.index for record in found if record.kind == replay.FLUSH and record.index >= start]
    states = [(index + 1, frozenset()) for index in flushes]
    for before, after in zip(flushes, flushes[1:]):
        writes = [record.index for record in found[before + 1:after] if record.kind == replay.WRITE]
        if len(writes) < 2:
            continue
        for _ in range(subsets):
            kept = frozenset(index for index in writes if rng.random() < 0.5)
            if kept and len(kept) < len(writes):
                states.append((before + 1, kept))
    return states


def sampled(states, arguments, rng):
    """`--sample` of the crash states, in the log's order, or all of them."""
    if not arguments.sample or arguments.sample >= len(states):
        return states
    return [states[number] for number in sorted(rng.sample(range(len(states)), arguments.sample))]


def walk(folder):
    """Every file below `folder` that is not hidden (nor in a hidden folder), relative to it."""
    found = []
    for root, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [os.path.relpath(os.path.join(root, name), folder) for name in files if not name.startswith(".")]
    return found


def entries_in(inbox):
    """The inbox's own files (not its folders): those read as entries, and temp files left behind."""
    names = sorted(name for name in os.listdir(inbox) if not os.path.isdir(os.path.join(inbox, name)))
    return ([name for name in names if not name.startswith(".")],
            [name for name in names if name.startswith(".") and name.endswith(SUFFIX)])


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--recorder", required=True)
    parser.add_argument("--entries", type=int, default=20)
    parser.add_argument("--during", type=int, default=5)
    parser.add_argument("--subsets", type=int, default=2, help="sampled subsets of unflushed writes per interval")
    parser.add_argument("--restarts", type=int, default=6, help="crash states the daemon is started on")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=int, default=0,
                        help="check only this many of the crash states, drawn with the seed (0: every one)")
    parser.add_argument("--summary", help="a file to add this run's row to (tab-separated)")
    parser.add_argument("--fs", choices=sorted(FILESYSTEMS), default="ext4", help="the recorded filesystem")
    parser.add_argument("--workload", choices=WORKLOADS, default="burst")
    arguments = parser.parse_args()
    arguments.binary, arguments.recorder = os.path.abspath(arguments.binary), os.path.abspath(arguments.recorder)
    why = replay.missing([FILESYSTEMS[arguments.fs][1][0][0], "mount"])
    if why:
        print("crash states: skipped (%s)" % why)
        return 0
    rng = random.Random(arguments.seed)
    # In memory where there is room: each crash state is a whole image made anew.
    work = tempfile.mkdtemp(prefix="weathertag-crash-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    standin = bench.StandIn(work)
    problems, checked, restarted, with_leftovers, with_page = [], 0, 0, 0, 0
    path = None
    try:
        base, log, path, scratch = record(arguments, work, standin)
        found = replay.records(log)
        begin = dict(replay.marks(log, found))["begin"]
        if arguments.workload in MADE_BY_COMMANDS:
            checked, with_leftovers, restarted = check_made(
                arguments, base, log, found, begin, scratch, work, path, rng, problems)
        else:
            checked, with_leftovers, restarted, with_page = check_entries(
                arguments, base, log, found, scratch, work, path, rng, problems)
    finally:
        standin.stop()
        subprocess.run(["umount", "-q", os.path.join(work, "fuse")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    for problem in problems[:40]:
        print("FAIL  " + problem)
    if arguments.summary:
        with open(arguments.summary, "a") as handle:
            handle.write("\t".join(str(value) for value in (
                arguments.workload, arguments.fs, checked, with_leftovers, restarted, len(problems))) + "\n")
    print("%s on %s: %d crash states checked (%d with a temp file left before a restart%s), %d restarted" % (
        arguments.workload, arguments.fs, checked, with_leftovers,
        ", %d with the page" % with_page if arguments.workload == "page" else "", restarted))
    failed = len(problems)
    print("crash states: %d passed, %d failed" % (checked + restarted - min(failed, checked + restarted), failed))
    return 1 if failed else 0


def check_entries(arguments, base, log, found, scratch, work, path, rng, problems):
    """The entries an author wrote (`written:` marks), at every crash state; the daemon started on a sample."""
    checked = restarted = with_leftovers = with_page = 0
    # When each entry was written: (its index, the mark's index in the log).
    written_at = [(int(index), at) for text, at in replay.marks(log, found) if text.startswith("written:")
                  for index in text[len("written:"):].split(",")]
    total = max(index for index, _ in written_at) + 1
    # An entry the author renamed (`renamed:I`, once the rename and its folder are fsynced) is under its new name
    # from then on, and under either name before.
    renamed_at = {int(text[len("renamed:"):]): at for text, at in replay.marks(log, found)
                  if text.startswith("renamed:")}
    # An entry its author saved again in place (`edited:I`, once the save is fsynced) holds the new text from then on.
    edited_at = {int(text[len("edited:"):]): at for text, at in replay.marks(log, found) if text.startswith("edited:")}
    # What the state database held at each checkpoint (`checkpointed:N`).
    checkpointed_at = [(int(text[len("checkpointed:"):]), at) for text, at in replay.marks(log, found)
                       if text.startswith("checkpointed:")]

    def texts(index, upto):
        """The author's texts entry `index` may hold at a cut at `upto`."""
        if index not in edited_at:
            return [original(index)]
        return [edited(index)] if edited_at[index] < upto else [original(index), edited(index)]

    def in_flight(index, upto, content):
        """The author's own save, cut short by the power before it was fsynced: theirs to lose, never stamped."""
        return index in edited_at and edited_at[index] >= upto and (
            edited(index).startswith(content) or content.strip(b"\0") == b"")

    if arguments.workload == "checkpoint" and not checkpointed_at:
        problems.append("the recording holds no checkpoint")
    if arguments.workload == "edited" and not edited_at:
        problems.append("the recording holds no save")
    names = ["day-%03d.md" % index for index in range(total)]
    aliases = [[name] + (["day-%03d-renamed.md" % index] if index in renamed_at else [])
               for index, name in enumerate(names)]
    index_of = {alias: index for index, both in enumerate(aliases) for alias in both}
    # What the daemon said was stamped (`/v1/status`), and when.
    reported_at = [(int(text[len("reported:"):]), at) for text, at in replay.marks(log, found)
                   if text.startswith("reported:")]
    # The stamped version of each entry, under its last name: the disk after the whole log.
    final = os.path.join(work, "final.img")
    replay.build(base, log, final, len(found), found=found)
    with Mounted(final, scratch, ["-o", "loop"]) as folder:
        stamped = [read(os.path.join(folder, "inbox", both[-1])) for both in aliases]
    for index, content in enumerate(stamped):
        if content == texts(index, len(found))[-1] or stripped(content) != texts(index, len(found))[-1]:
            problems.append("the recording did not stamp %s as expected: %r" % (aliases[index][-1], content[:80]))
    states = sampled(crash_states(found, min(at for _, at in written_at), arguments.subsets, rng), arguments, rng)
    restarts = set(rng.sample(range(len(states)), min(arguments.restarts, len(states))))
    image = os.path.join(work, "crash.img")
    for number, (upto, kept) in enumerate(states):
        replay.build(base, log, image, upto, keep=kept, found=found)
        state = "upto %d%s" % (upto, " + %d unflushed writes" % len(kept) if kept else "")
        written = sorted({index for index, at in written_at if at < upto})
        with Mounted(image, scratch, ["-o", "loop"]) as folder:
            inbox = os.path.join(folder, "inbox")
            present, leftovers = entries_in(inbox)
            with_leftovers += bool(leftovers)
            for index in written:
                found_as = [name for name in aliases[index] if name in present]
                if len(found_as) != 1:
                    problems.append("%s: %s is there %d times" % (state, " or ".join(aliases[index]), len(found_as)))
                    continue
                name = found_as[0]
                if renamed_at.get(index, upto) < upto and name != aliases[index][-1]:
                    problems.append("%s: %s lost its rename" % (state, name))
                content = read(os.path.join(inbox, name))
                if index in edited_at:
                    whole = stripped(content) in texts(index, upto) and (
                        block(content) in (b"", block(stamped[index])))
                    if not whole and not in_flight(index, upto, content):
                        problems.append("%s: %s holds %d bytes, neither the author's text (%s) nor that stamped (%r)"
                                        % (state, name, len(content), "edited" if edited_at[index] < upto
                                           else "first or edited", content[:60]))
                elif content not in (original(index), stamped[index]):
                    problems.append("%s: %s holds %d bytes, neither the author's nor the stamp (%r)" % (
                        state, name, len(content), content[:60]))
            # Nothing is said stamped that is not stamped on the disk.
            said, said_at = max([(count, at) for count, at in reported_at if at < upto], default=(0, 0))
            # Stamped on the disk: as in the end, or with a block under the author's later save; an entry the
            # author saved over after the count (from a buffer without the block) is theirs to have changed.
            on_disk = sum(1 for name in present if name in index_of and (
                read(os.path.join(inbox, name)) == stamped[index_of[name]]
                or index_of[name] in edited_at and (block(read(os.path.join(inbox, name)))
                                                   or edited_at[index_of[name]] > said_at)))
            if on_disk < said and arguments.workload != "restore":
                problems.append("%s: %d said stamped, %d stamped on the disk" % (state, said, on_disk))
            strangers = [name for name in present if name not in index_of]
            if strangers:
                problems.append("%s: other files in the inbox: %s" % (state, strangers))
            page, drawn = os.path.join(folder, "site", "diary.html"), os.path.join(folder, "site", "map.svg")
            with_page += os.path.exists(page)
            if os.path.exists(page) and not read(page).rstrip().endswith(b"</html>"):
                problems.append("%s: the page is cut short (%d bytes)" % (state, os.path.getsize(page)))
            if os.path.exists(drawn) and not read(drawn).rstrip().endswith(b"</svg>"):
                problems.append("%s: the map is cut short (%d bytes)" % (state, os.path.getsize(drawn)))
            problems += check_database(folder, work, state, max(
                [count for count, at in checkpointed_at if at < upto], default=0))
            checked += 1
            if number in restarts:
                restarted += 1
                problems += restart(arguments, path, folder, written, index_of, state,
                                    lambda index: texts(index, upto))
    return checked, with_leftovers, restarted, with_page


def check_made(arguments, base, log, found, begin, scratch, work, path, rng, problems):
    """Entries a command made (`done:` marks, once it said it made them), at every crash state from the
    workload's start: before its mark an entry is absent, or whole (stamped, or for `new` its text before the stamp);
    after it, there and stamped, as the command said. The daemon started on a sample."""
    checked = restarted = with_leftovers = 0
    done_at = [(made, at) for text, at in replay.marks(log, found) if text.startswith("done:")
               for made in text[len("done:"):].split(",") if made]
    final = os.path.join(work, "final.img")
    replay.build(base, log, final, len(found), found=found)
    with Mounted(final, scratch, ["-o", "loop"]) as folder:
        finished = {made: read(os.path.join(folder, "inbox", made)) for made, _ in done_at}
    for made, content in finished.items():
        if content.count(b"weather") == 0:
            problems.append("the recording did not stamp %s: %r" % (made, content[:80]))
    if not done_at:
        problems.append("the command made nothing")
    states = sampled(crash_states(found, begin, arguments.subsets, rng), arguments, rng)
    restarts = set(rng.sample(range(len(states)), min(arguments.restarts, len(states))))
    image = os.path.join(work, "crash.img")
    for number, (upto, kept) in enumerate(states):
        replay.build(base, log, image, upto, keep=kept, found=found)
        state = "upto %d%s" % (upto, " + %d unflushed writes" % len(kept) if kept else "")
        with Mounted(image, scratch, ["-o", "loop"]) as folder:
            inbox = os.path.join(folder, "inbox")
            for made, at in done_at:
                target = os.path.join(inbox, made)
                content = read(target) if os.path.exists(target) else None
                if at < upto and content != finished[made]:
                    problems.append("%s: %s, said to be made, is %s" % (
                        state, made, "absent" if content is None else "not whole (%d bytes)" % len(content)))
                elif content is not None and content not in (finished[made], stripped(finished[made])):
                    problems.append("%s: %s is cut short: %r" % (state, made, content[:60]))
            # A temp file or a staging folder, anywhere below the inbox (`new` writes into year/month folders).
            hidden = [name for _, folders, files in os.walk(inbox) for name in folders + files if name.endswith(SUFFIX)]
            with_leftovers += bool(hidden)
            checked += 1
            if number in restarts:
                restarted += 1
                problems += restart(arguments, path, folder, [], {}, state, lambda index: [])
    return checked, with_leftovers, restarted


def check_database(folder, work, state, remembered):
    """The state database on the crash image opens and is whole (SQLite's `integrity_check`), and holds at least the
    `remembered` stamps its last checkpoint before the cut held. Read from a copy: the image stays as the cut left it."""
    source = os.path.join(folder, "state", STATE_DATABASE)
    if not os.path.exists(source):
        return ["%s: no state database" % state] if remembered else []
    copy = os.path.join(work, "check")
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(copy)
    for suffix in ("", "-wal"):
        if os.path.exists(source + suffix):
            shutil.copyfile(source + suffix, os.path.join(copy, STATE_DATABASE + suffix))
    try:
        connection = sqlite3.connect(os.path.join(copy, STATE_DATABASE))
        try:
            whole = connection.execute("PRAGMA integrity_check").fetchone()[0]
            # Before the first sync of the WAL, its tables may not be there yet: the daemon makes them again.
            made = connection.execute("SELECT count(*) FROM sqlite_master WHERE name = 'entry'").fetchone()[0]
            held = connection.execute("SELECT count(*) FROM entry").fetchone()[0] if whole == "ok" and made else 0
        finally:
            connection.close()
    except sqlite3.Error as error:
        return ["%s: the state database does not open: %s" % (state, error)]
    if whole != "ok":
        return ["%s: the state database is damaged: %s" % (state, whole)]
    if held < remembered:
        return ["%s: the state database holds %d stamps, its checkpoint %d" % (state, held, remembered)]
    return []


def memory(folder):
    """What the state database remembers of each entry in the inbox: its path and block."""
    connection = sqlite3.connect(os.path.join(folder, "state", STATE_DATABASE))
    try:
        return dict(connection.execute("SELECT path, block FROM entry WHERE removed_at IS NULL"))
    finally:
        connection.close()


def restart(arguments, config_path, folder, written, index_of, state, texts):
    """The daemon started on the crash image: every entry stamped once, the index and the memory in step, no
    leftovers."""
    problems = []
    work = os.path.dirname(config_path)
    socket_path = os.path.join(work, "weathertag.sock")
    inbox = os.path.join(folder, "inbox")
    try:
        daemon = bench.Daemon(arguments.binary, config_path, work)
    except (TimeoutError, OSError) as error:
        with open(os.path.join(work, "daemon.log"), errors="replace") as log:
            said = log.read()[-600:]
        subprocess.run(["pkill", "-KILL", "-f", config_path], capture_output=True)
        return ["%s, restarted: the daemon did not start (%s): %s" % (state, error, said)]
    try:
        # Entries written before the cut, and any other whose author's write reached the disk whole; one whose own
        # write was cut short (empty, zero-filled: the author's bytes, not weathertag's, lost) may be left alone.
        listed, _ = entries_in(inbox)
        present = [name for name in listed if name in index_of and (
            stripped(read(os.path.join(inbox, name))) in texts(index_of[name])
            or index_of[name] not in written and read(os.path.join(inbox, name)) == original(index_of[name]))]
        unsure = {name: read(os.path.join(inbox, name))[:40] for name in listed if name not in present}

        def lanes():
            documents = json.loads(bench.http_unix(socket_path, "/v1/entries?limit=1000")[1])["entries"]
            return {document["path"]: document["lane"] for document in documents}

        def scanned():
            # The daemon's first listing of the inbox is done (it removes the temp files a cut left): READY=1 may
            # come before it.
            status = json.loads(bench.http_unix(socket_path, "/v1/status")[1])
            return status["entries"].get("last_scan_at") is not None

        def settled():
            # Every file stamped, and the index (written after the files, in the batch's transaction) in step.
            if not scanned():
                return False
            shown = lanes()
            return all(b"weather:" in read(os.path.join(inbox, name)) and shown.get(name) == "stamped"
                       for name in present)

        try:
            wait_until("%s: stamped after a restart" % state, settled)
        except TimeoutError as error:
            problems.append(str(error))
        lanes = lanes()
        for name in present:
            content = read(os.path.join(inbox, name))
            index = index_of.get(name)
            if content.count(b"weather:\n") != 1:
                problems.append("%s, restarted: %s has %d blocks" % (state, name, content.count(b"weather:\n")))
            if index is not None and index in written and stripped(content) not in texts(index):
                problems.append("%s, restarted: %s lost the author's bytes" % (state, name))
            if lanes.get(name) != "stamped":
                problems.append("%s, restarted: the index has %s as %s" % (state, name, lanes.get(name)))
        for name in unsure:
            if read(os.path.join(inbox, name)).count(b"weather:\n") > 1:
                problems.append("%s, restarted: %s (its author's write cut short: %r) has two blocks" % (
                    state, name, unsure[name]))
        # Anywhere in the inbox: a stamp's temp files, an import's staging folder.
        leftovers = [os.path.relpath(os.path.join(root, name), inbox) for root, folders, files in os.walk(inbox)
                     for name in folders + files if name.endswith(SUFFIX)]
        if leftovers:
            problems.append("%s, restarted: temp files left: %s" % (state, leftovers))
    finally:
        daemon.stop()
    remembered = memory(folder)
    for name in present:
        if remembered.get(name) != block(read(os.path.join(inbox, name))).decode():
            problems.append("%s, restarted: the memory of %s is %r, its block %r" % (
                state, name, remembered.get(name, "")[:60], block(read(os.path.join(inbox, name)))[:60]))
    return problems


def block(content):
    """weathertag's block in the entry: the `weather:` line and the indented lines under it (empty if none)."""
    lines, inside = [], False
    for line in content.split(b"\n"):
        inside = line == b"weather:" or inside and line.startswith(b" ")
        if inside:
            lines.append(line)
    return b"\n".join(lines)


def stripped(content):
    """The entry without weathertag's block (the `weather:` line and the indented lines under it), and without the
    front matter the block alone made."""
    lines = content.split(b"\n")
    kept, inside = [], False
    for line in lines:
        if line == b"weather:":
            inside = True
            continue
        if inside and line.startswith(b" "):
            continue
        inside = False
        kept.append(line)
    text = b"\n".join(kept)
    return text[len(b"---\n---\n"):] if text.startswith(b"---\n---\n") else text


if __name__ == "__main__":
    sys.exit(main())
