/// What Home Assistant's REST API answers (`/api/states/ENTITY`, `/api/history/period/…`), read purely: a tracker's
/// points. The provider (`HomeAssistantLocationProvider`, in the daemon) asks; this reads, tested on the documented
/// answers and fuzzed by being registered (`Plugin.answers`).
package enum HomeAssistantAPI {
    /// An entity's state: `{"state": …, "attributes": {"latitude": …, "longitude": …, "gps_accuracy": …},
    /// "last_updated": "2026-11-23T09:41:00+00:00", "last_changed": …}`.
    package struct State: Decodable {
        struct Attributes: Decodable {
            var latitude: Double?
            var longitude: Double?
            var gpsAccuracy: Double?

            enum CodingKeys: String, CodingKey {
                case latitude, longitude
                case gpsAccuracy = "gps_accuracy"
            }

            init(from decoder: any Decoder) throws {
                let fields = try decoder.container(keyedBy: CodingKeys.self)
                self.latitude = fields.lenient(Double.self, forKey: .latitude)
                self.longitude = fields.lenient(Double.self, forKey: .longitude)
                self.gpsAccuracy = fields.lenient(Double.self, forKey: .gpsAccuracy)
            }
        }

        var attributes: Attributes?
        var lastUpdated: String?
        var lastChanged: String?

        enum CodingKeys: String, CodingKey {
            case attributes
            case lastUpdated = "last_updated"
            case lastChanged = "last_changed"
        }

        package init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            self.attributes = fields.lenient(Attributes.self, forKey: .attributes)
            self.lastUpdated = fields.lenient(String.self, forKey: .lastUpdated)
            self.lastChanged = fields.lenient(String.self, forKey: .lastChanged)
        }

        /// With coordinates, at its `last_updated` (else `last_changed`); nil without.
        package var point: TrackPoint? {
            guard let latitude = self.attributes?.latitude, let longitude = self.attributes?.longitude,
                let time = [self.lastUpdated, self.lastChanged].lazy.compactMap({ $0 })
                    .compactMap({ TrackTime.milliseconds(Array($0.utf8)) }).first
            else { return nil }
            let point = TrackPoint(
                milliseconds: time, latitude: latitude, longitude: longitude,
                accuracyMeters: self.attributes?.gpsAccuracy.flatMap { $0 >= 0 ? $0 : nil })
            return point.isValid ? point : nil
        }
    }

    /// `/api/states/ENTITY`: the entity's state (its `point` nil when it has no coordinates); nil for anything but a
    /// JSON state.
    package static func state(_ body: [UInt8]) -> State? {
        State.decodeJSON(body)
    }

    /// `/api/history/period/…`: a list per entity, each a list of states; their points. Nil for anything but a JSON
    /// list; empty when nothing was recorded then.
    package static func history(_ body: [UInt8]) -> [TrackPoint]? {
        [Lenient<[Lenient<State>]>].decodeJSON(body).map { entities in
            entities.flatMap { $0.value ?? [] }.compactMap { $0.value?.point }
        }
    }
}
