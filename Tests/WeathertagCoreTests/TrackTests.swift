import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// Track files read in pieces, as a growing or a 100 MB file is, and the positions worked out from their points.
@Suite("Track files and fixes")
struct TrackTests {
    /// What gpsd 3.22's `gpxlogger` wrote on this machine from the NMEA feeder, cut off while still recording (no
    /// closing tags yet), with a broken point and a point without time added by hand.
    static let gpxlogger = """
        <?xml version="1.0" encoding="utf-8"?>
        <gpx version="1.1" creator="GPSD 3.22 - https://gpsd.io/"
                xmlns:xsi="https://www.w3.org/2001/XMLSchema-instance"
                xmlns="http://www.topografix.com/GPX/1/1">
         <metadata>
          <time>2026-11-23T18:00:15.216Z</time>
         </metadata>
         <trk>
          <src>GPSD 3.22</src>
          <trkseg>
           <trkpt lat="59.910000000" lon="10.750000000">
            <ele>58.0000</ele>
            <time>2026-11-23T18:00:15.000Z</time>
            <fix>3d</fix>
           </trkpt>
           <trkpt lat="north" lon="10.750000000">
            <time>2026-11-23T18:00:16.000Z</time>
           </trkpt>
           <trkpt lat="59.920000000" lon="10.760000000">
            <ele>58.0000</ele>
           </trkpt>
           <!-- a comment with a <trkpt lat="1" lon="1"> inside -->
           <trkpt lat='59.930000000' lon='10.770000000'><time>2026-11-23T19:00:17+01:00</time><hdop>1.5</hdop></trkpt>
           <trkpt lat="59.940000000" lon="10.780000000">
            <time>2026-11-23T18:00:18.000Z</time>
        """

    static func read(
        _ text: String, chunk: Int, from resume: TrackResume = TrackResume(), format: TrackFormat = .gpx
    )
        -> (points: [TrackPoint], reader: any TrackReader)
    {
        var reader = format.reader(from: resume)
        var points: [TrackPoint] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            bytes[start..<end].withUnsafeBytes { reader.feed($0) { points.append($0) } }
            start = end
        }
        return (points, reader)
    }

    @Test func gpxIsReadInAnyPiecesWithItsProblemsByLine() throws {
        let whole = Self.read(Self.gpxlogger, chunk: 1 << 20)
        #expect(whole.points.count == 2, "the unfinished last point is not taken yet")
        #expect(
            whole.points[0]
                == TrackPoint(
                    milliseconds: 1_795_456_815_000, latitude: 59.91, longitude: 10.75, accuracyMeters: 10))
        #expect(
            whole.points[1]
                == TrackPoint(
                    milliseconds: 1_795_456_817_000, latitude: 59.93, longitude: 10.77, accuracyMeters: 7.5))
        #expect(
            whole.reader.problems.first == [
                TrackProblem(line: 16, message: "a <trkpt> without numeric lat and lon"),
                TrackProblem(line: 19, message: "a <trkpt> without <time>"),
            ])
        for chunk in [1, 2, 3, 7, 64, 500] {
            let pieces = Self.read(Self.gpxlogger, chunk: chunk)
            #expect(pieces.points == whole.points, "chunks of \(chunk)")
            #expect(pieces.reader.problems == whole.reader.problems, "chunks of \(chunk)")
            #expect(pieces.reader.resume == whole.reader.resume, "chunks of \(chunk)")
        }
    }

    /// A growing file is read on from where the last read stopped: the unfinished point is read then.
    @Test func aGrowingGPXFileIsReadOnFromTheLastCompletePoint() throws {
        let first = Self.read(Self.gpxlogger, chunk: 4096)
        let resume = first.reader.resume
        let bytes = Array(Self.gpxlogger.utf8)
        #expect(resume.offset > 0 && Int(resume.offset) < bytes.count)
        let rest =
            String(decoding: bytes[Int(resume.offset)...], as: UTF8.self)
            + "    <hdop>2</hdop>\n   </trkpt>\n  </trkseg>\n </trk>\n</gpx>\n"
        let second = Self.read(rest, chunk: 100, from: resume)
        #expect(
            second.points == [
                TrackPoint(milliseconds: 1_795_456_818_000, latitude: 59.94, longitude: 10.78, accuracyMeters: 10)
            ])
        #expect(second.reader.problems.count == 0)
        #expect(second.reader.resume.line > resume.line)
    }

    /// Appended to: read on; replaced, truncated or rewritten in place: read anew; unchanged: nothing.
    @Test func whatALookAtATrackFileReads() {
        func version(inode: UInt64 = 7, size: Int64, mtime: Int = 100) -> FileVersion {
            FileVersion(device: 1, inode: inode, size: size, modifiedSeconds: mtime, modifiedNanoseconds: 0)
        }
        let resume = TrackResume(offset: 900, line: 40)
        let indexed = version(size: 1000)
        #expect(TrackReadPlan.plan(indexed: nil, resume: TrackResume(), now: indexed) == .readAnew)
        #expect(TrackReadPlan.plan(indexed: indexed, resume: resume, now: indexed) == .nothing)
        #expect(
            TrackReadPlan.plan(indexed: indexed, resume: resume, now: version(size: 1200, mtime: 101))
                == .readOn(resume))
        #expect(
            TrackReadPlan.plan(indexed: indexed, resume: resume, now: version(size: 1000, mtime: 101)) == .readAnew,
            "the same size, written again: not an append")
        #expect(TrackReadPlan.plan(indexed: indexed, resume: resume, now: version(size: 500, mtime: 101)) == .readAnew)
        #expect(TrackReadPlan.plan(indexed: indexed, resume: resume, now: version(inode: 8, size: 1200)) == .readAnew)
        // A first read stopped halfway is kept with no version (size 0): it goes on from where it stopped.
        #expect(
            TrackReadPlan.plan(indexed: version(size: 0, mtime: 0), resume: resume, now: indexed) == .readOn(resume))
    }

    @Test func gpx10AsGpsbabelWritesItAndWaypoints() {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.0" creator="GPSBabel - https://www.gpsbabel.org" xmlns="http://www.topografix.com/GPX/1/0">
            <wpt lat="46.200000000" lon="6.150000000"><name>Home</name></wpt>
            <wpt lat="46.210000000" lon="6.160000000"><time>2019-05-01T10:00:00Z</time><name>Cafe</name></wpt>
            <rte><rtept lat="46.3" lon="6.2"><time>2019-05-01T11:00:00.5Z</time></rtept></rte>
            <trk><trkseg><trkpt lat="-33.8688" lon="151.2093"><time>2019-05-01T12:00:00Z</time><course>12</course>
            <speed>1.5</speed><pdop>2</pdop></trkpt></trkseg></trk>
            </gpx>
            """
        let read = Self.read(gpx, chunk: 33)
        #expect(read.points.map(\.milliseconds) == [1_556_704_800_000, 1_556_708_400_500, 1_556_712_000_000])
        #expect(read.points.map(\.accuracyMeters) == [nil, nil, 10])
        #expect(read.reader.problems.count == 0, "a waypoint without a time is a place, not an error")
    }

    @Test func ownTracksRecorderFiles() {
        let rec = """
            2026-11-22T08:00:00Z\t*                 \t{"_type":"location","tid":"ph","lat":52.52,"lon":13.405,"tst":1795334400,"acc":12,"batt":80}
            2026-11-22T08:05:00Z\t*                 \t{"_type":"transition","event":"leave","tst":1795334700}
            2026-11-22T08:10:00Z\t*                 \t{"_type":"location","lat":52.53,
            2026-11-22T08:15:00Z\tlwt               \t{"_type":"lwt","tst":1795335300}
            2026-11-22T08:20:00Z\t*                 \t{"_type":"location","lat":52.54,"lon":13.42,"tst":1795335600}

            """
        let whole = Self.read(rec, chunk: 1 << 16, format: .owntracks)
        #expect(
            whole.points == [
                TrackPoint(milliseconds: 1_795_334_400_000, latitude: 52.52, longitude: 13.405, accuracyMeters: 12),
                TrackPoint(milliseconds: 1_795_335_600_000, latitude: 52.54, longitude: 13.42),
            ])
        #expect(whole.reader.problems.first == [TrackProblem(line: 3, message: "not a JSON object")])
        #expect(whole.reader.resume == TrackResume(offset: Int64(rec.utf8.count), line: 6))
        for chunk in [1, 5, 80] {
            let pieces = Self.read(rec, chunk: chunk, format: .owntracks)
            #expect(pieces.points == whole.points && pieces.reader.resume == whole.reader.resume)
        }
        // A line still being written is read once it ends.
        let half = Self.read(String(rec.dropLast(30)), chunk: 1 << 16, format: .owntracks)
        #expect(half.points.count == 1 && half.reader.resume.line == 5)
    }

    @Test func timesAsRecordersWriteThem() {
        #expect(TrackTime.milliseconds(Array("2026-11-23T18:00:15Z".utf8)) == 1_795_456_815_000)
        #expect(TrackTime.milliseconds(Array("2026-11-23T18:00:15.25Z".utf8)) == 1_795_456_815_250)
        #expect(TrackTime.milliseconds(Array(" 2026-11-24T03:00:15+09:00\n".utf8)) == 1_795_456_815_000)
        #expect(TrackTime.milliseconds(Array("2026-11-23T13:00:15-0500".utf8)) == 1_795_456_815_000)
        #expect(TrackTime.milliseconds(Array("1999-12-31T23:59:59Z".utf8)) == 946_684_799_000)
        for bad in [
            "", "2026-11-23", "2026-13-23T18:00:15Z", "2026-11-23T18:00:15", "yesterday", "2026-11-23T18:00:15Zx",
        ] {
            #expect(TrackTime.milliseconds(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    // MARK: Fixes

    static let before = TrackPoint(milliseconds: 1_000_000, latitude: 10, longitude: 20, accuracyMeters: 5)
    static let after = TrackPoint(milliseconds: 1_060_000, latitude: 11, longitude: 22, accuracyMeters: 15)

    static func at(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    @Test func aPositionBetweenTwoPointsIsInterpolated() throws {
        let middle = try #require(
            TrackFix.at(
                Self.at(1_030_000), before: Self.before, after: Self.after, maximumGap: .seconds(600)))
        #expect(middle.latitude == 10.5 && middle.longitude == 21 && middle.accuracyMeters == 15)
        #expect(
            TrackFix.at(Self.at(1_000_000), before: Self.before, after: Self.after, maximumGap: .seconds(1))
                == Self.before, "a point at the very moment needs no neighbour")
        #expect(
            TrackFix.at(Self.at(1_030_000), before: Self.before, after: Self.after, maximumGap: .seconds(59))
                == nil, "a gap longer than max_gap_seconds: the recorder was off")
        #expect(TrackFix.at(Self.at(2_000_000), before: Self.after, after: nil, maximumGap: .seconds(600)) == nil)
        // The short way across the antimeridian.
        let east = TrackPoint(milliseconds: 0, latitude: 0, longitude: 179.9)
        let west = TrackPoint(milliseconds: 10_000, latitude: 0, longitude: -179.9)
        let across = try #require(TrackFix.at(Self.at(7_500), before: east, after: west, maximumGap: .seconds(60)))
        #expect(abs(across.longitude - -179.95) < 1e-9)
    }

    @Test func whereNowIsTheLatestPointWhileItIsYoung() {
        let now = Self.at(1_060_000 + 300_000)
        #expect(TrackFix.now(Self.after, at: now, maximumAge: .seconds(300)) == Self.after)
        #expect(TrackFix.now(Self.after, at: now.addingTimeInterval(1), maximumAge: .seconds(300)) == nil)
        #expect(TrackFix.now(nil, at: now, maximumAge: .seconds(300)) == nil)
    }

    // MARK: The most accurate

    @Test func theMostAccurateAnswerWinsAndNoAccuracyCountsAsACity() {
        func position(_ accuracy: Double?) -> Position {
            Position(latitude: 1, longitude: 2, accuracyMeters: accuracy, source: "x", takenAt: Self.at(0))
        }
        #expect(LocationStrategy.best([position(nil), position(4999), nil]) == 1)
        #expect(LocationStrategy.best([position(nil), position(5001)]) == 0, "5 km assumed beats 5.001 km")
        #expect(LocationStrategy.best([position(20), position(20)]) == 0, "a tie goes to the earlier provider")
        #expect(LocationStrategy.best([nil, nil]) == nil)
    }
}

@Suite("Location chain: the most accurate")
struct MostAccurateChainTests {
    func position(_ source: String, _ accuracy: Double?) -> Position {
        Position(latitude: 1, longitude: 2, accuracyMeters: accuracy, source: source, takenAt: Fixtures.observedAt)
    }

    @Test func everyProviderIsAskedAndTheSmallestAccuracyWins() async throws {
        let chain = LocationChain(
            providers: [
                ScriptedProvider(type: "ip", result: .success(self.position("ip", nil))),
                ScriptedProvider(type: "gpsd", result: .failure(LocationError(source: "gpsd", message: "no fix"))),
                ScriptedProvider(type: "track", result: .success(self.position("track", 12)), delay: .milliseconds(20)),
                ScriptedProvider(type: "command", result: .success(self.position("command", 80))),
            ],
            strategy: .mostAccurate)
        #expect(try await chain.locate().source == "track")
        let status = chain.status
        #expect(status.map(\.attempts) == [1, 1, 1, 1], "all asked")
        #expect(status.map(\.won) == [false, false, true, false])
        // With `first`, the first answer is taken and the rest are not asked.
        let first = LocationChain(providers: chain.providers, strategy: .first)
        #expect(try await first.locate().source == "ip")
        #expect(first.status.map(\.attempts) == [1, 0, 0, 0])
    }

    @Test func aSlowProviderDoesNotHoldTheOthersBeyondItsTimeout() async throws {
        let chain = LocationChain(
            providers: [
                ScriptedProvider(
                    type: "gpsd", timeout: .milliseconds(50), result: .success(self.position("gpsd", 3)),
                    delay: .seconds(30)),
                ScriptedProvider(type: "ip", result: .success(self.position("ip", nil))),
            ],
            strategy: .mostAccurate)
        #expect(try await chain.locate().source == "ip")
        #expect(chain.status[0].lastError?.contains("no position within") == true)
    }
}
