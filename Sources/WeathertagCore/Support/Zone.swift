import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A clock's offset from UTC over time: the machine's zone, with its summer time, or a fixed offset.
///
/// Written here rather than using Foundation's `TimeZone` alone: weathertag links FoundationEssentials only, whose
/// `TimeZone` knows fixed offsets and nothing else (named zones come with FoundationInternationalization and ICU,
/// 34 MB of data; docs/PERFORMANCE.md). The machine's zone is the C library's (`TZ`, else `/etc/localtime`), as
/// `date` shows it. Calendar arithmetic near a moment uses the fixed offset in force at that moment (`timeZone(at:)`).
package struct Zone: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case system
        case fixed(Int)
        /// A Foundation time zone, named ones included where the program links their data (the tests do).
        case foundation(TimeZone)
        /// A zone of the system's tz database (`/usr/share/zoneinfo`), by its IANA name. Out of line: its rules
        /// inline made every `Zone` 136 bytes, and every entry's time (`EntryTime`) holds two.
        indirect case named(String, TZif)
    }

    let kind: Kind

    /// The machine's zone.
    package static let system = Zone(kind: .system)
    /// The machine's zone (`Zone.system`), named as `TimeZone.current` was.
    package static let current = Zone.system
    package static let utc = Zone(kind: .fixed(0))

    package static func fixed(secondsFromGMT seconds: Int) -> Zone { Zone(kind: .fixed(seconds)) }

    package init(_ timeZone: TimeZone) { self.kind = .foundation(timeZone) }

    /// The zone of the system's tz database named `identifier` (`Europe/Berlin`, `Asia/Seoul`, `UTC`), read from
    /// `$TZDIR` or `/usr/share/zoneinfo` once and kept; nil for a name that is not one there. The name comes from
    /// answers and files, so it is checked to be a name, not a path.
    package static func named(_ identifier: String) -> Zone? {
        if let known = Self.loaded.withLock({ $0[identifier] }) { return known }
        guard !identifier.isEmpty, identifier.utf8.count <= 64, !identifier.hasPrefix("/"),
            !identifier.split(separator: "/").contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }),
            identifier.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_+-".contains($0)) })
        else { return nil }
        let directory = getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
        guard let bytes = Self.read(directory + "/" + identifier), let zone = TZif(bytes) else { return nil }
        let named = Zone(kind: .named(identifier, zone))
        Self.loaded.withLock { $0[identifier] = named }
        return named
    }

    /// The zones read so far: a few per diary.
    private static let loaded = Mutex<[String: Zone]>([:])

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: TZif.maximumBytes + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        guard count <= TZif.maximumBytes else { return nil }
        return Array(bytes[..<count])
    }

    /// The IANA name, for a zone of the tz database.
    package var identifier: String? {
        if case .named(let name, _) = self.kind { return name }
        return nil
    }

    init(kind: Kind) { self.kind = kind }

    /// The offset from UTC in force at `date`, in seconds.
    package func secondsFromGMT(for date: Date) -> Int {
        switch self.kind {
        case .fixed(let seconds): return seconds
        case .foundation(let timeZone): return timeZone.secondsFromGMT(for: date)
        case .named(_, let zone): return zone.offset(at: Int64(date.timeIntervalSince1970.rounded(.down)))
        case .system:
            var time = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            guard localtime_r(&time, &parts) != nil else { return 0 }
            return Int(parts.tm_gmtoff)
        }
    }

    /// The fixed-offset `TimeZone` in force at `date`, for `Calendar` arithmetic about that moment.
    package func timeZone(at date: Date) -> TimeZone {
        TimeZone(secondsFromGMT: self.secondsFromGMT(for: date)) ?? .gmt
    }

    /// A Gregorian calendar in the offset in force at `date`.
    package func calendar(at date: Date) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = self.timeZone(at: date)
        return calendar
    }

    /// The moment a wall-clock time in this zone stands for (`mktime`'s answer for the machine's zone: in a
    /// skipped hour, the offset from before the change).
    package func date(from parts: DateComponents) -> Date? {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = .gmt
        guard let wall = utc.date(from: parts) else { return nil }
        // A wall-clock time the night the clocks go back happens twice: the first of them, as RFC 5545 and
        // java.time read it (a diary's "02:30" that night is not an hour ahead of now). The offsets a day either
        // side are those before and after any change near it.
        let offsets = [-86_400.0, 86_400].map { self.secondsFromGMT(for: wall.addingTimeInterval($0)) }
        let occurrences = offsets.map { wall.addingTimeInterval(-Double($0)) }.filter { candidate in
            Double(self.secondsFromGMT(for: candidate)) == wall.timeIntervalSince(candidate)
        }
        if let first = occurrences.min() { return first }
        // In the gap the clocks jump over: as the offset before it reads it.
        let guess = wall.addingTimeInterval(-Double(self.secondsFromGMT(for: wall)))
        return wall.addingTimeInterval(-Double(self.secondsFromGMT(for: guess)))
    }

    package var description: String {
        switch self.kind {
        case .system: return "the machine's zone"
        case .fixed(let seconds):
            return "UTC\(seconds < 0 ? "-" : "+")\(abs(seconds) / 3600):\(abs(seconds) % 3600 / 60)"
        case .foundation(let timeZone): return timeZone.identifier
        case .named(let name, _): return name
        }
    }
}
