import Foundation
import Testing
import WeathertagTestSupport

/// The map of where you wrote, as a person looks at it: the real binary draws it from a real export, with the
/// shorelines `make setup` converted from GSHHG, and a headless Chromium's screenshot is read pixel by pixel at
/// places the test projects itself (Web Mercator, from the map's own scale and origin).
@Suite("The map of where you wrote, in Chromium", .serialized)
struct MapTests {
    static let sea = (219, 233, 244)  // #dbe9f4
    static let land = (243, 239, 228)  // #f3efe4

    /// The map's projection as its `<svg>` states it: pixels per Mercator unit and the top left corner.
    struct Frame {
        var scale: Double
        var originX: Double
        var originY: Double
        var lines: String

        init(_ svg: String) throws {
            func attribute(_ name: String) throws -> String {
                let start = try #require(svg.range(of: "\(name)=\""), "the map states its \(name)")
                return String(svg[start.upperBound...].prefix { $0 != "\"" })
            }
            self.scale = try #require(Double(try attribute("data-scale")))
            self.originX = try #require(Double(try attribute("data-origin-x")))
            self.originY = try #require(Double(try attribute("data-origin-y")))
            self.lines = try attribute("data-lines")
        }

        /// Where `latitude`, `longitude` is drawn: Web Mercator, computed here from its definition.
        func pixel(_ latitude: Double, _ longitude: Double) -> (x: Double, y: Double) {
            let x = (longitude + 180) / 360
            let phi = latitude * .pi / 180
            let y = (1 - log(tan(.pi / 4 + phi / 2)) / .pi) / 2
            return ((x - self.originX) * self.scale, (y - self.originY) * self.scale)
        }

        /// Degrees of longitude across a map `width` pixels wide.
        func span(_ width: Double) -> Double { width / self.scale * 360 }
    }

    /// A screenshot of `file` by headless Chromium, `width` × `height`.
    static func screenshot(_ file: String, width: Int, height: Int, _ harness: Harness) async throws -> String {
        let chromium = try #require(which("chromium"), "chromium is needed (make setup)")
        let shot = file + ".png"
        let rendered = try await ChildProcess.run(
            [
                chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--window-size=\(width),\(height)", "--screenshot=" + shot, "file://" + file,
            ], in: harness.directory)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        return shot
    }

    /// The colour of one pixel of a PNG, as ImageMagick reads it.
    static func colour(_ png: String, _ x: Double, _ y: Double, _ harness: Harness) async throws -> (Int, Int, Int) {
        let convert = try #require(which("convert"), "ImageMagick is needed (make setup)")
        let read = try await ChildProcess.run(
            [
                convert, png, "-format",
                "%[fx:int(255*p{\(Int(x)),\(Int(y))}.r)],%[fx:int(255*p{\(Int(x)),\(Int(y))}.g)],"
                    + "%[fx:int(255*p{\(Int(x)),\(Int(y))}.b)]", "info:",
            ],
            in: harness.directory)
        let parts = read.stdout.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        try #require(parts.count == 3, "\(read.stdout) \(read.stderr)")
        return (parts[0], parts[1], parts[2])
    }

    /// How many entries the index has read (stamped, or back-dated and left alone: not waiting to be read).
    static func read(_ daemon: DaemonProcess) throws -> Int {
        try DiaryTests.entries(daemon).filter { $0["lane"] as? String != "waiting" }.count
    }

    static func near(_ a: (Int, Int, Int), _ b: (Int, Int, Int), within: Int = 12) -> Bool {
        abs(a.0 - b.0) <= within && abs(a.1 - b.1) <= within && abs(a.2 - b.2) <= within
    }

    static func hex(_ text: String) -> (Int, Int, Int)? {
        guard text.hasPrefix("#"), text.count == 7, let value = Int(text.dropFirst(), radix: 16) else { return nil }
        return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
    }

    /// The fill of the dot drawn nearest `x`, `y` in the SVG.
    static func fill(near x: Double, _ y: Double, in svg: String) throws -> (Int, Int, Int) {
        let dots = svg.components(separatedBy: "<circle cx=\"").dropFirst().compactMap { part -> (Double, String)? in
            let fields = part.components(separatedBy: "\"")
            guard fields.count > 6, let cx = Double(fields[0]), let cy = Double(fields[2]), fields[5] == " fill=" else {
                return nil
            }
            return (hypot(cx - x, cy - y), fields[6])
        }
        let nearest = try #require(dots.min { $0.0 < $1.0 }, "a dot is drawn")
        #expect(nearest.0 < 16, "the nearest dot is \(nearest.0) px away")
        return try #require(Self.hex(nearest.1))
    }

    /// The real trip (Canberra, Sydney, Cairns) imported with its weather, on the daemon's own map
    /// (`timeline.map_output`): the Cairns dot is drawn where Cairns is, on the coast Chromium shows, land west of
    /// it and the Coral Sea east.
    @Test func theTripsDotsLieOverQueenslandsCoast() async throws {
        try await withHarness { harness in
            try FileManager.default.createDirectory(
                atPath: harness.directory.file("site"), withIntermediateDirectories: true)
            try harness.writeConfig(
                providers: BorrowedPlaceTests.seoul,
                extra: ImportCommandTests.history
                    + #", "timeline": {"output": "site/diary.html", "map_output": "site/where.svg"}"#)
            let export = ImportCommandTests.exports.appendingPathComponent("dayone-queensland-trip-shape.json").path
            let run = try await DiaryTests.cli(["import", "dayone", export, "--into", harness.inbox], harness)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let daemon = try await harness.startDaemon(environment: ["WEATHERTAG_TEST_PAGE_INTERVAL": "1"])
            let located = try await poll("the trip indexed with its places") { () -> [[String: Any]]? in
                let entries = try DiaryTests.entries(daemon)
                guard entries.count == 16, !entries.contains(where: { $0["lane"] as? String == "waiting" }) else {
                    return nil
                }
                return entries.filter { $0["location"] is [String: Any] }
            }
            #expect(located.count == 13, "\(located.count) entries with a place")
            let map = harness.directory.file("site/where.svg")
            let svg = try await poll("the daemon's map with every place", timeout: .seconds(30)) { () -> String? in
                let svg = try? String(contentsOfFile: map, encoding: .utf8)
                return svg?.contains("\(located.count) entries at 3 places") == true ? svg : nil
            }
            let frame = try Frame(svg)
            #expect(frame.lines == "low", "Queensland to Canberra is drawn from GSHHG's low resolution")

            // Cairns's entries are one dot, at the mean of their own places.
            let cairns = located.compactMap { $0["location"] as? [String: Any] }.compactMap {
                location -> (Double, Double)? in
                guard let latitude = location["latitude"] as? Double, let longitude = location["longitude"] as? Double,
                    latitude > -20
                else { return nil }
                return (latitude, longitude)
            }
            #expect(cairns.count >= 3)
            let pixels = cairns.map { frame.pixel($0.0, $0.1) }
            let x = pixels.map(\.x).reduce(0, +) / Double(pixels.count)
            let y = pixels.map(\.y).reduce(0, +) / Double(pixels.count)
            let shot = try await Self.screenshot(map, width: 960, height: 540, harness)
            let dot = try Self.fill(near: x, y, in: svg)
            // Above its centre, clear of the count written across it.
            let seen = try await Self.colour(shot, x, y - 5, harness)
            #expect(Self.near(seen, dot), "Cairns's dot at \(x), \(y): \(seen), drawn \(dot)")
            // West of Cairns the land, east of it the Coral Sea.
            let inland = frame.pixel(-17.5, 144.0)
            let offshore = frame.pixel(-16.0, 147.5)
            #expect(Self.near(try await Self.colour(shot, inland.x, inland.y, harness), Self.land), "land at \(inland)")
            #expect(
                Self.near(try await Self.colour(shot, offshore.x, offshore.y, harness), Self.sea), "sea at \(offshore)")
            #expect(svg.contains(">Cairns</text>") && svg.contains(">Sydney</text>"), "the towns are named")
            // Every dot leads to its entry's file, relative to the map.
            #expect(svg.contains("<a href=\"file:///"), "the map outside the diary links the files themselves")

            // The page holds the same map, its dots leading to the cards.
            let page = try String(contentsOfFile: harness.directory.file("site/diary.html"), encoding: .utf8)
            let anchor = try #require(page.range(of: "<a href=\"#entry-"), "a dot leads to a card")
            let id = String(page[anchor.upperBound...].prefix { $0 != "\"" })
            #expect(page.contains("<article id=\"entry-\(id)\""), "the card \(id) is on the page")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// Entries written around one city: the map shows the city (GSHHG's intermediate shorelines, its lake), not
    /// the country; and one on three continents shows the world.
    @Test func theMapIsZoomedToTheDiarysExtent() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: ImportCommandTests.fixed)
            let places = [(46.2044, 6.1432), (46.2100, 6.1500), (46.1900, 6.1300)]
            for (index, place) in places.enumerated() {
                try harness.directory.write(
                    "inbox/geneva-\(index).md",
                    "---\ntitle: Geneva \(index)\ndate: 2026-05-0\(index + 1)T10:00:00+02:00\nlocation:\n"
                        + "  latitude: \(place.0)\n  longitude: \(place.1)\n---\nBy the lake.\n")
            }
            let daemon = try await harness.startDaemon()
            try await poll("three entries read") { try Self.read(daemon) == 3 ? true : nil }
            let city = harness.directory.file("city.svg")
            let drawn = try await DiaryTests.cli(["map", "--output", city], harness)
            #expect(drawn.status == 0, "\(drawn.stderr)")
            let svg = try String(contentsOfFile: city, encoding: .utf8)
            let frame = try Frame(svg)
            #expect(frame.lines == "intermediate")
            #expect(frame.span(960) < 1.0, "one city: \(frame.span(960))° across")
            #expect(svg.contains("class=\"lake\""), "Lake Geneva")
            #expect(svg.contains(">Geneva</text>"))
            let shot = try await Self.screenshot(city, width: 960, height: 540, harness)
            let centre = frame.pixel(places[0].0, places[0].1)
            #expect(!Self.near(try await Self.colour(shot, centre.x, centre.y, harness), Self.land, within: 4))

            // Paris, New York and Sydney: the world.
            for (index, place) in [(48.8566, 2.3522), (40.7128, -74.006), (-33.8688, 151.2093)].enumerated() {
                try harness.directory.write(
                    "inbox/far-\(index).md",
                    "---\ntitle: Far \(index)\ndate: 2026-06-0\(index + 1)T10:00:00+00:00\nlocation:\n"
                        + "  latitude: \(place.0)\n  longitude: \(place.1)\n---\nAway.\n")
            }
            try await poll("six entries read") { try Self.read(daemon) == 6 ? true : nil }
            let world = harness.directory.file("world.svg")
            let again = try await DiaryTests.cli(["map", "--output", world], harness)
            #expect(again.status == 0, "\(again.stderr)")
            let worldSVG = try String(contentsOfFile: world, encoding: .utf8)
            let worldFrame = try Frame(worldSVG)
            #expect(worldFrame.lines == "crude")
            #expect(worldFrame.span(960) > 180, "three continents: \(worldFrame.span(960))° across")
            let worldShot = try await Self.screenshot(world, width: 960, height: 540, harness)
            for (latitude, longitude) in [(48.8566, 2.3522), (40.7128, -74.006), (-33.8688, 151.2093)] {
                // The view may be centred across the date line: the same place 360° on.
                let candidates = [0.0, 360, -360].map { worldFrame.pixel(latitude, longitude + $0) }
                let point = try #require(candidates.first { (0..<960).contains($0.x) && (0..<540).contains($0.y) })
                let seen = try await Self.colour(worldShot, point.x, point.y, harness)
                #expect(!Self.near(seen, Self.sea, within: 4) && !Self.near(seen, Self.land, within: 4), "\(point)")
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// An entry's photo, copied beside it, is a thumbnail in its card when the page is inside the diary; a link to
    /// a photo that is not there is left out, and a page outside the diary shows none.
    @Test func aPhotoIsAThumbnailInItsCard() async throws {
        try await withHarness { harness in
            let convert = try #require(which("convert"), "ImageMagick is needed (make setup)")
            try harness.writeConfig(providers: ImportCommandTests.fixed)
            try FileManager.default.createDirectory(
                atPath: harness.inbox + "/2026/photos", withIntermediateDirectories: true)
            let made = try await ChildProcess.run(
                [convert, "-size", "400x300", "xc:#d03030", harness.inbox + "/2026/photos/red boat.png"],
                in: harness.directory)
            #expect(made.status == 0, "\(made.stderr)")
            try harness.directory.write(
                "inbox/2026/boat.md",
                "---\ntitle: The red boat\n---\n# The red boat\n\n![a boat](photos/red%20boat.png)\n\n"
                    + "![gone](photos/missing.png) ![far](https://example.org/x.png)\n\nOn the water.\n")
            let daemon = try await harness.startDaemon()
            try await poll("the entry read") { try Self.read(daemon) == 1 ? true : nil }
            try FileManager.default.createDirectory(atPath: harness.inbox + "/site", withIntermediateDirectories: true)
            let inside = harness.inbox + "/site/diary.html"
            let written = try await DiaryTests.cli(["timeline", "--output", inside], harness)
            #expect(written.status == 0, "\(written.stderr)")
            let html = try String(contentsOfFile: inside, encoding: .utf8)
            #expect(html.contains("<img src=\"../2026/photos/red%20boat.png\""), "\(html.suffix(1500))")
            #expect(!html.contains("missing.png") && !html.contains("example.org"))
            let shot = try await Self.screenshot(inside, width: 1000, height: 1400, harness)
            let share = try await ChildProcess.run(
                [
                    convert, shot, "-fuzz", "6%", "-fill", "white", "+opaque", "#d03030", "-fill", "black", "-opaque",
                    "#d03030", "-format", "%[fx:1-mean]", "info:",
                ], in: harness.directory)
            // A thumbnail of at most 160 × 120 of a 1000 × 1400 screenshot: present, and bounded.
            let fraction = Double(share.stdout) ?? 0
            #expect(fraction > 0.005 && fraction <= 160.0 * 120 / (1000 * 1400) + 0.001, "\(share.stdout)")

            let outside = harness.directory.file("diary.html")
            _ = try await DiaryTests.cli(["timeline", "--output", outside], harness)
            #expect(!(try String(contentsOfFile: outside, encoding: .utf8)).contains("class=\"photos\""))
            #expect(try await daemon.stop() == 0)
        }
    }

    /// `privacy`: an entry inside a zone is counted under the zone's name and never drawn, and other places are
    /// drawn and served no more precisely than `privacy.decimals`.
    @Test func privacyZonesAreNamedNotDrawn() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: ImportCommandTests.fixed,
                extra:
                    #", "privacy": {"decimals": 1, "zones": [{"name": "Home", "latitude": 46.2051, "longitude": 6.1442, "radius_m": 300}]}"#
            )
            try harness.directory.write(
                "inbox/home.md",
                "---\ntitle: At home\nlocation:\n  latitude: 46.20512\n  longitude: 6.14421\n---\nIn.\n")
            try harness.directory.write(
                "inbox/lausanne.md",
                "---\ntitle: Lausanne\nlocation:\n  latitude: 46.51967\n  longitude: 6.63227\n---\nOut.\n")
            let daemon = try await harness.startDaemon()
            try await poll("both read") { try Self.read(daemon) == 2 ? true : nil }
            let entries = try DiaryTests.entries(daemon)
            let byTitle = Dictionary(uniqueKeysWithValues: entries.map { ($0["title"] as? String ?? "", $0) })
            let home = try #require(byTitle["At home"]?["location"] as? [String: Any])
            #expect(home["name"] as? String == "Home" && home["latitude"] is NSNull, "\(home)")
            let away = try #require(byTitle["Lausanne"]?["location"] as? [String: Any])
            #expect(away["latitude"] as? Double == 46.5 && away["longitude"] as? Double == 6.6, "\(away)")

            let file = harness.directory.file("private.svg")
            let drawn = try await DiaryTests.cli(["map", "--output", file], harness)
            #expect(drawn.status == 0, "\(drawn.stderr)")
            let svg = try String(contentsOfFile: file, encoding: .utf8)
            #expect(svg.contains("1 entry at 1 place"), "only Lausanne is drawn")
            #expect(svg.contains("Not drawn, a privacy zone: Home (1)"))
            #expect(!svg.contains("At home"), "the zone's entry is not on the map")
            #expect(try await daemon.stop() == 0)
        }
    }
}
