import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// What is remembered of a stamp, and when it is given back: pure, no files.
@Suite("the memory of stamps")
struct EntryMemoryTests {
    static let block = ["weather:", "  condition: Rain", "  temperature: 3.5", "  observed_at: 2026-11-23T09:00:00Z"]

    @Test func theBlockIsReadBackAsItStandsInTheFile() {
        let file = """
            ---
            title: Monday
            weather:
              condition: Rain   # as the author left it
              temperature: 3.5

              observed_at: 2026-11-23T09:00:00Z
            # a comment after the block is not part of it
            tags: [walk]
            ---
            Body with weather: in it
            """
        #expect(
            FrontMatterStamper.weatherBlock(Array(file.utf8)) == [
                "weather:", "  condition: Rain   # as the author left it", "  temperature: 3.5", "",
                "  observed_at: 2026-11-23T09:00:00Z",
            ])
        // CRLF files: the lines without their ends.
        let crlf = "---\r\nweather:\r\n  condition: Rain\r\n---\r\nBody\r\n"
        #expect(FrontMatterStamper.weatherBlock(Array(crlf.utf8)) == ["weather:", "  condition: Rain"])
        // No mapping: nothing to remember.
        for text in ["No front matter\n", "---\ntitle: x\n---\n", "---\nweather:\n---\n", "---\nweather: sunny\n---\n"]
        {
            #expect(FrontMatterStamper.weatherBlock(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func aRememberedBlockGoesBackByteForByteWhereverTheStamperPutsBlocks() throws {
        let original = Array("---\ntitle: Monday\n---\nDear diary\n".utf8)
        guard case .stamped(let stamped) = FrontMatterStamper.stamp(original, lines: Self.block) else {
            Issue.record("not stamped")
            return
        }
        let remembered = try #require(FrontMatterStamper.weatherBlock(stamped))
        #expect(remembered == Self.block)
        // The same block into the same original gives the same bytes.
        #expect(FrontMatterStamper.stamp(original, lines: remembered) == .stamped(stamped))
    }

    @Test func freshReplacesTheBlockAndKeepsEveryOtherByte() {
        let file = "---\ntitle: Monday\nweather:\n  condition: Rain\n  temperature: 3.5\ntags: [a]\n---\nBody\n"
        let new = ["weather:", "  condition: Snow"]
        #expect(FrontMatterStamper.stamp(Array(file.utf8), lines: new) == .alreadyStamped)
        #expect(
            FrontMatterStamper.stamp(Array(file.utf8), lines: new, replacing: true)
                == .stamped(Array("---\ntitle: Monday\nweather:\n  condition: Snow\ntags: [a]\n---\nBody\n".utf8)))
        // Without a block, replacing is an ordinary stamp.
        #expect(
            FrontMatterStamper.stamp(Array("Body\n".utf8), lines: new, replacing: true)
                == .stamped(Array("---\nweather:\n  condition: Snow\n---\nBody\n".utf8)))
    }

    @Test func aRemovedEntryIsRememberedForItsGraceTimeOnly() {
        let policy = RestorePolicy(forgetAfter: 600)
        let now = Date(timeIntervalSince1970: 1_795_431_600)
        let present = RememberedStamp(block: Self.block)
        #expect(policy.block(for: present, now: now) == Self.block)
        #expect(policy.block(for: present, now: now, fresh: true) == nil, "fresh: new weather on purpose")
        #expect(policy.block(for: nil, now: now) == nil)
        // git and tar delete and write again at once: still the same entry.
        let justRemoved = RememberedStamp(block: Self.block, removedAt: now.addingTimeInterval(-599))
        #expect(policy.block(for: justRemoved, now: now) == Self.block)
        // Back after the grace: a new entry, new weather.
        let longGone = RememberedStamp(block: Self.block, removedAt: now.addingTimeInterval(-600))
        #expect(policy.block(for: longGone, now: now) == nil)
        #expect(policy.forgottenBefore(now) == now.addingTimeInterval(-600))
    }

    @Test func movesMeanRenamesRemovalsOrNothing() {
        let tree = InboxTree(excludes: ["drafts/"])
        func move(_ from: String?, _ to: String?, folder: Bool = false) -> PathChange? {
            PathChange.move(from: from, to: to, isFolder: folder, tree: tree)
        }
        #expect(move("a.md", "2026/a.md") == .renamed(from: "a.md", to: "2026/a.md"))
        #expect(move("2026", "2027", folder: true) == .renamed(from: "2026", to: "2027"))
        // rsync's and editors' temp file renamed over the entry: the entry's memory stays as it is.
        #expect(move(".a.md.Xy12ab", "a.md") == nil)
        // vim's backup rename, a move out, into a hidden or excluded folder: the entry has left.
        #expect(move("a.md", "a.md~") == .removed("a.md"))
        #expect(move("a.md", nil) == .removed("a.md"))
        #expect(move("2026", ".trash", folder: true) == .removed("2026"))
        #expect(move("2026", "drafts", folder: true) == .removed("2026"))
        #expect(move(nil, "a.md") == nil, "moved in: the arrival reads it")
        // Paths below a renamed folder follow it; others do not.
        #expect(PathChange.renamed("2026/11/23.md", from: "2026", to: "2027") == "2027/11/23.md")
        #expect(PathChange.renamed("20260/x.md", from: "2026", to: "2027") == nil)
        #expect(PathChange.renamed("2026", from: "2026", to: "2027") == "2027")
    }
}

/// The weather of an earlier time: OpenWeather's timemachine, and where an entry says it was written.
@Suite("history")
struct HistoryAPITests {
    @Test func theTimemachineIsAskedAndReadAsDocumented() throws {
        let url = OpenWeatherAPI.timemachineURL(
            baseURL: "http://127.0.0.1:9/", at: Fixtures.request(46.2, 6.15),
            time: Date(timeIntervalSince1970: 1_556_712_000.7),
            apiKey: "k y", units: .metric, lang: "de")
        #expect(
            url == "http://127.0.0.1:9/data/3.0/onecall/timemachine?lat=46.20000&lon=6.15000&dt=1556712000&units=metric"
                + "&lang=de&appid=k%20y")
        let body = #"""
            {"lat": 46.2, "lon": 6.15, "timezone": "Europe/Zurich", "timezone_offset": 7200,
             "data": [{"dt": 1556712000, "sunrise": 1556683000, "sunset": 1556735000, "temp": 8.5, "feels_like": 7,
                       "pressure": 1009, "humidity": 88, "wind_speed": 5.1,
                       "weather": [{"id": 500, "main": "Rain", "description": "light rain", "icon": "10d"}]}]}
            """#
        let weather = try OpenWeatherAPI.decodeTimemachine(
            HTTPResponse(status: 200, body: Array(body.utf8)), units: .metric)
        #expect(weather.description == "light rain" && weather.temperature == 8.5 && weather.humidity == 88)
        #expect(weather.observedAt == Date(timeIntervalSince1970: 1_556_712_000))
        let refusal =
            #"{"cod": 401, "message": "Please note that using One Call 3.0 requires a separate subscription"}"#
        #expect {
            try OpenWeatherAPI.decodeTimemachine(HTTPResponse(status: 401, body: Array(refusal.utf8)), units: .metric)
        } throws: { error in
            "\(error)".contains("this key has no One Call 3.0 subscription")
        }
        #expect(throws: WeatherError.self) {
            try OpenWeatherAPI.decodeTimemachine(
                HTTPResponse(status: 200, body: Array(#"{"data": []}"#.utf8)), units: .metric)
        }
    }

    @Test func anEntrySaysWhereItWasWritten() {
        func position(_ frontMatter: String) -> (Double, Double)? {
            FrontMatterStamper.position(Array("---\n\(frontMatter)\n---\nBody\n".utf8)).map {
                ($0.latitude, $0.longitude)
            }
        }
        #expect(position("latitude: 47.37\nlongitude: 8.54")! == (47.37, 8.54))
        #expect(position("location:\n  latitude: 47.37\n  longitude: 8.54")! == (47.37, 8.54))
        #expect(position("location: {lat: 47.37, lng: 8.54}")! == (47.37, 8.54))
        #expect(position("location: [47.37, 8.54]")! == (47.37, 8.54), "Obsidian Map View")
        #expect(position("location: [\"47.37,8.54\"]")! == (47.37, 8.54))
        #expect(position("title: no place") == nil)
        #expect(position("latitude: 147.37\nlongitude: 8.54") == nil, "out of range")
        #expect(position("location: Zurich") == nil)
        // The stamped block's own location is not the entry's.
        #expect(position("weather:\n  location:\n    latitude: 1\n    longitude: 2") == nil)
        #expect(FrontMatterStamper.position(Array("latitude: 1\nlongitude: 2\n".utf8)) == nil, "no front matter")
    }
}
