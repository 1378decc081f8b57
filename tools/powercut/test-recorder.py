#!/usr/bin/env python3
"""The recorder's own tests (tools/powercut/recorder.c, replay.py), on a real ext4 made through it: a loop device on
the recorder's image, files written and fsynced between marks, then the log replayed.

- the whole log replayed on the image as it was before is the image as it is after, byte for byte;
- the log holds flushes (barriers): the recorder answers fsync, so the kernel keeps sending it;
- the disk at a mark before a file's fsync, mounted (its journal recovered), lacks that file; at the mark after it,
  the file is there with its bytes; the next file's fsync brings that one too;
- every prefix that ends at a flush mounts, and `e2fsck -fn` finds it clean once its journal is recovered.

    test-recorder.py RECORDER      (as root: loop devices, mounts, FUSE)

Prints "powercut: N passed, N failed" and exits non-zero when one failed.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay  # noqa: E402

SIZE = 64 << 20


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, detail=""):
        print(("ok    " if ok else "FAIL  ") + name + ("" if ok or not detail else "\n      " + str(detail)[-2000:]),
              flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


def run(arguments, **options):
    return subprocess.run(arguments, check=True, capture_output=True, text=True, **options)


def digest(path):
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class Mounted:
    """An image mounted on a loop device (read-write: mounting recovers its journal, as a boot after the cut would),
    unmounted and detached on the way out."""

    def __init__(self, image, folder):
        self.image, self.folder = image, folder

    def __enter__(self):
        os.makedirs(self.folder, exist_ok=True)
        run(["mount", "-o", "loop", self.image, self.folder])
        return self.folder

    def __exit__(self, *error):
        run(["umount", self.folder])


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def record(recorder, work):
    """The workload, through the recorder: mkfs, then two files each written and fsynced between marks. Returns
    the base image, the image after, and the log."""
    base, image, log = (os.path.join(work, name) for name in ("base.img", "disk.img", "disk.log"))
    with open(base, "wb") as handle:
        handle.truncate(SIZE)
    shutil.copyfile(base, image)
    fuse, scratch = os.path.join(work, "fuse"), os.path.join(work, "scratch")
    os.makedirs(fuse)
    os.makedirs(scratch)
    # Returns once the mount is there (the recorder goes to the background after it).
    run([recorder, image, log, fuse])
    loop = None
    try:
        loop = run(["losetup", "-f", "--show", os.path.join(fuse, "disk.img")]).stdout.strip()
        run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", loop])
        run(["mount", loop, scratch])
        mark = lambda text: os.setxattr(os.path.join(fuse, "disk.img"), "user.mark", text.encode())  # noqa: E731
        try:
            for name in ("first", "second"):
                mark("before-" + name)
                path = os.path.join(scratch, name + ".txt")
                with open(path, "wb") as handle:
                    handle.write((name + "\n").encode() * 1000)
                    handle.flush()
                    os.fsync(handle.fileno())
                folder = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
                os.fsync(folder)
                os.close(folder)
                mark(name + "-synced")
        finally:
            run(["umount", scratch])
    finally:
        if loop:
            run(["losetup", "-d", loop])
        run(["umount", fuse])
    return base, image, log


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    why = replay.missing(["mkfs.ext4", "e2fsck"])
    if why:
        print("powercut: skipped (%s)" % why)
        return 0
    checks = Checks()
    work = tempfile.mkdtemp(prefix="weathertag-powercut-")
    try:
        base, image, log = record(os.path.abspath(sys.argv[1]), work)
        found = replay.records(log)
        kinds = [record.kind for record in found]
        checks.check("the log holds writes and flushes (barriers)", {replay.WRITE, replay.FLUSH} <= set(kinds),
                     {replay.KINDS[kind]: kinds.count(kind) for kind in set(kinds)})
        whole = os.path.join(work, "whole.img")
        replay.build(base, log, whole, len(found), found=found)
        checks.check("the whole log replayed on the image before is the image after", digest(whole) == digest(image))

        marks = dict(replay.marks(log, found))
        checks.check("the marks are in the log, in order",
                     list(marks) == ["before-first", "first-synced", "before-second", "second-synced"], marks)
        expected = {
            "before-first": (None, None),
            "first-synced": (b"first\n" * 1000, None),
            "before-second": (b"first\n" * 1000, None),
            "second-synced": (b"first\n" * 1000, b"second\n" * 1000),
        }
        for mark, (first, second) in expected.items():
            crashed = os.path.join(work, "at-%s.img" % mark)
            replay.build(base, log, crashed, marks.get(mark, 0), found=found)
            with Mounted(crashed, os.path.join(work, "at-" + mark)) as folder:
                seen = (read(os.path.join(folder, "first.txt")), read(os.path.join(folder, "second.txt")))
            checks.check("a power cut at %s: first.txt %s, second.txt %s" % (
                mark, "whole" if first else "absent", "whole" if second else "absent"), seen == (first, second),
                [None if text is None else text[:20] for text in seen])
            os.unlink(crashed)

        # Every flush after mkfs's last write (the filesystem exists) is a disk that mounts and checks clean.
        start = marks.get("before-first", 0)
        flushes = [record.index + 1 for record in found if record.kind == replay.FLUSH and record.index >= start]
        unclean = []
        for upto in flushes:
            crashed = os.path.join(work, "flush.img")
            replay.build(base, log, crashed, upto, found=found)
            with Mounted(crashed, os.path.join(work, "flush")):
                pass
            fsck = subprocess.run(["e2fsck", "-fn", crashed], capture_output=True, text=True)
            if fsck.returncode != 0:
                unclean.append((upto, fsck.stdout[-300:]))
        checks.check("each of the %d prefixes that end at a flush mounts and checks clean" % len(flushes),
                     flushes and not unclean, unclean)
    finally:
        subprocess.run(["umount", "-q", os.path.join(work, "fuse")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print("powercut: %d passed, %d failed" % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
