import FoundationEssentials

/// One entry of another diary app's export, read and checked, ready to be written as a Markdown file: what `import`
/// writes, and nothing it would have to guess.
package struct ImportedEntry: Sendable, Equatable {
    /// The app it came from, and the front matter key that keeps its id.
    package enum Origin: String, Sendable, Equatable {
        case dayOne = "dayone"
        case jrnl

        /// `dayone_uuid`, `jrnl_id`: the key an imported file keeps its id under, so that a second import of the same
        /// export finds it and changes nothing.
        package var idKey: String {
            switch self {
            case .dayOne: return "dayone_uuid"
            case .jrnl: return "jrnl_id"
            }
        }
    }

    /// A place as the app named it.
    package struct Place: Sendable, Equatable {
        /// Day One's `placeName`, `localityName`, `administrativeArea`, `country`, each when given and not empty.
        package var name: String?
        package var locality: String?
        package var area: String?
        package var country: String?
        package var latitude: Double?
        package var longitude: Double?

        package init(
            name: String? = nil, locality: String? = nil, area: String? = nil, country: String? = nil,
            latitude: Double? = nil, longitude: Double? = nil
        ) {
            (self.name, self.locality, self.area, self.country) = (name, locality, area, country)
            (self.latitude, self.longitude) = (latitude, longitude)
        }

        /// `Fernhill Reserve, Oteha, Auckland, New Zealand`: its names, each once, nil when it has none.
        package var line: String? {
            var parts: [String] = []
            for part in [self.name, self.locality, self.area, self.country].compactMap({ $0 })
            where !parts.contains(part) {
                parts.append(part)
            }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        }

        /// Where it is, when the app gave coordinates on the globe.
        package func position(at date: Date, source: String) -> Position? {
            guard let latitude, let longitude else { return nil }
            let position = Position(
                latitude: latitude, longitude: longitude, source: source, name: self.line, takenAt: date)
            return position.isValid ? position : nil
        }
    }

    /// A photo or other file the text links to (`dayone-moment://ID`) and the export holds (`photos/MD5.jpeg`).
    package struct Attachment: Sendable, Equatable {
        package var identifier: String
        /// Its path inside the export: `photos/…`, `videos/…`, `audios/…` or `pdfs/…`.
        package var file: String

        package init(identifier: String, file: String) {
            (self.identifier, self.file) = (identifier, file)
        }
    }

    package var origin: Origin
    /// Day One's `uuid`; for jrnl, which has none, a digest of the entry's date, time and title (`JrnlExport`).
    package var id: String
    /// Its place in the export, from 1, for messages.
    package var number: Int
    package var date: Date
    /// The zone it was written in (Day One's `timeZone`; jrnl's: the machine's or `--zone`).
    package var zone: Zone
    package var title: String?
    /// The text, as Markdown a person reads (`DayOneText` undoes Day One's escapes).
    package var body: String
    package var tags: [String]
    package var starred: Bool
    package var place: Place?
    /// The weather the app kept with it; nil when it kept none (the entry is stamped from history).
    package var weather: DayOneWeather?
    package var attachments: [Attachment]

    package init(
        origin: Origin, id: String, number: Int, date: Date, zone: Zone, title: String? = nil, body: String,
        tags: [String] = [], starred: Bool = false, place: Place? = nil, weather: DayOneWeather? = nil,
        attachments: [Attachment] = []
    ) {
        (self.origin, self.id, self.number, self.date, self.zone) = (origin, id, number, date, zone)
        (self.title, self.body, self.tags, self.starred) = (title, body, tags, starred)
        (self.place, self.weather, self.attachments) = (place, weather, attachments)
    }

    /// Its date and time on the clock where it was written.
    package var wallClock: WallClock {
        WallClock(self.date, utcOffset: self.zone.secondsFromGMT(for: self.date))
    }

    /// `2020-05-08T09:31:13+12:00`: the instant, in its own zone's offset.
    package var dateLine: String {
        self.date.iso8601(utcOffset: self.zone.secondsFromGMT(for: self.date))
    }

    /// The place as it may be written (`privacy`): coordinates rounded or left out, a privacy zone's name instead of
    /// the app's street.
    package func shownPlace(privacy: PrivacyPolicy) -> Position? {
        guard let position = self.place?.position(at: self.date, source: self.origin.rawValue) else { return nil }
        return privacy.shown(position)
    }

    /// The weather block from the app's own weather, as `privacy` allows it to be written; nil without one.
    package func weatherTag(privacy: PrivacyPolicy, units: Units) -> WeatherTag? {
        guard let weather = self.weather else { return nil }
        let position =
            self.place?.position(at: self.date, source: self.origin.rawValue)
            ?? Position(latitude: 0, longitude: 0, source: self.origin.rawValue, takenAt: self.date)
        var tag = weather.tag(at: self.date, zone: self.zone, position: position, units: units)
        tag.geocodedPlace = self.place.flatMap { [$0.locality, $0.name].compactMap { $0 }.first }
        tag.region = self.place?.area
        if self.place?.position(at: self.date, source: self.origin.rawValue) == nil { tag.position.withheld = true }
        let shown = privacy.shown(tag)
        return shown
    }

    /// The export as a track: an entry without coordinates takes the place of the same export's entry nearest in
    /// time that has them, written on the same clock (the same offset at its instant) within `maximumGap` of it,
    /// so its weather is that place's and never a place this machine lends (`BorrowedPlace`). Entries with no such
    /// neighbour keep no place. Sorted once; a binary search per entry.
    package static func placedByTheExport(
        _ entries: [ImportedEntry], maximumGap: Duration = .seconds(600)
    ) -> [ImportedEntry] {
        let located = entries.filter { $0.place?.position(at: $0.date, source: "") != nil }.sorted { $0.date < $1.date }
        guard !located.isEmpty else { return entries }
        let gap = maximumGap.seconds
        return entries.map { entry in
            guard entry.place?.position(at: entry.date, source: "") == nil else { return entry }
            let offset = entry.zone.secondsFromGMT(for: entry.date)
            // The first located entry not before `entry.date - gap`, then the window after it.
            var low = 0
            var high = located.count
            while low < high {
                let middle = (low + high) / 2
                if located[middle].date.timeIntervalSince(entry.date) < -gap { low = middle + 1 } else { high = middle }
            }
            var best: ImportedEntry?
            var index = low
            while index < located.count, located[index].date.timeIntervalSince(entry.date) <= gap {
                let candidate = located[index]
                index += 1
                guard candidate.zone.secondsFromGMT(for: candidate.date) == offset else { continue }
                let distance = abs(candidate.date.timeIntervalSince(entry.date))
                if best.map({ distance < abs($0.date.timeIntervalSince(entry.date)) }) ?? true { best = candidate }
            }
            guard let neighbour = best, let coordinates = neighbour.place else { return entry }
            var placed = entry
            placed.place = Place(
                name: entry.place?.name ?? coordinates.name, locality: entry.place?.locality ?? coordinates.locality,
                area: entry.place?.area ?? coordinates.area, country: entry.place?.country ?? coordinates.country,
                latitude: coordinates.latitude, longitude: coordinates.longitude)
            return placed
        }
    }

    /// The whole file: front matter (title, date, tags, starred, location, the app's id, and the app's weather when
    /// it kept one) and the text. `links` maps an attachment's identifier to the path its link is rewritten to.
    package func markdown(
        privacy: PrivacyPolicy, fields: [StampField], format: StampFormat = .block, units: Units,
        links: [String: String] = [:]
    ) -> String {
        var lines = ["---"]
        if let title, !title.isEmpty { lines.append("title: \(YAMLScalar.string(title))") }
        lines.append("date: \(self.dateLine)")
        if !self.tags.isEmpty {
            lines.append(
                "tags: ["
                    + self.tags.map { tag in
                        // In a flow sequence a plain scalar must not hold its punctuation.
                        tag.contains(where: { ",[]{}".contains($0) }) ? YAMLScalar.quoted(tag) : YAMLScalar.string(tag)
                    }.joined(separator: ", ") + "]")
        }
        lines.append("starred: \(self.starred)")
        if format == .properties {
            // No mapping for Obsidian: the place as Map View writes it (`location: [lat, lon]`, read back as the
            // entry's own), its name as text.
            let place = self.shownPlace(privacy: privacy)
            if let place, !place.withheld {
                lines.append(
                    "location: [\(YAMLScalar.number(place.latitude, places: 6)), "
                        + "\(YAMLScalar.number(place.longitude, places: 6))]")
            }
            if let name = place?.name ?? self.place?.line { lines.append("location_name: \(YAMLScalar.string(name))") }
        } else if let place = self.shownPlace(privacy: privacy) {
            lines.append("location:")
            if let name = place.name { lines.append("  name: \(YAMLScalar.string(name))") }
            if !place.withheld {
                lines.append("  latitude: \(YAMLScalar.number(place.latitude, places: 6))")
                lines.append("  longitude: \(YAMLScalar.number(place.longitude, places: 6))")
            }
        } else if let name = self.place?.line {
            lines.append("location:")
            lines.append("  name: \(YAMLScalar.string(name))")
        }
        lines.append("\(self.origin.idKey): \(YAMLScalar.string(self.id))")
        if let tag = self.weatherTag(privacy: privacy, units: units) {
            lines += tag.stampLines(fields: fields, format: format)
        }
        lines.append("---")
        var text = DayOneText.rewritingLinks(self.body, links)
        if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
        return lines.joined(separator: "\n") + "\n" + text
    }
}
