/// A streaming reader of GPX 1.0 and 1.1: `<trkpt>`, `<rtept>` and `<wpt>` with `lat`/`lon`, their `<time>` and,
/// for the accuracy, `<hdop>` (taken as hdop × 5 m, the usual user range error), else `<pdop>`, else a satellite
/// `<fix>` (`2d`, `3d`, `dgps`, `pps`: what `gpxlogger` writes) as 10 m; without any of them none.
///
/// Hand-written rather than Foundation's `XMLParser`, for three reasons: `XMLParser` stops at the first error,
/// and a track truncated by a crash, or with one garbled point, must still give every other point; it cannot start
/// in the middle of a file, and a growing file (`gpxlogger` adds a point a second) is read on from where the last
/// read stopped; and a year of points at 10 s (3.2 million, about 400 MB) must index in seconds. GPX needs only
/// tags, attributes and text: no DTDs, no entities in the values read.
package struct GPXReader: TrackReader {
    /// The bytes not yet understood: at most an unfinished tag and its text.
    private var pending: [UInt8] = []
    /// The file offset and line of `pending[0]`.
    private var pendingOffset: Int64
    private var pendingLine: Int
    private var point: Partial?
    package private(set) var resume: TrackResume
    package private(set) var problems = TrackProblems()

    /// The accuracy of a point with a satellite fix and no dilution, in metres: a consumer receiver's.
    package static let satelliteAccuracy = 10.0

    /// A tag longer than this is not GPX: it is reported and skipped.
    static let longestTag = 64 << 10

    private struct Partial {
        var line: Int
        var kind: String
        var latitude: Double?
        var longitude: Double?
        var milliseconds: Int64?
        var hdop: Double?
        var pdop: Double?
        var satelliteFix = false
        /// A problem was reported for it: it is skipped quietly.
        var broken = false
    }

    package init(from resume: TrackResume) {
        self.resume = resume
        self.pendingOffset = resume.offset
        self.pendingLine = resume.line
    }

    package mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (TrackPoint) -> Void) {
        self.pending.append(contentsOf: bytes)
        let consumed = { () -> Int in
            let pending = self.pending
            return pending.withUnsafeBytes { buffer in self.scan(buffer, emit: emit) }
        }()
        self.pending.removeFirst(consumed)
    }

    /// Reads whole tags from `buffer` and returns how many bytes it is done with.
    private mutating func scan(_ buffer: UnsafeRawBufferPointer, emit: (TrackPoint) -> Void) -> Int {
        let end = buffer.count
        var index = 0
        var line = self.pendingLine
        func newlines(_ range: Range<Int>) -> Int { Self.newlines(buffer, range) }
        func find(_ byte: UInt8, from start: Int) -> Int? { Self.find(byte, buffer, from: start) }
        while index < end {
            guard let open = find(60, from: index) else {  // <
                line += newlines(index..<end)
                index = end
                break
            }
            line += newlines(index..<open)
            index = open
            guard let close = find(62, from: open + 1) else {  // >
                if end - open > Self.longestTag {
                    self.problems.append(TrackProblem(line: line, message: "a tag runs on for more than 64 KiB"))
                    index = open + 1
                    continue
                }
                break
            }
            let tagLine = line
            // Comments, declarations, processing instructions: passed over (a comment may hold a `>`).
            if close > open + 1, buffer[open + 1] == 33 || buffer[open + 1] == 63 {  // ! ?
                if open + 3 < end, buffer[open + 2] == 45, buffer[open + 3] == 45 {  // <!--
                    guard let after = Self.commentEnd(buffer, from: open + 4) else { break }
                    line += newlines(open..<after)
                    index = after
                    continue
                }
                line += newlines(open..<close)
                index = close + 1
                continue
            }
            let closing = buffer[open + 1] == 47  // /
            let name = Self.localName(buffer, from: closing ? open + 2 : open + 1, to: close)
            if closing {
                if Self.isPoint(name), let point = self.point, point.kind == name {
                    self.finishPoint(point, emit: emit)
                    self.point = nil
                    line += newlines(open..<close)
                    index = close + 1
                    self.resume = TrackResume(offset: self.pendingOffset + Int64(index), line: line)
                    continue
                }
            } else if Self.isPoint(name) {
                line += newlines(open..<close)
                index = close + 1
                self.open(
                    name, buffer, open..<close, line: tagLine,
                    resume: TrackResume(offset: self.pendingOffset + Int64(index), line: line))
                continue
            } else if self.point != nil, name == "time" || name == "hdop" || name == "pdop" || name == "fix" {
                // The text up to the next tag.
                guard let next = find(60, from: close + 1) else { break }
                self.read(name, buffer, (close + 1)..<next, line: tagLine)
                line += newlines(open..<next)
                index = next
                continue
            }
            line += newlines(open..<close)
            index = close + 1
        }
        self.pendingOffset += Int64(index)
        self.pendingLine = line
        return index
    }

    /// A point's opening tag (`<trkpt lat=".." lon="..">`): its position, or what is wrong with it. A self-closed
    /// one has no time, so nothing to place in time: done at once (`resume` is where reading may start again).
    private mutating func open(
        _ name: String, _ buffer: UnsafeRawBufferPointer, _ tag: Range<Int>, line: Int, resume: TrackResume
    ) {
        if let unfinished = self.point, !unfinished.broken {
            self.problems.append(TrackProblem(line: unfinished.line, message: "a <\(unfinished.kind)> is not closed"))
        }
        var point = Partial(line: line, kind: name)
        point.latitude = Self.attribute("lat", buffer, tag).flatMap { buffer.double(in: $0) }
        point.longitude = Self.attribute("lon", buffer, tag).flatMap { buffer.double(in: $0) }
        if point.latitude == nil || point.longitude == nil {
            self.problems.append(TrackProblem(line: line, message: "a <\(name)> without numeric lat and lon"))
            point.broken = true
        }
        guard buffer[tag.upperBound - 1] == 47 else {  // not <wpt lat=".." lon=".."/>
            self.point = point
            return
        }
        if !point.broken, name != "wpt" {
            self.problems.append(TrackProblem(line: line, message: "a <\(name)> without <time>"))
        }
        self.resume = resume
    }

    /// The text of one of the open point's fields: `time`, `hdop`, `pdop` or `fix`.
    private mutating func read(_ name: String, _ buffer: UnsafeRawBufferPointer, _ text: Range<Int>, line: Int) {
        switch name {
        case "time":
            if let milliseconds = TrackTime.milliseconds(UnsafeRawBufferPointer(rebasing: buffer[text])) {
                self.point?.milliseconds = milliseconds
            } else if self.point?.broken == false {
                let shown = String(decoding: buffer[text].prefix(40), as: UTF8.self)
                self.problems.append(TrackProblem(line: line, message: "\"\(shown)\" is not a time"))
                self.point?.broken = true
            }
        case "hdop": self.point?.hdop = buffer.double(in: text)
        case "pdop": self.point?.pdop = buffer.double(in: text)
        default:
            let fix = String(decoding: buffer[text].prefix(8), as: UTF8.self)
            self.point?.satelliteFix = ["2d", "3d", "dgps", "pps"].contains(fix)
        }
    }

    private static func newlines(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int {
        var count = 0
        for position in range where buffer[position] == 10 { count += 1 }
        return count
    }

    private static func find(_ byte: UInt8, _ buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var position = start
        while position < buffer.count {
            if buffer[position] == byte { return position }
            position += 1
        }
        return nil
    }

    /// Where a comment whose text starts at `start` ends (after its `-->`); nil when it does not end in `buffer`.
    private static func commentEnd(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var position = start
        while position + 2 < buffer.count {
            if buffer[position] == 45, buffer[position + 1] == 45, buffer[position + 2] == 62 { return position + 3 }
            position += 1
        }
        return nil
    }

    private mutating func finishPoint(_ point: Partial, emit: (TrackPoint) -> Void) {
        guard !point.broken, let latitude = point.latitude, let longitude = point.longitude else { return }
        guard let milliseconds = point.milliseconds else {
            // A waypoint without a time is a place, not a moment (OsmAnd's favourites): not an error.
            if point.kind != "wpt" {
                self.problems.append(TrackProblem(line: point.line, message: "a <\(point.kind)> without <time>"))
            }
            return
        }
        let accuracy = (point.hdop ?? point.pdop).map { $0 * 5 } ?? (point.satelliteFix ? Self.satelliteAccuracy : nil)
        let fix = TrackPoint(
            milliseconds: milliseconds, latitude: latitude, longitude: longitude, accuracyMeters: accuracy)
        guard fix.isValid else {
            self.problems.append(
                TrackProblem(line: point.line, message: "coordinates off the globe (\(latitude), \(longitude))"))
            return
        }
        emit(fix)
    }

    private static func isPoint(_ name: String) -> Bool {
        name == "trkpt" || name == "wpt" || name == "rtept"
    }

    /// The element's name without a namespace prefix (`gpx:trkpt` → `trkpt`), lowercased ASCII.
    private static func localName(_ buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> String {
        var position = start
        var nameStart = start
        while position < end {
            let byte = buffer[position]
            if byte == 32 || byte == 9 || byte == 10 || byte == 13 || byte == 47 || byte == 62 { break }
            if byte == 58 { nameStart = position + 1 }  // :
            position += 1
        }
        guard position - nameStart <= 16 else { return "" }
        return String(decoding: buffer[nameStart..<position], as: UTF8.self).lowercased()
    }

    /// The value's range of attribute `name` in a start tag, either quote.
    private static func attribute(
        _ name: StaticString, _ buffer: UnsafeRawBufferPointer, _ tag: Range<Int>
    ) -> Range<Int>? {
        let key = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var position = tag.lowerBound + 1
        while position + key.count + 2 < tag.upperBound {
            let before = buffer[position - 1]
            if before == 32 || before == 9 || before == 10 || before == 13 {
                var matches = true
                for offset in 0..<key.count where buffer[position + offset] != key[offset] {
                    matches = false
                    break
                }
                if matches {
                    var cursor = position + key.count
                    while cursor < tag.upperBound, buffer[cursor] == 32 { cursor += 1 }
                    if cursor < tag.upperBound, buffer[cursor] == 61 {  // =
                        cursor += 1
                        while cursor < tag.upperBound, buffer[cursor] == 32 { cursor += 1 }
                        guard cursor < tag.upperBound else { return nil }
                        let quote = buffer[cursor]
                        guard quote == 34 || quote == 39 else { return nil }
                        var close = cursor + 1
                        while close < tag.upperBound, buffer[close] != quote { close += 1 }
                        guard close < tag.upperBound else { return nil }
                        return (cursor + 1)..<close
                    }
                }
            }
            position += 1
        }
        return nil
    }
}
