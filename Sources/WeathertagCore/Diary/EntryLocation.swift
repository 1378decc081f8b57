/// Where an entry says it was written, as its file says it: the front matter's own position (`location`, `latitude`
/// and `longitude`, as its writer, imports and other tools write it; `FrontMatterStamper.position(in:)`), else the
/// block weathertag stamped (`weather.location`: its coordinates, or only a zone's `name`). What the index keeps and
/// `/v1/entries` serves, as `privacy` lets it be shown (`PrivacyPolicy.shown(_:)`).
package struct EntryLocation: Codable, Sendable, Equatable {
    package var latitude: Double?
    package var longitude: Double?
    /// A privacy zone's name when the coordinates are withheld; else the place's name the file gives, if any.
    package var name: String?

    package init(latitude: Double? = nil, longitude: Double? = nil, name: String? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
    }

    /// Both coordinates, when the location has them.
    package var point: GeoPoint? {
        guard let latitude, let longitude else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    /// The location a front matter gives: its own position (what the writer or an import says), else its stamp's
    /// `location` (where weathertag placed it; `weather`: the block, or what the properties say as one). Nil when
    /// neither says anything.
    static func read(frontMatter mapping: YAMLNode.Mapping, weather: YAMLNode.Mapping?) -> EntryLocation? {
        if let position = FrontMatterStamper.position(in: mapping) {
            return EntryLocation(latitude: position.latitude, longitude: position.longitude)
        }
        if let block = weather?["location"]?.mapping {
            let name = block["name"]?.scalar?.string.trimmingWhitespace()
            if let position = FrontMatterStamper.position(in: block) {
                return EntryLocation(latitude: position.latitude, longitude: position.longitude, name: name)
            }
            if let name, !name.isEmpty { return EntryLocation(name: String(name.prefix(200))) }
        }
        return nil
    }
}

/// An entry's place as `privacy` lets it be shown on a map or served: a point rounded as stamps are, or, inside a
/// privacy zone (or with `stamp_coordinates: none`), only a name. Made only by `PrivacyPolicy.shown(_:)`, so a map
/// cannot draw a place more precisely than the configuration allows.
package struct ShownPlace: Sendable, Equatable {
    /// Where it is drawn; nil when it is only named.
    package let point: GeoPoint?
    /// The zone it is in, named, not drawn.
    package let zone: String?

    fileprivate init(point: GeoPoint?, zone: String?) {
        self.point = point
        self.zone = zone
    }

    /// The location as it may be served (`/v1/entries`).
    package var location: EntryLocation {
        EntryLocation(latitude: self.point?.latitude, longitude: self.point?.longitude, name: self.zone)
    }
}

extension PrivacyPolicy {
    /// `location` as it may be shown: its coordinates as `shown(Position)` gives them (rounded to `decimals`, exact,
    /// or withheld); inside a zone, the zone's name only. A location with only a name (a stamp made inside a zone)
    /// stays a name. Nil when there is nothing to show.
    package func shown(_ location: EntryLocation) -> ShownPlace? {
        guard let point = location.point else {
            guard let name = location.name, !name.isEmpty else { return nil }
            return ShownPlace(point: nil, zone: name)
        }
        let shown = self.shown(
            Position(latitude: point.latitude, longitude: point.longitude, source: "entry", takenAt: .distantPast))
        if shown.withheld {
            guard let name = shown.name else { return nil }
            return ShownPlace(point: nil, zone: name)
        }
        return ShownPlace(point: GeoPoint(latitude: shown.latitude, longitude: shown.longitude), zone: nil)
    }
}
