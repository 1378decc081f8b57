import Foundation
import Testing

@testable import WeathertagCore

/// The map of where you wrote, without files: its projection and zoom, its grouping and bounds, privacy, the
/// shipped shorelines' reader (and what it refuses), an entry's place and photos as its file gives them.
@Suite("The map of where you wrote")
struct DiaryMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func entry(
        _ latitude: Double, _ longitude: Double, at seconds: Double = 0, condition: String? = "Rain",
        privacy: PrivacyPolicy = .exact, title: String = "An entry"
    ) -> DiaryMap.Entry? {
        guard let place = privacy.shown(EntryLocation(latitude: latitude, longitude: longitude)) else { return nil }
        return DiaryMap.Entry(
            place: place, time: Date(timeIntervalSince1970: 1_600_000_000 + seconds), title: title,
            summary: "a day", condition: condition, link: "#e")
    }

    @Test func mercatorPutsKnownPlacesWhereTheyBelong() {
        let origin = MapView.mercator(GeoPoint(latitude: 0, longitude: 0))
        #expect(abs(origin.x - 0.5) < 1e-12 && abs(origin.y - 0.5) < 1e-12)
        // 80° N: ln(tan(85°)) = 2.4362, so y = (1 - 2.4362 / π) / 2 = 0.1123; 180° E is the right edge.
        let north = MapView.mercator(GeoPoint(latitude: 80, longitude: 180))
        #expect(north.x == 1 && abs(north.y - 0.1123) < 0.0001, "\(north)")
        // Southern latitudes lie below the equator.
        #expect(MapView.mercator(GeoPoint(latitude: -16.92, longitude: 145.77)).y > 0.5)
    }

    @Test func oneCityIsShownAsTheCityAndThreeContinentsAsTheWorld() {
        let geneva = [
            GeoPoint(latitude: 46.2044, longitude: 6.1432), GeoPoint(latitude: 46.21, longitude: 6.15),
        ]
        let city = MapView.fitted(geneva, width: 960, height: 540)
        #expect(city.lineScale == .intermediate)
        #expect(city.box.east - city.box.west < 1 && city.box.east - city.box.west >= MapView.minimumSpan)
        for point in geneva {
            let (x, y) = city.pixel(point)
            #expect((0...960).contains(x) && (0...540).contains(y))
        }
        let trip = MapView.fitted(
            [GeoPoint(latitude: -35.4, longitude: 149.1), GeoPoint(latitude: -16.92, longitude: 145.77)], width: 960,
            height: 540)
        #expect(trip.lineScale == .low)
        let world = MapView.fitted(
            [
                GeoPoint(latitude: 48.86, longitude: 2.35), GeoPoint(latitude: 40.71, longitude: -74.0),
                GeoPoint(latitude: -33.87, longitude: 151.21),
            ], width: 960, height: 540)
        #expect(world.lineScale == .crude)
        #expect(world.box.east - world.box.west > 180)
        // No places: the world.
        #expect(
            MapView.fitted([], width: 960, height: 540).box.east - MapView.fitted([], width: 960, height: 540).box.west
                == 360)
    }

    @Test func aDiaryAcrossTheDateLineIsNotTheWholeWorld() {
        let pacific = [GeoPoint(latitude: -17.7, longitude: 178.0), GeoPoint(latitude: -13.8, longitude: -171.8)]
        let view = MapView.fitted(pacific, width: 960, height: 540)
        #expect(view.box.east - view.box.west < 30, "\(view.box)")
        #expect(view.box.west < 178 && view.box.east > 188.2)
        #expect(MapView.unwrapped([178, -171.8]) == [178, 188.2])
        #expect(MapView.unwrapped([2.35, 6.14]) == [2.35, 6.14])
    }

    @Test func entriesAtOnePlaceAreOneDotWithTheirCount() throws {
        let entries = [
            Self.entry(46.2044, 6.1432, at: 0), Self.entry(46.2045, 6.1433, at: 3600, condition: "Clear"),
            Self.entry(46.2046, 6.1431, at: 7200), Self.entry(47.3769, 8.5417, at: 86_400),
        ].compactMap { $0 }
        let svg = DiaryMap().render(entries, data: nil, towns: [])
        #expect(svg.contains("4 entries at 2 places"))
        #expect(svg.contains(">3</text>"), "the count of Geneva's dot")
        // Geneva's dot is Rain's colour: two of its three entries.
        #expect(svg.contains("fill=\"#7fb3e6\"><title>3 entries"))
        // Written a day apart: one trip line, Geneva to Zurich.
        #expect(svg.contains("<path class=\"trip\""))
        var apart = DiaryMap()
        apart.tripGap = .seconds(3_600)
        #expect(!apart.render(entries, data: nil, towns: []).contains("class=\"trip\""))
    }

    @Test func fiftyThousandEntriesStayUnderTwoMegabytes() {
        var generator = SplitMix(seed: 38)
        var entries: [DiaryMap.Entry] = []
        let conditions = ["Rain", "Clear", "Clouds", "Snow"]
        for index in 0..<50_000 {
            let latitude = -40 + 30 * generator.unit()
            let longitude = 115 + 38 * generator.unit()
            entries.append(
                Self.entry(
                    latitude, longitude, at: Double(index) * 3_600, condition: conditions[index % 4],
                    title: "Entry \(index) written somewhere along the way")!)
        }
        let svg = DiaryMap().render(entries, data: nil, towns: [])
        #expect(svg.utf8.count < 2_000_000, "\(svg.utf8.count) bytes")
        let dots = svg.components(separatedBy: "<title>").count - 1
        // Dots' first entries are at least a cell apart: at most one in a 16-pixel square's worth of the view.
        #expect(dots > 100 && dots <= 2 * (960 / 16 + 1) * (540 / 16 + 1), "\(dots) dots")
        // Every entry is counted in its dot.
        let counted = svg.components(separatedBy: "class=\"count\"").dropFirst().compactMap { part in
            Int(part.split(separator: ">")[1].prefix { $0.isNumber })
        }.reduce(0, +)
        let singles =
            svg.components(separatedBy: "<title>An entry").count - 1
            + svg.components(
                separatedBy: "<title>Entry "
            ).count - 1
        #expect(counted + singles == 50_000)
    }

    @Test func privacyIsWhatTheMapIsMadeOf() throws {
        let zone = PrivacyPolicy.Area(name: "Home", latitude: 46.2051, longitude: 6.1442, radiusMeters: 300)
        let policy = PrivacyPolicy(stampCoordinates: .rounded, decimals: 2, zones: [zone])
        let home = try #require(policy.shown(EntryLocation(latitude: 46.2052, longitude: 6.1443)))
        #expect(home.point == nil && home.zone == "Home")
        let away = try #require(policy.shown(EntryLocation(latitude: 46.51967, longitude: 6.63227)))
        #expect(away.point == GeoPoint(latitude: 46.52, longitude: 6.63))
        // A stamp made inside a zone kept only its name: a name, not drawn.
        #expect(policy.shown(EntryLocation(name: "Work"))?.zone == "Work")
        #expect(PrivacyPolicy(stampCoordinates: .none).shown(EntryLocation(latitude: 1, longitude: 2)) == nil)
        let entries = [
            Self.entry(46.2052, 6.1443, privacy: policy), Self.entry(46.51967, 6.63227, privacy: policy),
        ].compactMap { $0 }
        let svg = DiaryMap().render(entries, data: nil, towns: [])
        #expect(svg.contains("1 entry at 1 place") && svg.contains("Not drawn, a privacy zone: Home (1)"))
    }

    @Test func theShippedShorelinesPutCairnsOnTheCoast() throws {
        let file = Self.root.appendingPathComponent(".build/map/coastlines.bin").path
        let bytes = try #require(FileManager.default.contents(atPath: file), "make setup builds \(file)")
        let data = try WorldMapData([UInt8](bytes))
        #expect(data.count > 50_000)
        let box = GeoBox(west: 143, east: 148, south: -19, north: -15)
        for scale in WorldMapData.Scale.allCases {
            let land = data.lines(scale, within: box).filter { $0.kind == .land }
            func onLand(_ point: GeoPoint) -> Bool { land.contains { Self.inside(point, $0.points) } }
            #expect(onLand(GeoPoint(latitude: -17.5, longitude: 144.0)), "\(scale): inland Queensland")
            #expect(!onLand(GeoPoint(latitude: -16.0, longitude: 147.5)), "\(scale): the Coral Sea")
        }
        // A view across the date line gets Fiji east of 180 as drawn.
        let fiji = data.lines(.low, within: GeoBox(west: 175, east: 185, south: -20, north: -15))
        #expect(fiji.contains { line in line.points.contains { $0.longitude > 180 } })
    }

    @Test func aFileThatIsNotAMapIsRefused() {
        #expect(throws: WorldMapData.Malformed.self) { try WorldMapData(Array("not a map at all".utf8)) }
        var header = WorldMapData.magic + [0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: WorldMapData.Malformed.self) { try WorldMapData(header) }
        // One record whose payload runs past the end.
        header =
            WorldMapData.magic + [1, 0, 0, 0] + [0, 1, 0, 0] + [UInt8](repeating: 0, count: 16)
            + [2, 0, 0, 0] + [200, 0, 0, 0] + [1, 2, 3]
        #expect(throws: WorldMapData.Malformed.self) { try WorldMapData(header) }
        // A record that reads: two points, (1, 2) then (0, 0) in 1e-4 degree.
        let good =
            WorldMapData.magic + [1, 0, 0, 0] + [0, 1, 0, 0] + [UInt8](repeating: 0, count: 16)
            + [2, 0, 0, 0] + [4, 0, 0, 0] + [2, 4, 1, 3]
        let line = (try? WorldMapData(good))?.lines(.crude, within: GeoBox(west: -1, east: 1, south: -1, north: 1))
        #expect(
            line?.first?.points == [GeoPoint(latitude: 0.0002, longitude: 0.0001), GeoPoint(latitude: 0, longitude: 0)])
    }

    @Test func anEntrysOwnPlaceComesBeforeItsStamps() throws {
        let own = DiaryEntry.read(
            Array(
                "---\nlocation:\n  latitude: -16.92\n  longitude: 145.77\nweather:\n  location:\n    latitude: 1\n    longitude: 2\n---\nHi\n"
                    .utf8),
            fileName: "a.md", modified: Date())
        #expect(own.location == EntryLocation(latitude: -16.92, longitude: 145.77))
        let stamped = DiaryEntry.read(
            Array(
                "---\nweather:\n  temperature: 3\n  location:\n    latitude: 46.2\n    longitude: 6.15\n---\nHi\n".utf8),
            fileName: "b.md", modified: Date())
        #expect(stamped.location == EntryLocation(latitude: 46.2, longitude: 6.15))
        let zoned = DiaryEntry.read(
            Array("---\nweather:\n  location:\n    name: Home\n    source: fixed\n---\nHi\n".utf8), fileName: "c.md",
            modified: Date())
        #expect(zoned.location == EntryLocation(name: "Home"))
        #expect(DiaryEntry.read(Array("No front matter\n".utf8), fileName: "d.md", modified: Date()).location == nil)
    }

    @Test func anEntrysPhotosAreItsRelativePictures() {
        let text = """
            # A day
            ![](photos/a.jpeg) ![b](<photos/with space.png>) ![web](https://example.org/c.png)
            ![](/etc/d.png) ![](dayone-moment://ABC) ![](notes.md) ![x](photos/a.jpeg "again")
            ![](../up/e.webp) ![](f.gif) ![](g.avif)
            """
        #expect(
            EntryPhotos.links(in: text[...])
                == ["photos/a.jpeg", "photos/with space.png", "../up/e.webp", "f.gif"])
        #expect(EntryPhotos.resolved("photos/a%20b.jpeg", entryPath: "2021/03/x.md") == "2021/03/photos/a b.jpeg")
        #expect(EntryPhotos.resolved("../../p.png", entryPath: "2021/03/x.md") == "p.png")
        #expect(EntryPhotos.resolved("../../../p.png", entryPath: "2021/03/x.md") == nil, "out of the inbox")
        // A hostile line: a million `![` with no end costs one pass.
        let hostile = String(repeating: "![", count: 500_000)
        #expect(EntryPhotos.links(in: hostile[...]).isEmpty)
    }

    @Test func aCardIsWhereItsDotLeads() {
        let page = TimelinePage(
            title: "T", formatting: DiaryFormatting(locale: DateLocale(identifier: "en_US")), icons: [:],
            generatedAt: Date(timeIntervalSince1970: 0))
        let document = EntryDocument(
            path: "2021/03/x.md", title: "X", time: "2021-03-04T10:00:00+10:00", dayOnly: false,
            timeSource: "front_matter:date", lane: "stamped", reason: "stamped", detail: nil, why: "", excerpt: "",
            weather: nil, photos: ["2021/03/photos/a b.jpeg"])
        let html = page.render([document])
        #expect(html.contains("<article id=\"\(TimelinePage.anchor("2021/03/x.md"))\""))
        #expect(!html.contains("class=\"photos\""), "a page not known to be inside the diary shows no photos")
        var inside = page
        inside.photoBase = "../"
        #expect(inside.render([document]).contains("<img src=\"../2021/03/photos/a%20b.jpeg\""))
        #expect(TimelinePage.anchor("a") != TimelinePage.anchor("b") && TimelinePage.anchor("a").count == 22)
    }

    @Test func aDotLeadsToItsFileFromWhereverTheMapIs() {
        #expect(DiaryMap.fileLink("2021/03/a b.md", inbox: "/d", mapFile: "/d/site/where.svg") == "../2021/03/a%20b.md")
        #expect(DiaryMap.fileLink("x.md", inbox: "/d", mapFile: "/d/where.svg") == "x.md")
        #expect(DiaryMap.fileLink("x.md", inbox: "/d", mapFile: "/srv/where.svg") == "file:///d/x.md")
        #expect(Paths.wayUp(from: "/dx/a.html", to: "/d") == nil, "a sibling folder with the same prefix is outside")
    }

    /// Even-odd ray casting.
    static func inside(_ point: GeoPoint, _ ring: [GeoPoint]) -> Bool {
        var inside = false
        var previous = ring[ring.count - 1]
        for current in ring {
            if (current.latitude > point.latitude) != (previous.latitude > point.latitude),
                point.longitude < (previous.longitude - current.longitude) * (point.latitude - current.latitude)
                    / (previous.latitude - current.latitude) + current.longitude
            {
                inside.toggle()
            }
            previous = current
        }
        return inside
    }
}

/// A small seeded generator (SplitMix64): the same 50,000 places, or the same random texts, every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func unit() -> Double { Double(self.next() >> 11) / Double(1 << 53) }
}
