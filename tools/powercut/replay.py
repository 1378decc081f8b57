#!/usr/bin/env python3
"""The disk after a power cut, from tools/powercut/recorder.c's log: the image as it was before the recording, with
the log's writes and zeroings applied up to a point.

    replay.py records LOG                  one line per record: its index, kind, offset, length (and a mark's text)
    replay.py build BASE LOG OUT UPTO      OUT: BASE with the records before index UPTO applied

A prefix that ends at a flush is a disk the kernel could have left at a power cut there; so is one that also holds
any subset of the writes sent after it and before the next flush (CrashMonkey's model: `build` with --keep takes
such a subset). Used by test-recorder.py (the recorder's own tests) and crash-states.py (the crash states of
weathertag's workloads).
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys

MAGIC = b"PCR1"
WRITE, FLUSH, ZERO, MARK = 1, 2, 3, 4
KINDS = {WRITE: "write", FLUSH: "flush", ZERO: "zero", MARK: "mark"}
HEADER = struct.Struct("<4sB3xQQ")


class Record:
    __slots__ = ("index", "kind", "offset", "length", "position")

    def __init__(self, index, kind, offset, length, position):
        self.index, self.kind, self.offset, self.length, self.position = index, kind, offset, length, position

    def __repr__(self):
        return "%d %s %d %d" % (self.index, KINDS[self.kind], self.offset, self.length)


def missing(tools=()):
    """Why crash states cannot be replayed here (root, FUSE, a free loop device, `tools`), or None."""
    if os.geteuid() != 0:
        return "loop devices, mounts and FUSE need root"
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if shutil.which("losetup") is None or subprocess.run(["losetup", "-f"], capture_output=True).returncode != 0:
        return "no free loop device"
    absent = [tool for tool in tools if shutil.which(tool) is None]
    return "no " + ", ".join(absent) if absent else None


def records(log_path):
    """Every record of the log, in order (a write's and a mark's bytes are read when asked, by `position`). A log
    that ends inside a record, or holds something else, is refused: it would replay a disk that never was."""
    found = []
    with open(log_path, "rb") as log:
        size = os.fstat(log.fileno()).st_size
        position = 0
        while position < size:
            header = log.read(HEADER.size)
            if len(header) != HEADER.size:
                raise ValueError("%s: a record cut short at byte %d" % (log_path, position))
            magic, kind, offset, length = HEADER.unpack(header)
            if magic != MAGIC or kind not in KINDS:
                raise ValueError("%s: no record at byte %d" % (log_path, position))
            payload = position + HEADER.size
            has_payload = kind in (WRITE, MARK)
            if has_payload and payload + length > size:
                raise ValueError("%s: a record's bytes cut short at byte %d" % (log_path, position))
            found.append(Record(len(found), kind, offset, length, payload))
            position = payload + (length if has_payload else 0)
            log.seek(position)
    return found


def payload(log_path, record):
    with open(log_path, "rb") as log:
        log.seek(record.position)
        return log.read(record.length)


def marks(log_path, found=None):
    """Each mark's text and its index."""
    return [(payload(log_path, record).decode(), record.index)
            for record in (found if found is not None else records(log_path)) if record.kind == MARK]


def build(base, log_path, out, upto, keep=None, found=None):
    """OUT: BASE with the records before index `upto` applied, and of those after it, the writes in `keep` (a set of
    indices: what reached the disk out of order before the next flush)."""
    found = found if found is not None else records(log_path)
    if os.stat(base).st_blocks == 0:
        # A base that holds nothing (a new sparse image): its size alone, without reading or writing its zeroes.
        with open(out, "wb") as image:
            image.truncate(os.stat(base).st_size)
    else:
        shutil.copyfile(base, out)
    chosen = [record for record in found if record.index < upto or (keep and record.index in keep)]
    with open(log_path, "rb") as log, open(out, "r+b") as image:
        for record in chosen:
            if record.kind == WRITE:
                log.seek(record.position)
                image.seek(record.offset)
                image.write(log.read(record.length))
            elif record.kind == ZERO:
                image.seek(record.offset)
                remaining = record.length
                while remaining > 0:
                    chunk = min(remaining, 1 << 20)
                    image.write(bytes(chunk))
                    remaining -= chunk


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("records")
    listing.add_argument("log")
    building = commands.add_parser("build")
    building.add_argument("base")
    building.add_argument("log")
    building.add_argument("out")
    building.add_argument("upto", type=int)
    building.add_argument("--keep", default="", help="indices of writes after UPTO kept, comma-separated")
    arguments = parser.parse_args()
    if arguments.command == "records":
        found = records(arguments.log)
        for record in found:
            text = " " + payload(arguments.log, record).decode(errors="replace") if record.kind == MARK else ""
            print("%r%s" % (record, text))
    else:
        keep = {int(index) for index in arguments.keep.split(",") if index}
        build(arguments.base, arguments.log, arguments.out, arguments.upto, keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
