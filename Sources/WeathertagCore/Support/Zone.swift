import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A clock's offset from UTC over time: the machine's zone, with its summer time, or a fixed offset.
///
/// Written here rather than using Foundation's `TimeZone` alone: weathertag links FoundationEssentials only, whose
/// `TimeZone` knows fixed offsets and nothing else (named zones come with FoundationInternationalization and ICU,
/// 34 MB of data; docs/PERFORMANCE.md). The machine's zone is the C library's (`TZ`, else `/etc/localtime`), as
/// `date` shows it. Calendar arithmetic near a moment uses the fixed offset in force at that moment (`timeZone(at:)`).
public struct Zone: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case system
        case fixed(Int)
        /// A Foundation time zone, named ones included where the program links their data (the tests do).
        case foundation(TimeZone)
    }

    let kind: Kind

    /// The machine's zone.
    public static let system = Zone(kind: .system)
    /// The machine's zone (`Zone.system`), named as `TimeZone.current` was.
    public static let current = Zone.system
    public static let utc = Zone(kind: .fixed(0))

    public static func fixed(secondsFromGMT seconds: Int) -> Zone { Zone(kind: .fixed(seconds)) }

    public init(_ timeZone: TimeZone) { self.kind = .foundation(timeZone) }

    init(kind: Kind) { self.kind = kind }

    /// The offset from UTC in force at `date`, in seconds.
    public func secondsFromGMT(for date: Date) -> Int {
        switch self.kind {
        case .fixed(let seconds): return seconds
        case .foundation(let timeZone): return timeZone.secondsFromGMT(for: date)
        case .system:
            var time = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            guard localtime_r(&time, &parts) != nil else { return 0 }
            return Int(parts.tm_gmtoff)
        }
    }

    /// The fixed-offset `TimeZone` in force at `date`, for `Calendar` arithmetic about that moment.
    public func timeZone(at date: Date) -> TimeZone {
        TimeZone(secondsFromGMT: self.secondsFromGMT(for: date)) ?? .gmt
    }

    /// A Gregorian calendar in the offset in force at `date`.
    public func calendar(at date: Date) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = self.timeZone(at: date)
        return calendar
    }

    /// The moment a wall-clock time in this zone stands for (`mktime`'s answer for the machine's zone: in a
    /// skipped hour, the offset from before the change).
    public func date(from parts: DateComponents) -> Date? {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = .gmt
        guard let wall = utc.date(from: parts) else { return nil }
        let guess = wall.addingTimeInterval(-Double(self.secondsFromGMT(for: wall)))
        return wall.addingTimeInterval(-Double(self.secondsFromGMT(for: guess)))
    }

    public var description: String {
        switch self.kind {
        case .system: return "the machine's zone"
        case .fixed(let seconds):
            return "UTC\(seconds < 0 ? "-" : "+")\(abs(seconds) / 3600):\(abs(seconds) % 3600 / 60)"
        case .foundation(let timeZone): return timeZone.identifier
        }
    }
}
