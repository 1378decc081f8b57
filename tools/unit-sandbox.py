#!/usr/bin/python3
"""Runs a command under a systemd unit's system-call rules, without systemd.

    tools/unit-sandbox.py [--user UID:GID[:GROUP,...]] UNIT -- COMMAND [ARG...]

PID 1 is not systemd on every machine that builds weathertag, so the hardened unit's seccomp rules cannot be
tried by starting the unit. This script reads them from the unit's [Service] section and installs what systemd
252 would, then executes COMMAND in place (same PID, so $NOTIFY_SOCKET and signals work as under systemd):

- SystemCallFilter= (an allow list: @default is always added, "~" lines remove), SystemCallErrorNumber= (else
  the process is killed), SystemCallArchitectures=native (libseccomp kills other ABIs), NoNewPrivileges=
- RestrictAddressFamilies= (other families get EAFNOSUPPORT from socket(2))
- RestrictNamespaces=yes (unshare and setns refused, clone with CLONE_NEW* refused, clone3 ENOSYS so that glibc
  falls back to clone)
- MemoryDenyWriteExecute= (writable and executable mappings refused, mprotect/pkey_mprotect with PROT_EXEC refused)
- RestrictSUIDSGID= (chmod(2) family with S_ISUID or S_ISGID refused)

Like systemd, each rule set is a filter of its own; the kernel applies the strictest answer. Group names
(@system-service ...) are expanded with `systemd-analyze syscall-filter`, so they are systemd's own lists.
Not emulated: the mount-namespace settings (ProtectSystem= and the like), LockPersonality=, RestrictRealtime=
(its calls are in @resources here anyway). --user switches to that user and those supplementary groups first,
as User=/DynamicUser= and SupplementaryGroups= would (the caller must be root).

Needs python3-seccomp (Debian) and systemd-analyze.
"""

import errno
import os
import subprocess
import sys

import seccomp

CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080
PROT_WRITE, PROT_EXEC = 0x2, 0x4
SHM_EXEC = 0o100000
S_ISUID, S_ISGID = 0o4000, 0o2000
O_CREAT = 0o100
AF_MAX = 46
FAMILIES = {"AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16, "AF_PACKET": 17}


def service_settings(unit):
    """The [Service] assignments, in order, as (key, value) pairs."""
    settings, section = [], None
    with open(unit, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line
            elif section == "[Service]" and "=" in line:
                key, value = line.split("=", 1)
                settings.append((key.strip(), value.strip()))
    return settings


def syscall_groups():
    """systemd's groups: {"@default": ["@aio", "brk", ...], ...}."""
    output = subprocess.run(["systemd-analyze", "syscall-filter"], check=True, capture_output=True, text=True).stdout
    groups, current = {}, None
    for line in output.splitlines():
        if line.startswith("@"):
            current = groups.setdefault(line.strip(), [])
        elif current is not None and line.strip() and not line.strip().startswith("#"):
            current.append(line.strip())
        elif not line.strip():
            current = None
    return groups


def expand(names, groups):
    result = set()
    for name in names:
        if name.startswith("@"):
            if name not in groups:
                sys.exit(f"unit-sandbox: unknown system-call group {name}")
            result |= expand(groups[name], groups)
        else:
            result.add(name)
    return result


def add(filter_, action, name, *args):
    """Adds a rule; calls this architecture does not have are skipped, as systemd does."""
    try:
        filter_.add_rule(action, name, *args)
    except (RuntimeError, ValueError, OSError):
        pass


def boolean(value):
    return value.lower() in ("yes", "true", "on", "1")


def filters(settings):
    """The filters to load, strictest-answer-wins, in the order they must be loaded (the allow list last: it
    would refuse the calls that load the others)."""
    values = {}
    for key, value in settings:
        values.setdefault(key, []).append(value)
    loaded = []

    families = " ".join(values.get("RestrictAddressFamilies", [])).split()
    if families:
        if families[0].startswith("~"):
            sys.exit("unit-sandbox: a deny list in RestrictAddressFamilies= is not emulated")
        unknown = [name for name in families if name not in FAMILIES]
        if unknown:
            sys.exit(f"unit-sandbox: RestrictAddressFamilies=: {', '.join(unknown)} not known here")
        allowed = {FAMILIES[name] for name in families}
        restrict = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for family in range(AF_MAX):
            if family not in allowed:
                add(restrict, seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, family))
        add(restrict, seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.GE, AF_MAX))
        loaded.append(restrict)

    if boolean(values.get("RestrictNamespaces", ["no"])[-1]):
        loaded.append(namespaces())

    if boolean(values.get("MemoryDenyWriteExecute", ["no"])[-1]):
        deny = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        both = PROT_WRITE | PROT_EXEC
        for call in ("mmap", "mmap2"):
            add(deny, seccomp.ERRNO(errno.EPERM), call, seccomp.Arg(2, seccomp.MASKED_EQ, both, both))
        for call in ("mprotect", "pkey_mprotect"):
            add(deny, seccomp.ERRNO(errno.EPERM), call, seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
        add(deny, seccomp.ERRNO(errno.EPERM), "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, SHM_EXEC, SHM_EXEC))
        loaded.append(deny)

    if boolean(values.get("RestrictSUIDSGID", ["no"])[-1]):
        deny = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for call, index in (("chmod", 1), ("fchmod", 1), ("fchmodat", 2)):
            for bit in (S_ISUID, S_ISGID):
                add(deny, seccomp.ERRNO(errno.EPERM), call, seccomp.Arg(index, seccomp.MASKED_EQ, bit, bit))
        for bit in (S_ISUID, S_ISGID):
            add(deny, seccomp.ERRNO(errno.EPERM), "creat", seccomp.Arg(1, seccomp.MASKED_EQ, bit, bit))
            add(deny, seccomp.ERRNO(errno.EPERM), "open", seccomp.Arg(1, seccomp.MASKED_EQ, O_CREAT, O_CREAT),
                seccomp.Arg(2, seccomp.MASKED_EQ, bit, bit))
            add(deny, seccomp.ERRNO(errno.EPERM), "openat", seccomp.Arg(2, seccomp.MASKED_EQ, O_CREAT, O_CREAT),
                seccomp.Arg(3, seccomp.MASKED_EQ, bit, bit))
        loaded.append(deny)

    lines = values.get("SystemCallFilter", [])
    if lines:
        if lines[0].startswith("~"):
            sys.exit("unit-sandbox: a unit whose first SystemCallFilter= is a deny list is not emulated")
        groups = syscall_groups()
        allowed = expand(["@default"], groups)
        for line in lines:
            names = expand(line.lstrip("~").split(), groups)
            allowed = allowed - names if line.startswith("~") else allowed | names
        number = values.get("SystemCallErrorNumber", [None])[-1]
        default = seccomp.ERRNO(getattr(errno, number)) if number else seccomp.KILL_PROCESS
        allow = seccomp.SyscallFilter(defaction=default)
        for name in sorted(allowed):
            add(allow, seccomp.ALLOW, name)
        loaded.append(allow)
    return loaded


def namespaces():
    """RestrictNamespaces=yes: no new namespaces, no joining any."""
    restrict = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    add(restrict, seccomp.ERRNO(errno.EPERM), "unshare")
    add(restrict, seccomp.ERRNO(errno.EPERM), "setns")
    # clone(flags, ...): any CLONE_NEW* bit. One rule per bit, since a rule compares an argument once.
    bit = 1
    while bit <= CLONE_NEW:
        if CLONE_NEW & bit:
            add(restrict, seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit))
        bit <<= 1
    # clone3 passes its flags in memory, which seccomp cannot read: systemd answers ENOSYS so that glibc uses clone.
    add(restrict, seccomp.ERRNO(errno.ENOSYS), "clone3")
    return restrict


def main(argv):
    user = None
    if len(argv) > 2 and argv[0] == "--user":
        user, argv = argv[1], argv[2:]
    if len(argv) < 3 or argv[1] != "--":
        sys.exit(__doc__.split("\n\n")[1])
    unit, command = argv[0], argv[2:]
    loaded = filters(service_settings(unit))
    if user:
        parts = user.split(":")
        uid, gid = int(parts[0]), int(parts[1])
        os.setgroups([int(group) for group in parts[2].split(",")] if len(parts) > 2 and parts[2] else [])
        os.setgid(gid)
        os.setuid(uid)
    for filter_ in loaded:
        filter_.load()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
