import CLinux
import Glibc
import Synchronization

/// Small blocking POSIX helpers. Callers run them on a thread pool, never on Swift's cooperative pool.
enum FileIO {
    /// The names in `directory` (`.` and `..` left out) that `keep` takes, by their bytes before a `String` is made;
    /// empty when it cannot be read.
    static func names(in directory: String, _ keep: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in true }) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = Self.name(of: entry)
            guard !(name.count == 1 && name[0] == 0x2E), !(name.count == 2 && name[0] == 0x2E && name[1] == 0x2E),
                keep(name)
            else { continue }
            names.append(String(decoding: name, as: UTF8.self))
        }
        return names
    }

    /// The name of an entry `readdir` gave, read where it lies. The record is only as long as its name (`d_reclen`):
    /// a copy of `d_name` (256 bytes, as `withUnsafeBytes(of: entry.pointee.d_name)` makes) reads past it, and past
    /// the end of glibc's buffer when it is the buffer's last record, which crashed the daemon in the kill test.
    static func name(of entry: UnsafePointer<dirent>) -> UnsafeBufferPointer<UInt8> {
        let start = UnsafeRawPointer(entry) + Self.nameOffset
        return UnsafeBufferPointer(
            start: start.assumingMemoryBound(to: UInt8.self), count: strlen(start.assumingMemoryBound(to: CChar.self)))
    }

    /// Where `d_name` starts in a `dirent` (a stored field: `offset(of:)` has it; 19 on Linux).
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19

    /// Reads the whole file behind `fd`, refusing more than `limit` bytes. `expected` (the size `fstat` gave) sizes
    /// the first read one byte larger, so that a file that did not grow takes one `read`: a short read of a regular
    /// file is its end.
    static func readAll(_ fd: Int32, path: String, limit: Int, expected: Int? = nil) throws -> [UInt8] {
        if let expected, expected < limit {
            var bytes = [UInt8](repeating: 0, count: expected + 1)
            var count = -1
            while count < 0 {
                count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno != EINTR { throw SystemError("read", path: path) }
            }
            if count <= expected { return Array(bytes[..<count]) }
            // It grew: read on to its end.
            return try bytes + Self.readAll(fd, path: path, limit: limit - bytes.count)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", path: path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw SystemError("read", path: path, code: EFBIG) }
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("write", path: path)
            }
            offset += count
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`: the file's position is neither used nor moved).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes {
                pwrite(fd, $0.baseAddress, $0.count, off_t(offset + written))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("pwrite", path: path)
            }
            written += count
        }
    }

    /// Makes a rename in `directory` durable.
    static func fsyncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path: directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", path: directory) }
    }

    static let temporarySuffix = ".weathertag-tmp"

    /// Asked once: `getpid` and `getrandom` were two system calls per stamped entry.
    static let processID = getpid()
    /// This process's start (see `startTime(of:)`), read once; nil without /proc.
    static let processStart = Self.startTime(of: Self.processID)
    /// This boot's id (`/proc/sys/kernel/random/boot_id`), read once; empty where it cannot be read.
    static let bootID: String = {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        let bytes = (try? FileIO.readAll(fd, path: "boot_id", limit: 64)) ?? []
        return String(decoding: bytes.filter { $0 > 0x20 }, as: UTF8.self)
    }()
    /// This boot, as a temp file's name carries it: `b` and the boot id's first eight hex digits; nil without one.
    static let bootMark: Substring? = {
        let hex = Self.bootID.filter(\.isHexDigit).prefix(8)
        return hex.count == 8 ? "b" + hex : nil
    }()
    /// Who writes this process's temp files: `{pid}.{start}`, the boot (`bootMark`: a PID and start tick come round
    /// again after a reboot, a service started at boot getting the same ones boot after boot), and a random part.
    private static let temporaryWriter =
        "\(processID).\(processStart ?? 0).\(bootMark.map { $0 + "." } ?? "")"
        + "\(String(UInt32.random(in: 0...UInt32.max), radix: 36))-"
    private static let temporaryCounter = Atomic<UInt64>(0)

    /// Opens an entry to read it (`O_NOFOLLOW`: never through a link; `O_NONBLOCK`: a FIFO does not hang), with
    /// `O_NOATIME`: the daemon's reads are not the author's, and leave the entry's access time as it was. (A read of
    /// a new file changes it under `relatime`, and on a journaled ext4 that is one more metadata write an entry: 0.8 %
    /// of a burst's samples.) Only the file's owner, or root, may ask that: the first time `EPERM` turns out to be the
    /// flag's (the open without it succeeds), the process opens without it from then on, so that a daemon reading
    /// other people's entries pays one more `open` once, not for each.
    static func openToRead(_ path: String) -> Int32 {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        guard !Self.noAccessTimeRefused.load(ordering: .relaxed) else { return open(path, flags) }
        let fd = open(path, flags | Self.noAccessTime)
        guard fd < 0, errno == EPERM else { return fd }
        let plain = open(path, flags)
        if plain >= 0 { Self.noAccessTimeRefused.store(true, ordering: .relaxed) }
        return plain
    }

    private static let noAccessTimeRefused = Atomic<Bool>(false)
    private static let noAccessTime = clinux_no_access_time_flag()

    /// Creates `.{name}.{pid}.{start}.b{boot}.{random}.weathertag-tmp` next to the target, exclusively and without
    /// following links. The boot, the PID and its process's start tell a crashed writer's leftovers from a live
    /// one's (see `isStaleTemporary`).
    static func createTemporary(directory: String, name: String, mode: mode_t) throws -> (fd: Int32, path: String) {
        for _ in 0..<8 {
            // Unique within the process by the counter, across a reused PID by the process's random part.
            let counter = String(Self.temporaryCounter.add(1, ordering: .relaxed).newValue, radix: 36)
            let path = "\(directory)/.\(name).\(Self.temporaryWriter)\(counter)\(Self.temporarySuffix)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 { return (fd, path) }
            if errno != EEXIST { throw SystemError("create", path: path) }
        }
        throw SystemError("create", path: "\(directory)/.\(name).*\(Self.temporarySuffix)", code: EEXIST)
    }

    /// Makes `.{name}.{pid}.{start}.b{boot}.{random}.weathertag-tmp`, a folder of this process's (mode 0700) in
    /// `directory`, named as its temp files are: one a crash left behind is told by `isStaleTemporary`.
    static func createTemporaryFolder(directory: String, name: String) throws -> String {
        for _ in 0..<8 {
            let counter = String(Self.temporaryCounter.add(1, ordering: .relaxed).newValue, radix: 36)
            let path = "\(directory)/.\(name).\(Self.temporaryWriter)\(counter)\(Self.temporarySuffix)"
            if mkdir(path, 0o700) == 0 { return path }
            if errno != EEXIST { throw SystemError("mkdir", path: path) }
        }
        throw SystemError("mkdir", path: "\(directory)/.\(name).*\(Self.temporarySuffix)", code: EEXIST)
    }

    /// Whether `name` is a temp file of ours whose writer is gone: no process with its PID started when it did.
    /// A PID alone was not enough: PIDs come round again (pid_max is 32,768 here, and a test run goes through them
    /// all), and `kill(pid, 0)` answers for a thread's ID as well, so a killed daemon's temp file stayed for as long
    /// as any thread on the machine had its number. Nor were a PID and a start: after a power cut, a daemon started at
    /// boot may get the same PID at the same tick, and its own leftovers looked live for good. A temp file of
    /// another boot is stale whatever it names. Temp files without a readable writer (from older versions) count as
    /// stale.
    static func isStaleTemporary(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(Self.temporarySuffix) else { return false }
        var parts = name.dropLast(Self.temporarySuffix.count).split(separator: ".")
        if parts.count >= 5, let mark = parts.dropLast().last, mark.count == 9, mark.first == "b",
            mark.dropFirst().allSatisfy(\.isHexDigit)
        {
            // `{pid}.{start}.b{boot}.{random}`: another boot's is stale; this boot's is judged by its writer.
            if let bootMark = Self.bootMark, mark != bootMark { return true }
            parts.remove(at: parts.count - 2)
        }
        guard parts.count >= 4, let pid = pid_t(parts[parts.count - 3]), pid > 0,
            let start = UInt64(parts[parts.count - 2])
        else { return true }
        guard Self.processStart != nil, let started = Self.startTime(of: pid) else {
            // No /proc to ask, or the process is not shown there (gone, or another user's under `hidepid`): whether
            // the PID runs is all there is.
            return pid != Self.processID && kill(pid, 0) != 0 && errno == ESRCH
        }
        return started != start
    }

    /// When process `pid` started, in clock ticks after boot (field 22 of /proc/PID/stat); nil when there is no such
    /// process (or no /proc). With the PID it names one process for as long as the machine runs.
    static func startTime(of pid: pid_t) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Self.startTime(stat: bytes[..<count])
    }

    /// The start time in the text of /proc/PID/stat: the 20th field after the command, which is in parentheses and
    /// may hold spaces and parentheses of its own (so it ends at the last `)`).
    static func startTime(stat: ArraySlice<UInt8>) -> UInt64? {
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 21)
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Removes the temp files a crashed writer left in `directory`; returns the names removed.
    static func removeStaleTemporaries(in directory: String, names: [String]) -> [String] {
        names.filter { name in
            Self.isStaleTemporary(name) && unlink(directory + "/" + name) == 0
        }
    }

    /// Removes the folders (`createTemporaryFolder`'s: an import's staging and unpacking) a crashed writer left in
    /// `directory`, with all they hold; returns the names removed. `names` are folders. Only the names weathertag
    /// gives its folders (`.import.…`, `.import-zip.…`) are ever removed: a whole tree goes, so a hidden folder of
    /// the author's that merely ends like a temp file is never taken for one.
    static func removeStaleTemporaryFolders(in directory: String, names: [String]) -> [String] {
        names.filter { name in
            guard name.hasPrefix(".import.") || name.hasPrefix(".import-zip."), Self.isStaleTemporary(name) else {
                return false
            }
            Self.removeTree(directory + "/" + name)
            return access(directory + "/" + name, F_OK) != 0
        }
    }

    /// `rm -r`, never following a symbolic link. Its own stack, not the call stack's: the depth is what is in the
    /// folder (an unpacked .zip's paths).
    static func removeTree(_ path: String) {
        var pending: [(path: String, emptied: Bool)] = [(path, false)]
        while let (folder, emptied) = pending.popLast() {
            guard !emptied else {
                rmdir(folder)
                continue
            }
            var info = stat()
            guard lstat(folder, &info) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFDIR, let contents = try? InboxWalk.read(folder, reading: .unsorted)
            else {
                unlink(folder)
                continue
            }
            for name in contents.files { unlink(folder + "/" + name) }
            pending.append((folder, true))
            for name in contents.folders { pending.append((folder + "/" + name, false)) }
        }
    }

    /// Writes `bytes` to `path` crash-safely: temp file in the same folder, fsync, rename over, fsync the folder.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        try Self.writeAtomically(to: path, mode: mode) { fd, temporary in try writeAll(fd, bytes, path: temporary) }
    }

    /// Writes the text `produce` gives, piece by piece, to `path` as `writeAtomically(_:to:mode:)` does: all of it or
    /// none, and never held whole (the timeline page of 50,000 entries is 68 MiB). Pieces go to the file 64 KiB
    /// at a time.
    static func writeAtomically(
        to path: String, mode: mode_t = 0o644, _ produce: (_ write: (String) throws -> Void) throws -> Void
    ) throws {
        try Self.writeAtomically(to: path, mode: mode) { fd, temporary in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(Self.writeChunk)
            try produce { text in
                buffer.append(contentsOf: text.utf8)
                guard buffer.count >= Self.writeChunk else { return }
                try writeAll(fd, buffer, path: temporary)
                buffer.removeAll(keepingCapacity: true)
            }
            try writeAll(fd, buffer, path: temporary)
        }
    }

    private static let writeChunk = 64 << 10

    /// The one way a whole file is replaced: `fill` writes the temp file (its descriptor and path), which is fsynced,
    /// renamed over `path`, and its folder fsynced; removed when anything fails.
    private static func writeAtomically(
        to path: String, mode: mode_t, fill: (_ fd: Int32, _ temporary: String) throws -> Void
    ) throws {
        let (directory, name) = split(path)
        let temporary = try createTemporary(directory: directory, name: name, mode: mode)
        do {
            defer { close(temporary.fd) }
            try fill(temporary.fd, temporary.path)
            guard fsync(temporary.fd) == 0 else { throw SystemError("fsync", path: temporary.path) }
        } catch {
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, path) == 0 else {
            let error = SystemError("rename", path: path)
            unlink(temporary.path)
            throw error
        }
        try fsyncDirectory(directory)
    }

    /// `mkdir -p`.
    /// Makes `path` and the folders above it that are missing. With `syncing`, each folder made is on the disk when
    /// this returns (its parent fsynced): a file put in it and fsynced with its folder survives a power cut.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755, syncing: Bool = false) throws {
        var current = ""
        var made: [String] = []
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) == 0 {
                made.append(current)
            } else if errno != EEXIST {
                throw SystemError("mkdir", path: current)
            }
        }
        guard syncing else { return }
        for folder in made { try Self.fsyncDirectory(Self.split(folder).directory) }
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(ofASCII: UInt8(ascii: "/")) else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.utf8.index(after: slash)...]))
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Tells a daemon watching the file's folder that it changed: opened for writing and closed, nothing written
    /// (`IN_CLOSE_WRITE`; its modification time stays). A command's own rewrite lands by exchange with a temp file of
    /// weathertag's, which the daemon takes for one of its stamps and does not read again.
    static func announceChange(_ path: String) {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
    }
}
