import Glibc

/// Where a later read of a track file that grew goes on: the byte just after the last complete point (or line), and
/// the line number there. Recorders append (`gpxlogger` writes a point a second, the OwnTracks Recorder a line per
/// location), so a grown file is read from here, not from its start.
package struct TrackResume: Sendable, Equatable {
    package var offset: Int64
    package var line: Int

    package init(offset: Int64 = 0, line: Int = 1) {
        self.offset = offset
        self.line = line
    }
}

/// Reads a track file in chunks of any size, in constant memory: a 100 MB GPX file is never held whole. Points go
/// to `emit` as they are read; lines that cannot be used go to `problems`, and reading goes on after them.
package protocol TrackReader {
    /// A reader that starts at `resume` (the file's start, or where an earlier read stopped).
    init(from resume: TrackResume)
    /// The next bytes of the file.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (TrackPoint) -> Void)
    /// Where to go on when the file grows: after the last complete point.
    var resume: TrackResume { get }
    /// The first problems found (at most `TrackProblems.kept`), and how many there were in all.
    var problems: TrackProblems { get }
}

/// What could not be used in a file: the first few, with their lines, and a count.
package struct TrackProblems: Sendable, Equatable {
    package static let kept = 20
    package private(set) var first: [TrackProblem] = []
    package private(set) var count = 0

    package init() {}

    mutating func append(_ problem: TrackProblem) {
        self.count += 1
        if self.first.count < Self.kept { self.first.append(problem) }
    }
}

/// The two formats weathertag reads, by file name.
package enum TrackFormat: String, Sendable, CaseIterable {
    /// GPX 1.0 and 1.1: `gpxlogger`, GPSLogger, OsmAnd, gpsbabel.
    case gpx
    /// An OwnTracks Recorder's `rec/USER/DEVICE/YYYY-MM.rec`.
    case owntracks = "rec"

    package init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".gpx") {
            self = .gpx
        } else if lower.hasSuffix(".rec") {
            self = .owntracks
        } else {
            return nil
        }
    }

    package func reader(from resume: TrackResume) -> any TrackReader {
        switch self {
        case .gpx: GPXReader(from: resume)
        case .owntracks: OwnTracksRecordReader(from: resume)
        }
    }
}

extension UnsafeRawBufferPointer {
    /// A decimal number in `range` (`-33.8688`, `151.2093`, `1e-3`), without allocating: recorders write millions.
    func double(in range: Range<Int>) -> Double? {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end, self[start] == 32 || self[start] == 9 || self[start] == 10 || self[start] == 13 {
            start += 1
        }
        while end > start, self[end - 1] == 32 || self[end - 1] == 9 || self[end - 1] == 10 || self[end - 1] == 13 {
            end -= 1
        }
        let count = end - start
        guard count > 0, count < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer -> Double? in
            for index in 0..<count {
                let byte = self[start + index]
                // Digits, sign, point and exponent only: strtod would also take "nan", "inf" and hex.
                guard (48...57).contains(byte) || byte == 45 || byte == 43 || byte == 46 || byte == 101 || byte == 69
                else { return nil }
                buffer[index] = CChar(bitPattern: byte)
            }
            buffer[count] = 0
            guard let start = buffer.baseAddress else { return nil }
            var endPointer: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &endPointer)
            guard endPointer == start + count else { return nil }
            return value
        }
    }
}

/// What a look at a track file reads, from the version the index holds of it (with where its read stopped) and
/// the file's version now. Recorders append, so a file on the same inode that only grew is read on from the
/// resume point; anything else that changed (replaced, truncated, rewritten in place to the same size) is read
/// anew, its old points dropped.
package enum TrackReadPlan: Sendable, Equatable {
    /// The indexed version: nothing to read.
    case nothing
    /// It grew: read from here.
    case readOn(TrackResume)
    /// New or rewritten: read it all.
    case readAnew

    package static func plan(indexed: FileVersion?, resume: TrackResume, now: FileVersion) -> TrackReadPlan {
        guard let indexed else { return .readAnew }
        if indexed == now { return .nothing }
        if indexed.device == now.device, indexed.inode == now.inode, now.size > indexed.size,
            resume.offset <= now.size
        {
            return .readOn(resume)
        }
        return .readAnew
    }
}
