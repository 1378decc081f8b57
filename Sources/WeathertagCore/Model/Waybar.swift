import Foundation

/// waybar's custom-module JSON (`"return-type": "json"`, `"exec": "weathertag tag --waybar"`): `text` for the bar,
/// `tooltip` with the details, `class` for CSS (`ok` or `stale`, the condition group in lower case, `day` or `night`) and `alt`
/// (`ok` or `stale`) for `format-icons`.
public enum Waybar {
    public static func module(for tag: WeatherTag, text: String, now: Date) -> JSONValue {
        let state = tag.stale ? "stale" : "ok"
        return .object([
            ("text", .string(text)),
            ("tooltip", .string(Self.tooltip(tag, now: now))),
            ("class", .array(Self.classes(tag, state: state).map(JSONValue.string))),
            ("alt", .string(state)),
        ])
    }

    /// `ok` or `stale`, the condition group, `day` or `night` when the sun's times are known, and `aqi-<label>` with
    /// the air.
    public static func classes(_ tag: WeatherTag, state: String) -> [String] {
        [state, tag.weather.condition.lowercased()] + (tag.weather.daylight.map { [$0 ? "day" : "night"] } ?? [])
            + (tag.airQuality.map { ["aqi-" + $0.label] } ?? [])
    }

    /// What the module shows when there is no tag: the reason in the tooltip, class and alt `unavailable`.
    public static func unavailable(_ reason: String) -> JSONValue {
        .object([
            ("text", .string("")),
            ("tooltip", .string("weathertag: \(reason)")),
            ("class", .array([.string("unavailable")])),
            ("alt", .string("unavailable")),
        ])
    }

    /// ```
    /// broken clouds, 12.3°C (feels like 11.8°C)
    /// humidity 71 %, wind 3.6 m/s
    /// Seoul · fixed (37.5665, 126.9780)
    /// fetched 4 min ago
    /// ```
    static func tooltip(_ tag: WeatherTag, now: Date) -> String {
        let weather = tag.weather
        let unit = weather.units.temperatureSymbol
        var lines: [String] = []
        var first = "\(weather.description), \(TagFormatter.oneDecimal(weather.temperature))\(unit)"
        if let feelsLike = weather.feelsLike { first += " (feels like \(TagFormatter.oneDecimal(feelsLike))\(unit))" }
        lines.append(first)
        var air: [String] = []
        if let humidity = weather.humidity { air.append("humidity \(humidity) %") }
        if let wind = weather.windSpeed {
            air.append("wind \(TagFormatter.oneDecimal(wind)) \(weather.units == .imperial ? "mph" : "m/s")")
        }
        if !air.isEmpty { lines.append(air.joined(separator: ", ")) }
        let coordinates = String(format: "%.4f, %.4f", tag.position.latitude, tag.position.longitude)
        lines.append([tag.place, "\(tag.position.source) (\(coordinates))"].compactMap { $0 }.joined(separator: " · "))
        let minutes = Int(max(0, now.timeIntervalSince(tag.fetchedAt)) / 60)
        lines.append("fetched \(minutes) min ago" + (tag.stale ? " (stale: OpenWeather cannot be reached)" : ""))
        return lines.joined(separator: "\n")
    }
}
