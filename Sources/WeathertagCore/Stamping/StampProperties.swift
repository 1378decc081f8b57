import FoundationEssentials

/// How the stamp is written into an entry's front matter (`stamp.format`).
package enum StampFormat: String, Sendable, CaseIterable {
    /// One `weather:` mapping (the default): the block in docs/stamp.md.
    case block
    /// Top-level properties Obsidian types (`StampProperties`): no mapping anywhere.
    case properties
}

/// The stamp as Obsidian's typed properties: each of the block's fields a top-level key of its own, named
/// `weather_` and the field (`weather_temperature`), so that none meets an author's own (`title`, `date`, `tags`,
/// `location`, `mood`). Obsidian's Properties panel and Bases know six types (Text, List, Number, Checkbox, Date,
/// Date & time) and no object, so the block's `air` and `location` become keys of their own, and the times are
/// Obsidian's Date & time (`YYYY-MM-DDTHH:mm:ss`, the place's wall clock) with the offset and the zone beside them
/// as text. `observed_at` is not written: it is `weather_local_time` at `weather_utc_offset`.
///
/// What reads a stamp reads both forms: the stamper (an entry with either is stamped), the memory (the lines as
/// they stand in the file, given back as they were), the index (`weatherMapping` makes the block's mapping of them).
package enum StampProperties {
    /// An Obsidian property type (`.obsidian/types.json`'s words).
    package enum ObsidianType: String, Sendable {
        case text, number, checkbox, datetime
    }

    /// Every property weathertag writes, in the block's order, with its type: what `types.json` declares.
    package static let all: [(name: String, type: ObsidianType)] = [
        ("weather_condition", .text), ("weather_description", .text), ("weather_code", .number),
        ("weather_icon", .text), ("weather_icon_file", .text), ("weather_temperature", .number),
        ("weather_feels_like", .number), ("weather_humidity", .number), ("weather_pressure", .number),
        ("weather_wind_speed", .number), ("weather_wind_deg", .number), ("weather_wind_direction", .text),
        ("weather_wind_gust", .number), ("weather_clouds", .number), ("weather_visibility", .number),
        ("weather_rain_1h", .number), ("weather_snow_1h", .number), ("weather_units", .text),
        ("weather_local_time", .datetime), ("weather_utc_offset", .text), ("weather_zone", .text),
        ("weather_sunrise", .datetime), ("weather_sunset", .datetime), ("weather_daylight", .checkbox),
        ("weather_moon_phase", .text), ("weather_moon_illumination", .number), ("weather_kind", .text),
        ("weather_source", .text), ("weather_service", .text), ("weather_place", .text), ("weather_region", .text),
        ("weather_country", .text), ("weather_aqi", .number), ("weather_air_label", .text),
        ("weather_air_scale", .text), ("weather_pm2_5", .number), ("weather_pm10", .number), ("weather_o3", .number),
        ("weather_no2", .number), ("weather_latitude", .number), ("weather_longitude", .number),
        ("weather_accuracy_m", .number), ("weather_location_source", .text), ("weather_location_name", .text),
    ]

    private static let names: Set<String> = Set(Self.all.map(\.name))

    /// Whether `key` is one of the stamp's properties.
    package static func isProperty(_ key: String) -> Bool {
        key.utf8.starts(with: "weather_".utf8) && Self.names.contains(key)
    }

    /// The block's keys under `air` and `location` as properties.
    private static let nested: [String: [String: String]] = [
        "air": [
            "aqi": "weather_aqi", "label": "weather_air_label", "scale": "weather_air_scale",
            "pm2_5": "weather_pm2_5", "pm10": "weather_pm10", "o3": "weather_o3", "no2": "weather_no2",
        ],
        "location": [
            "latitude": "weather_latitude", "longitude": "weather_longitude", "accuracy_m": "weather_accuracy_m",
            "source": "weather_location_source", "name": "weather_location_name",
        ],
    ]

    /// A field's lines of the block (`  key: value`, `  air:` and its `    key: value`) as properties. The times
    /// (`local_time`, `sunrise`, `sunset`: RFC 3339 with the place's offset) become the place's wall clock; the
    /// offset of `local_time` goes beside it, with the zone when known.
    static func lines(ofBlock lines: [String], zone: String?) -> [String] {
        var properties: [String] = []
        var parent: String?
        for line in lines {
            let indented = line.hasPrefix("    ")
            let text = line.drop { $0 == " " }
            guard let colon = text.firstIndex(of: ":") else { continue }
            let key = String(text[..<colon])
            let value = text[text.index(after: colon)...].drop { $0 == " " }
            if !indented && value.isEmpty {
                parent = key
                continue
            }
            if indented, let parent, let name = Self.nested[parent]?[key] {
                properties.append("\(name): \(value)")
                continue
            }
            switch key {
            case "observed_at": continue
            case "local_time":
                guard let (wallClock, offset) = Self.wallClock(value) else { continue }
                properties.append("weather_local_time: \(wallClock)")
                properties.append("weather_utc_offset: \"\(offset)\"")
                if let zone { properties.append("weather_zone: \(YAMLScalar.string(zone))") }
            case "sunrise", "sunset":
                guard let (wallClock, _) = Self.wallClock(value) else { continue }
                properties.append("weather_\(key): \(wallClock)")
            case "weather_source", "weather_service": properties.append("\(key): \(value)")
            default: properties.append("weather_\(key): \(value)")
            }
        }
        return properties
    }

    /// `2026-11-22T18:41:00+09:00` as Obsidian's Date & time (`2026-11-22T18:41:00`) and its offset (`+09:00`).
    private static func wallClock(_ time: Substring) -> (String, String)? {
        guard time.count == 25, let sign = time.dropFirst(19).first, sign == "+" || sign == "-" else { return nil }
        return (String(time.prefix(19)), String(time.dropFirst(19)))
    }

    /// The block's `weather` mapping that the properties in `mapping` stand for, for everything that reads a block
    /// (the index's weather, the map's place): `weather_` taken off each key, `air` and `location` made mappings
    /// again, `local_time` and `sunrise` and `sunset` given their offset, `observed_at` made from `local_time`. Nil
    /// when no property has a value.
    package static func weatherMapping(in mapping: YAMLNode.Mapping) -> YAMLNode.Mapping? {
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        var nested: [String: [(key: YAMLNode, value: YAMLNode)]] = [:]
        var values: [String: String] = [:]
        for (key, value) in mapping {
            guard let name = key.string, Self.isProperty(name), let scalar = value.scalar, !Self.isNull(scalar) else {
                continue
            }
            values[name] = scalar.string
            if let (parent, child) = Self.parent(of: name) {
                nested[parent, default: []].append((.scalar(.init(string: child)), value))
            } else if name != "weather_source", name != "weather_service" {
                pairs.append((.scalar(.init(string: String(name.dropFirst("weather_".count)))), value))
            } else {
                pairs.append((key, value))
            }
        }
        guard !values.isEmpty else { return nil }
        // The times with their offset again, and the instant they were.
        if let offset = values["weather_utc_offset"], offset.utf8.count == 6 {
            pairs = pairs.map { pair in
                guard let key = pair.key.string, ["local_time", "sunrise", "sunset"].contains(key),
                    let time = pair.value.scalar?.string, time.utf8.count == 19
                else { return pair }
                return (pair.key, .scalar(.init(string: time + offset)))
            }
            if let local = values["weather_local_time"], let instant = Date(iso8601WithOffset: local + offset) {
                pairs.append((.scalar(.init(string: "observed_at")), .scalar(.init(string: instant.iso8601))))
            }
        }
        for parent in ["air", "location"] {
            if let children = nested[parent] {
                pairs.append((.scalar(.init(string: parent)), .mapping(YAMLNode.Mapping(children))))
            }
        }
        return YAMLNode.Mapping(pairs)
    }

    /// The block's parent key (`air`, `location`) and its own key, for a property that was under one.
    private static func parent(of property: String) -> (String, String)? {
        for (parent, children) in Self.nested {
            if let child = children.first(where: { $0.value == property }) { return (parent, child.key) }
        }
        return nil
    }

    /// Whether a property's value is null (a template's `weather_temperature:` with nothing after it).
    static func isNull(_ scalar: YAMLNode.Scalar) -> Bool {
        scalar.plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }
}
