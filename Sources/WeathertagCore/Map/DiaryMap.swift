import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The map of where you wrote (`weathertag map`, the timeline page's map): every entry with a place as a dot coloured
/// by its weather, the entries at one place as one dot with their count, a trip's entries joined in time order, over
/// the coastlines, lakes and borders of the shipped map (`WorldMapData`) at the scale the view needs, with the names
/// of the largest towns in view. One SVG, no tiles, no script, no request. Pure.
///
/// Places are `ShownPlace`s: what `privacy` lets be shown (rounded; a zone's entries are counted under its name,
/// never drawn). Hovering a dot names its entries (their `<title>`); a dot is a link to the newest of its entries.
/// The size is bounded whatever the diary: the dots are grouped on a grid of `cell` pixels, so 50,000 entries make
/// at most a few thousand dots, and the trip's lines join dots, not entries.
package struct DiaryMap: Sendable {
    /// One entry to draw, its words made by the caller (`init(_:privacy:formatting:)`).
    package struct Entry: Sendable {
        package var place: ShownPlace
        package var time: Date
        package var title: String
        /// The day and weather as the page shows them: `3 Mar 2021 · 27.1 °C · light rain · Kuranda`.
        package var summary: String
        package var condition: String?
        /// Where its dot leads (`#entry-…` on the page, the file beside a map written alone); nil: nowhere.
        package var link: String?

        package init(
            place: ShownPlace, time: Date, title: String, summary: String, condition: String?, link: String?
        ) {
            (self.place, self.time, self.title, self.summary) = (place, time, title, summary)
            (self.condition, self.link) = (condition, link)
        }
    }

    /// A town of the offline towns index.
    package struct Town: Sendable {
        package var name: String
        package var point: GeoPoint
        package var population: Int

        package init(name: String, point: GeoPoint, population: Int) {
            (self.name, self.point, self.population) = (name, point, population)
        }
    }

    package var width: Double = 960
    package var height: Double = 540
    /// Dots closer than this many pixels are one.
    package var cell: Double = 16
    /// Entries written further apart than this are not one trip.
    package var tripGap: Duration = .seconds(3 * 86_400)
    /// The largest number of towns named.
    package var townLabels = 10
    /// The largest number of a trip's lines drawn (the first in time).
    package var tripLines = 4_000
    /// The reader's words (`timeline.lang`): the label, the legend and each dot's title.
    package var words: Messages = .english

    package init(words: Messages = .english) { self.words = words }

    /// A rectangle of the map taken by a label or a dot.
    struct Box {
        var x0, y0, x1, y1: Double

        func meets(_ other: Box) -> Bool {
            self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
        }
    }

    /// One place on the map: the entries grouped there.
    struct Dot {
        /// Where its first entry is: the others are within `cell` of it.
        var anchor: (x: Double, y: Double)
        var x = 0.0
        var y = 0.0
        var entries: [Int] = []
    }

    /// The map as an `<svg>` element (with `standalone`, a file of its own: the XML declaration first).
    package func render(
        _ entries: [Entry], data: WorldMapData?, towns: [Town], standalone: Bool = false
    ) -> String {
        let drawn = entries.indices.filter { entries[$0].place.point != nil }
        let view = MapView.fitted(drawn.compactMap { entries[$0].place.point }, width: self.width, height: self.height)
        let (dots, dotOf) = self.dots(entries, drawn: drawn, view: view)
        var svg = standalone ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
        // A file of its own names SVG's namespace; inside the page's HTML the element is SVG by its name.
        svg +=
            "<svg\(standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "") class=\"diary-map\" viewBox=\"0 0 \(Int(self.width)) "
            + "\(Int(self.height))\" role=\"img\" aria-label=\"\(Self.escaped(self.label(entries, dots: dots.count)))\" "
            + "data-scale=\"\(view.scale)\" data-origin-x=\"\(view.originX)\" data-origin-y=\"\(view.originY)\" "
            + "data-lines=\"\(view.lineScale)\">\n<style>\(Self.css)</style>\n"
            + "<rect class=\"sea\" width=\"\(Int(self.width))\" height=\"\(Int(self.height))\"/>\n"
        if let data { svg += self.shorelines(data, view: view) }
        svg += self.towns(towns, view: view, avoiding: dots)
        svg += self.trip(entries, drawn: drawn, dotOf: dotOf, dots: dots)
        svg += "<g class=\"entries\">\n"
        for dot in dots { svg += self.dot(dot, entries) }
        svg += "</g>\n" + self.legend(entries, drawn: drawn)
        if data != nil {
            svg +=
                "<text class=\"credit\" x=\"\(Int(self.width) - 6)\" y=\"\(Int(self.height) - 6)\" "
                + "text-anchor=\"end\">"
                + Self.escaped(self.words.tr("Shorelines and borders: {source}", ["source": "GSHHG 2.3.6 (LGPL)"]))
                + "</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// The entries drawn grouped: each joins the nearest dot whose first entry is within `cell` pixels, else starts
    /// one (dots' first entries are then at least `cell` apart, so their number is bounded by the view's size). The
    /// dots in the order they were started, and each drawn entry's dot.
    private func dots(_ entries: [Entry], drawn: [Int], view: MapView) -> ([Dot], [Int: Int]) {
        var cells: [Int64: [Int]] = [:]
        var dots: [Dot] = []
        var dotOf: [Int: Int] = [:]
        let box = view.box
        func key(_ column: Int, _ row: Int) -> Int64 { Int64(column) << 32 | Int64(UInt32(bitPattern: Int32(row))) }
        for index in drawn {
            guard let point = entries[index].place.point else { continue }
            let longitude = box.longitude(of: point) ?? point.longitude
            let (x, y) = view.pixel(GeoPoint(latitude: point.latitude, longitude: longitude))
            let column = Int(max(min(x / self.cell, 1e6), -1e6).rounded(.down))
            let row = Int(max(min(y / self.cell, 1e6), -1e6).rounded(.down))
            var nearest: (dot: Int, distance: Double)?
            for dc in -1...1 {
                for dr in -1...1 {
                    for candidate in cells[key(column + dc, row + dr)] ?? [] {
                        let anchor = dots[candidate].anchor
                        let distance = ((anchor.x - x) * (anchor.x - x) + (anchor.y - y) * (anchor.y - y)).squareRoot()
                        if distance <= self.cell, distance < nearest?.distance ?? .infinity {
                            nearest = (candidate, distance)
                        }
                    }
                }
            }
            let dot =
                nearest?.dot
                ?? {
                    dots.append(Dot(anchor: (x, y)))
                    cells[key(column, row), default: []].append(dots.count - 1)
                    return dots.count - 1
                }()
            dots[dot].x += x
            dots[dot].y += y
            dots[dot].entries.append(index)
            dotOf[index] = dot
        }
        for index in dots.indices {
            let count = Double(dots[index].entries.count)
            dots[index].x /= count
            dots[index].y /= count
        }
        return (dots, dotOf)
    }

    private func label(_ entries: [Entry], dots: Int) -> String {
        let drawn = entries.filter { $0.place.point != nil }.count
        return self.words.tr(
            "Map of where you wrote: {entries} at {places}",
            [
                "entries": self.words.tr("{count} entry", plural: "{count} entries", count: drawn),
                "places": self.words.tr("{count} place", plural: "{count} places", count: dots),
            ])
    }

    /// Land, lakes, islands in lakes and borders, each kind one path.
    private func shorelines(_ data: WorldMapData, view: MapView) -> String {
        let paths = MapPaths(width: self.width, height: self.height)
        var byKind: [WorldMapData.Kind: String] = [:]
        for line in data.lines(view.lineScale, within: view.box) {
            let points = line.points.map { view.pixel($0) }
            let path = line.kind == .border ? paths.line(points) : paths.polygon(points)
            if !path.isEmpty { byKind[line.kind, default: ""] += path }
        }
        var svg = ""
        let order: [(WorldMapData.Kind, String)] = [
            (.land, "land"), (.iceFront, "land"), (.lake, "lake"), (.islandInLake, "land"), (.pond, "lake"),
            (.border, "border"),
        ]
        for (kind, name) in order {
            guard let path = byKind[kind] else { continue }
            svg += "<path class=\"\(name)\" d=\"\(path)\"/>\n"
        }
        return svg
    }

    /// The largest towns in view whose names fit without covering one another or the dots.
    private func towns(_ towns: [Town], view: MapView, avoiding dots: [Dot]) -> String {
        let box = view.box
        var placed: [Box] = dots.map { dot in
            let radius = Self.radius(dot.entries.count) + 2
            return Box(x0: dot.x - radius, y0: dot.y - radius, x1: dot.x + radius, y1: dot.y + radius)
        }
        var labels = 0
        var svg = ""
        // The largest town beside each dot first (where the diary was written), then the largest in view.
        let inView = towns.compactMap { town -> (town: Town, x: Double, y: Double)? in
            box.longitude(of: town.point).map { longitude in
                let (x, y) = view.pixel(GeoPoint(latitude: town.point.latitude, longitude: longitude))
                return (town, x, y)
            }
        }.sorted { $0.town.population > $1.town.population }
        var beside: [Int] = []
        for dot in dots.prefix(self.townLabels) {
            let near = inView.indices.first { index in
                abs(inView[index].x - dot.x) < self.cell * 1.5 && abs(inView[index].y - dot.y) < self.cell * 1.5
            }
            if let near, !beside.contains(near) { beside.append(near) }
        }
        let order = beside + inView.indices.prefix(self.townLabels * 6).filter { !beside.contains($0) }
        for (town, x, y) in order.map({ inView[$0] }) where labels < self.townLabels {
            let width = Double(town.name.count) * 6.4 + 4
            guard x > 4, x < self.width - 4, y > 4, y < self.height - 20 else { continue }
            // Right of the town, else left of it, else clear of a dot over it; above its point, else below.
            var free: Box?
            search: for dx in [5.0, -5 - width, 16, -16 - width] {
                for dy in [-3.0, 12] {
                    let label = Box(x0: x + dx, y0: y + dy - 10, x1: x + dx + width, y1: y + dy + 2)
                    guard label.x0 > 2, label.x1 < self.width - 2, label.y0 > 2, label.y1 < self.height - 18,
                        !placed.contains(where: { $0.meets(label) })
                    else { continue }
                    free = label
                    break search
                }
            }
            guard let label = free else { continue }
            placed.append(label)
            labels += 1
            svg +=
                "<circle class=\"town\" cx=\"\(MapPaths.number(x))\" cy=\"\(MapPaths.number(y))\" r=\"2\"/>"
                + "<text class=\"town\" x=\"\(MapPaths.number(label.x0 + 2))\" y=\"\(MapPaths.number(label.y1 - 2))\">"
                + "\(Self.escaped(town.name))</text>\n"
        }
        return svg.isEmpty ? "" : "<g class=\"towns\">\n\(svg)</g>\n"
    }

    /// The trips: dots joined in the order their entries were written, when written within `tripGap` of each other.
    private func trip(_ entries: [Entry], drawn: [Int], dotOf: [Int: Int], dots: [Dot]) -> String {
        let ordered = drawn.sorted { entries[$0].time < entries[$1].time }
        var seen: Set<Int64> = []
        var path: [String] = []
        for (a, b) in zip(ordered, ordered.dropFirst()) where path.count < self.tripLines {
            guard let from = dotOf[a], let to = dotOf[b], from != to,
                entries[b].time.timeIntervalSince(entries[a].time) <= Double(self.tripGap.components.seconds)
            else { continue }
            let key = Int64(min(from, to)) << 32 | Int64(max(from, to))
            guard seen.insert(key).inserted else { continue }
            path.append(MapPaths.path([(dots[from].x, dots[from].y), (dots[to].x, dots[to].y)]))
        }
        return path.isEmpty ? "" : "<path class=\"trip\" d=\"\(path.joined())\"/>\n"
    }

    private func dot(_ dot: Dot, _ entries: [Entry]) -> String {
        let members = dot.entries.sorted { entries[$0].time > entries[$1].time }
        guard let newest = members.first else { return "" }
        var conditions: [String: Int] = [:]
        for index in members { conditions[entries[index].condition ?? "", default: 0] += 1 }
        let condition = conditions.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        let colour = TimelinePage.colour(condition) ?? "#8a93a3"
        let count = members.count
        let radius = Self.radius(count)
        var title: String
        if count == 1 {
            title = "\(entries[newest].title)\n\(entries[newest].summary)"
        } else {
            title = self.words.tr(
                "{count} entry, the newest {summary}", plural: "{count} entries, the newest {summary}", count: count,
                ["summary": entries[newest].summary])
            for index in members.prefix(3) { title += "\n• \(entries[index].title)" }
            if count > 3 { title += "\n…" }
        }
        let (x, y) = (MapPaths.number(dot.x), MapPaths.number(dot.y))
        var svg =
            "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"\(MapPaths.number(radius))\" fill=\"\(colour)\">"
            + "<title>\(Self.escaped(String(title.prefix(400))))</title></circle>"
        if count > 1 {
            svg += "<text class=\"count\" x=\"\(x)\" y=\"\(MapPaths.number(dot.y + 3.5))\">\(count)</text>"
        }
        guard let link = entries[newest].link else { return "<g>\(svg)</g>\n" }
        return "<a href=\"\(Self.escaped(link))\">\(svg)</a>\n"
    }

    /// The conditions drawn, most frequent first, and the privacy zones whose entries are counted, not drawn.
    private func legend(_ entries: [Entry], drawn: [Int]) -> String {
        var conditions: [String: Int] = [:]
        for index in drawn { conditions[entries[index].condition ?? "", default: 0] += 1 }
        var zones: [String: Int] = [:]
        for entry in entries { if let zone = entry.place.zone { zones[zone, default: 0] += 1 } }
        let items = conditions.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(6).map { condition in
            (
                TimelinePage.colour(condition.key) ?? "#8a93a3",
                condition.key.isEmpty ? self.words.tr("No weather") : self.words.condition(condition.key)
            )
        }
        var svg = ""
        var x = 8.0
        let y = self.height - 10
        for (colour, name) in items {
            svg +=
                "<circle cx=\"\(MapPaths.number(x + 5))\" cy=\"\(MapPaths.number(y - 4))\" r=\"5\" fill=\"\(colour)\"/>"
                + "<text x=\"\(MapPaths.number(x + 13))\" y=\"\(MapPaths.number(y))\">\(Self.escaped(name))</text>"
            x += 22 + Double(DiaryFormatting.width(name)) * 6.4
        }
        if !zones.isEmpty {
            let named = zones.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            let said = self.words.tr("Not drawn, a privacy zone: {zones}", ["zones": named])
            svg += "<text class=\"zones\" x=\"8\" y=\"18\">\(Self.escaped(said))</text>"
        }
        return svg.isEmpty ? "" : "<g class=\"legend\">\(svg)</g>\n"
    }

    /// A dot's radius: 5 px for one entry, growing with the logarithm of the count, at most 14.
    static func radius(_ count: Int) -> Double { min(5 + 2.2 * log2(Double(max(count, 1))), 14) }

    static func escaped(_ text: String) -> String { TimelinePage.escaped(text) }

    static let css = """
        .diary-map{font:11px system-ui,sans-serif}.sea{fill:#dbe9f4}.land{fill:#f3efe4;stroke:#9fb3c3;\
        stroke-width:.6}.lake{fill:#dbe9f4;stroke:#9fb3c3;stroke-width:.4}.border{fill:none;stroke:#b59d8c;\
        stroke-width:.7;stroke-dasharray:3 2}.trip{fill:none;stroke:#4a5568;stroke-width:1.4;stroke-opacity:.55}\
        .entries circle{stroke:#1d2430;stroke-width:1}.count{font-size:9px;font-weight:600;text-anchor:middle;\
        fill:#1d2430;pointer-events:none}.town{fill:#5d6675}circle.town{fill:#5d6675}.legend text,.credit{fill:#3b4350}\
        .credit{font-size:9px}.zones{font-weight:600}
        """
}

extension DiaryMap.Entry {
    /// The entry `document` describes, where `privacy` lets it be shown; nil when it has no place to show. Its words
    /// are the page's: the day on its own clock, the temperature, the weather and the place.
    package init?(
        _ document: EntryDocument, privacy: PrivacyPolicy, formatting: DiaryFormatting, link: String?
    ) {
        guard let location = document.location, let place = privacy.shown(location),
            let time = Date(iso8601WithOffset: document.time)
        else { return nil }
        let weather = document.weather
        let words = [
            formatting.date(document), weather.map { formatting.temperature($0) }, weather?.description,
            weather?.place ?? place.zone,
        ].compactMap { $0 }.filter { !$0.isEmpty }
        self.init(
            place: place, time: time, title: document.title, summary: words.joined(separator: " · "),
            condition: weather?.condition, link: link)
    }
}

extension DiaryMap {
    /// Where a map written alone (`weathertag map`, `timeline.map_output`) leads from a dot: the entry's file,
    /// relative to the map when the map is inside the diary, else its `file://` address.
    package static func fileLink(_ path: String, inbox: String, mapFile: String) -> String {
        if let way = Paths.wayUp(from: mapFile, to: inbox) { return way + Paths.urlEncoded(path) }
        return "file:///" + Paths.urlEncoded(Paths.standardized(inbox) + "/" + path)
    }
}
