/// An OwnTracks location message, as the Recorder stores it (`.rec` lines) and serves it (`/api/0/last`,
/// `/api/0/locations`): `{"_type": "location", "lat": …, "lon": …, "tst": <Unix s>, "acc": <m>}`. A field of another
/// type is nil (`lenient`).
package struct OwnTracksLocation: Decodable, Sendable {
    /// `location`; other messages (transitions, waypoints, cards) are not points.
    package var type: String?
    package var lat: Double?
    package var lon: Double?
    /// Unix seconds.
    package var tst: Double?
    /// Metres.
    package var acc: Double?

    enum CodingKeys: String, CodingKey {
        case lat, lon, tst, acc
        case type = "_type"
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        self.type = fields.lenient(String.self, forKey: .type)
        self.lat = fields.lenient(Double.self, forKey: .lat)
        self.lon = fields.lenient(Double.self, forKey: .lon)
        self.tst = fields.lenient(Double.self, forKey: .tst)
        self.acc = fields.lenient(Double.self, forKey: .acc)
    }

    /// The point, when `lat`, `lon` and `tst` are numbers, `tst` a time of the years 1 to 9999 (it may still be
    /// off the globe: `isValid` tells). A `tst` beyond them is no time (found by the fuzzer: one of 1.8e17 seconds,
    /// two times run together, trapped as it was made milliseconds).
    package var point: TrackPoint? {
        guard let lat, let lon, let tst, (-62_135_596_800...253_402_300_799).contains(tst) else { return nil }
        return TrackPoint(
            milliseconds: Int64(tst * 1000), latitude: lat, longitude: lon,
            accuracyMeters: self.acc.flatMap { $0 >= 0 ? $0 : nil })
    }
}
