/// The note the daemon keeps of the batch it is stamping, so that a file that kills it (a bug not found yet) is not
/// taken up again by the next start: without it, systemd restarts the daemon, the listing finds the same file first,
/// and the daemon dies again, a crash loop in which no later entry is stamped.
///
/// As queue consumers set aside a message that killed them (a dead-letter queue): the note is written before the
/// batch's first file is read, the entry reached is written over a fixed field as the batch moves on (no fsync: a
/// process that dies leaves the page cache to the kernel), and the note is removed when the batch is done. A fault
/// of the daemon's own (a trap, a stack overflow, the watchdog's SIGABRT) writes `C` into the crash field from a
/// signal handler as the process dies. A note still there at start with that flag names the file the daemon was
/// stamping when it crashed. Without it (a `kill -9` from outside, the OOM killer) or from another boot (the
/// machine stopped), it blames nothing: that death was not the file's doing.
///
/// The file's layout: `weathertag-batch`, the boot's id, the reached field and the crash field on lines of their
/// own, then the batch's names, each ended by a NUL (a name can hold a newline; it cannot hold a NUL), and one NUL
/// more. The daemon writes each batch's note over the last one's, in the same file, without truncating it: what
/// follows the second NUL is what is left of a longer note, and is not read. A done batch's note has its reached
/// field blank, and names no entry.
package struct BatchMarker: Sendable, Equatable {
    package var boot: String
    package var names: [String]
    /// The index in `names` of the entry being stamped; nil before the first.
    package var reached: Int?
    /// The process died of a fault of its own while stamping.
    package var crashed: Bool

    package init(boot: String, names: [String], reached: Int? = nil, crashed: Bool = false) {
        self.boot = boot
        self.names = names
        self.reached = reached
        self.crashed = crashed
    }

    private static let magic = "weathertag-batch"
    /// Digits of the reached field: eight, as a batch holds far fewer entries.
    package static let reachedWidth = 8

    /// The note as written before the batch starts.
    package var bytes: [UInt8] {
        var bytes =
            Array("\(Self.magic)\n\(self.boot)\n".utf8) + Self.field(self.reached) + [0x0A]
            + [self.crashed ? Self.crashFlag : 0x20, 0x0A]
        for name in self.names { bytes += Array(name.utf8) + [0] }
        return bytes + [0]
    }

    /// Where the reached field stands in `bytes`, to write `field(index)` over it.
    package var reachedOffset: Int { Self.magic.utf8.count + 1 + self.boot.utf8.count + 1 }

    /// Where the crash field stands: the signal handler writes `crashFlag` there.
    package var crashedOffset: Int { self.reachedOffset + Self.reachedWidth + 1 }
    package static let crashFlag = UInt8(ascii: "C")

    /// The reached field's bytes for an entry's index (blanks for none).
    package static func field(_ index: Int?) -> [UInt8] {
        guard let index else { return Array(repeating: 0x20, count: Self.reachedWidth) }
        let digits = Array(String(index).utf8)
        return Array(repeating: UInt8(ascii: "0"), count: max(0, Self.reachedWidth - digits.count)) + digits
    }

    /// Reads a note back; nil for anything that is not one (a torn or foreign file).
    package init?(_ bytes: [UInt8]) {
        var lines = bytes.split(separator: 0x0A, maxSplits: 4, omittingEmptySubsequences: false)
        guard lines.count == 5, String(decoding: lines[0], as: UTF8.self) == Self.magic,
            lines[2].count == Self.reachedWidth, lines[3].count == 1
        else { return nil }
        let field = String(decoding: lines[2], as: UTF8.self)
        let blank = field.allSatisfy { $0 == " " }
        let reached = blank ? nil : Int(field)
        guard reached != nil || blank else { return nil }
        // Up to the first empty name: the end of this note (or of the file, for a note written without it).
        let names = lines.removeLast().split(separator: 0, omittingEmptySubsequences: false)
            .prefix { !$0.isEmpty }.map { String(decoding: $0, as: UTF8.self) }
        self.init(
            boot: String(decoding: lines[1], as: UTF8.self), names: names, reached: reached,
            crashed: lines[3].first == Self.crashFlag)
    }

    /// The name the daemon was stamping when it stopped in this boot (nil: no entry reached, or another boot's).
    package func stopped(currentBoot: String) -> String? {
        guard self.boot == currentBoot, let reached, self.names.indices.contains(reached) else { return nil }
        return self.names[reached]
    }

    /// The entry to set aside: the one being stamped when the daemon crashed of its own fault in this boot.
    package func suspect(currentBoot: String) -> String? {
        self.crashed ? self.stopped(currentBoot: currentBoot) : nil
    }
}

/// The entries set aside because the daemon stopped while stamping them, each with the version it had then: left
/// alone while it has that version, taken up again once it changes. Kept in a small file beside the state database,
/// so that a restart of any kind does not take them up either.
package struct SetAsideEntries: Sendable, Equatable {
    package private(set) var versions: [String: FileVersion]

    package init(_ versions: [String: FileVersion] = [:]) { self.versions = versions }

    /// Whether `name` is set aside in this version. A changed one is no longer (the change may be the remedy), and
    /// `released` says it was, so the file is written again.
    package mutating func holds(_ name: String, _ version: FileVersion) -> (held: Bool, released: Bool) {
        guard let kept = self.versions[name] else { return (false, false) }
        guard kept != version else { return (true, false) }
        self.versions[name] = nil
        return (false, true)
    }

    package mutating func setAside(_ name: String, _ version: FileVersion) { self.versions[name] = version }

    package mutating func release(_ name: String) { self.versions[name] = nil }

    /// One line an entry: device, inode, size, seconds and nanoseconds of its modification time, then its name,
    /// ended by a NUL.
    package var bytes: [UInt8] {
        self.versions.sorted { $0.key < $1.key }.flatMap { name, version in
            Array(
                "\(version.device) \(version.inode) \(version.size) \(version.modifiedSeconds) \(version.modifiedNanoseconds) "
                    .utf8) + Array(name.utf8) + [0]
        }
    }

    /// Reads the file back; a record that does not read is dropped (its entry is taken up again).
    package init(_ bytes: [UInt8]) {
        var versions: [String: FileVersion] = [:]
        for record in bytes.split(separator: 0) {
            let parts = record.split(separator: 0x20, maxSplits: 5, omittingEmptySubsequences: false)
            guard parts.count == 6, let device = UInt64(String(decoding: parts[0], as: UTF8.self)),
                let inode = UInt64(String(decoding: parts[1], as: UTF8.self)),
                let size = Int64(String(decoding: parts[2], as: UTF8.self)),
                let seconds = Int(String(decoding: parts[3], as: UTF8.self)),
                let nanoseconds = Int(String(decoding: parts[4], as: UTF8.self)), !parts[5].isEmpty
            else { continue }
            versions[String(decoding: parts[5], as: UTF8.self)] = FileVersion(
                device: device, inode: inode, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds)
        }
        self.versions = versions
    }
}
