/// What an OwnTracks Recorder answers over HTTP (`/api/0/last`, `/api/0/locations`), read purely: the points of its
/// locations. The provider (`OwnTracksLocationProvider`, in the daemon) asks; this reads, tested on the documented
/// answers and fuzzed by being registered (`Plugin.answers`).
package enum OwnTracksRecorderAPI {
    /// A location (`_type` location, or none given) as a point; nil for anything else.
    static func point(_ location: OwnTracksLocation?) -> TrackPoint? {
        guard let location, location.type == nil || location.type == "location", let point = location.point,
            point.isValid
        else { return nil }
        return point
    }

    /// `/api/0/locations`: `{"count": N, "data": [...]}`; older Recorders answer the list alone.
    struct Locations: Decodable {
        var list: [Lenient<OwnTracksLocation>]

        enum CodingKeys: String, CodingKey { case data }

        init(from decoder: any Decoder) throws {
            if let list = try? [Lenient<OwnTracksLocation>](from: decoder) {
                self.list = list
            } else {
                self.list = try decoder.container(keyedBy: CodingKeys.self).decode(
                    [Lenient<OwnTracksLocation>].self, forKey: .data)
            }
        }
    }

    /// `/api/0/last`: each device's last location; nil for anything but a JSON list.
    package static func last(_ body: [UInt8]) -> [TrackPoint]? {
        [Lenient<OwnTracksLocation>].decodeJSON(body).map { list in list.compactMap { Self.point($0.value) } }
    }

    /// `/api/0/locations`: the locations of a time window; nil for anything but JSON locations.
    package static func locations(_ body: [UInt8]) -> [TrackPoint]? {
        Locations.decodeJSON(body).map { $0.list.compactMap { Self.point($0.value) } }
    }
}
