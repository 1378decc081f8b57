/// A streaming reader of the OwnTracks Recorder's storage, `rec/USER/DEVICE/YYYY-MM.rec`: a line per message,
/// `2026-11-23T09:41:07Z<TAB>*<spaces><TAB>{"_type":"location","lat":…,"lon":…,"tst":…,"acc":…}`. Only
/// `location` messages are points (`tst` in seconds, `acc` in metres); other types (transitions, waypoints, cards)
/// are passed over. A line whose JSON cannot be read is reported and the rest still used.
package struct OwnTracksRecordReader: TrackReader {
    private var pending: [UInt8] = []
    /// The line being read ran past `longestLine`: it is not kept, and reported when it ends.
    private var overlong = false
    private var overlongBytes = 0
    package private(set) var resume: TrackResume
    package private(set) var problems = TrackProblems()

    /// A line longer than this is not a Recorder's: it is reported and skipped.
    static let longestLine = 64 << 10

    package init(from resume: TrackResume) {
        self.resume = resume
    }

    package mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (TrackPoint) -> Void) {
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 10 {
            // What the line began with in earlier chunks (an overlong line's, counted).
            let earlier = self.overlong ? self.overlongBytes : self.pending.count
            if self.overlong {
                self.overlong = false
                self.pending.removeAll()
                self.problems.append(TrackProblem(line: self.resume.line, message: "a line longer than 64 KiB"))
            } else if self.pending.isEmpty {
                self.line(UnsafeRawBufferPointer(rebasing: bytes[start..<index]), emit: emit)
            } else {
                self.pending.append(contentsOf: bytes[start..<index])
                let line = self.pending
                self.pending.removeAll(keepingCapacity: true)
                line.withUnsafeBytes { self.line($0, emit: emit) }
            }
            self.resume.offset += Int64(earlier + index - start + 1)
            self.overlongBytes = 0
            self.resume.line += 1
            start = index + 1
        }
        if start < bytes.count {
            if self.overlong {
                self.overlongBytes += bytes.count - start
            } else if self.pending.count + bytes.count - start > Self.longestLine {
                self.overlong = true
                self.overlongBytes = self.pending.count + bytes.count - start
                self.pending.removeAll()
            } else {
                self.pending.append(contentsOf: bytes[start...])
            }
        }
    }

    private mutating func line(_ bytes: UnsafeRawBufferPointer, emit: (TrackPoint) -> Void) {
        guard let brace = bytes.firstIndex(of: 123) else { return }  // a blank or comment line: nothing to read
        let number = self.resume.line
        guard let message = OwnTracksLocation.decodeJSON(Array(bytes[brace...])) else {
            self.problems.append(TrackProblem(line: number, message: "not a JSON object"))
            return
        }
        guard message.type == "location" else { return }
        guard let point = message.point else {
            self.problems.append(TrackProblem(line: number, message: "a location without numeric lat, lon and tst"))
            return
        }
        guard point.isValid else {
            self.problems.append(
                TrackProblem(line: number, message: "coordinates off the globe (\(point.latitude), \(point.longitude))")
            )
            return
        }
        emit(point)
    }
}
