import FoundationEssentials

/// waybar's custom-module JSON (`"return-type": "json"`, `"exec": "weathertag tag --waybar"`): `text` for the bar,
/// `tooltip` with the details, `class` for CSS (`ok` or `stale`, the condition group in lower case, `day` or `night`) and `alt`
/// (`ok` or `stale`) for `format-icons`. Sync conflicts in the inbox add a last tooltip line (`1 sync conflict`) and the
/// class `sync-conflict`.
package enum Waybar {
    package static func module(
        for tag: WeatherTag, text: String, now: Date, syncConflicts: Int = 0, onThisDay: [EntryDocument] = []
    ) -> JSONValue {
        let state = tag.stale ? "stale" : "ok"
        var tooltip = Self.tooltip(tag, now: now)
        var classes = Self.classes(tag, state: state)
        if !onThisDay.isEmpty {
            // Earlier years' entries of today's month and day, newest first: a line each.
            tooltip += "\n" + onThisDay.map(Self.onThisDayLine).joined(separator: "\n")
            classes.append("on-this-day")
        }
        if syncConflicts > 0 {
            tooltip += "\n\(syncConflicts) sync conflict\(syncConflicts == 1 ? "" : "s") (weathertag status)"
            classes.append("sync-conflict")
        }
        // waybar reads both as Pango markup: a place or description with `&` or `<` would blank the module.
        return .object([
            ("text", .string(Self.escaped(text))),
            ("tooltip", .string(Self.escaped(tooltip))),
            ("class", .array(classes.map(JSONValue.string))),
            ("alt", .string(state)),
        ])
    }

    /// `ok` or `stale`, the condition group, `day` or `night` when the sun's times are known, and `aqi-<label>` with
    /// the air.
    package static func classes(_ tag: WeatherTag, state: String) -> [String] {
        [state, tag.weather.condition.lowercased()] + (tag.weather.daylight.map { [$0 ? "day" : "night"] } ?? [])
            + (tag.airQuality.map { ["aqi-" + $0.label] } ?? [])
    }

    /// What the module shows when there is no tag: `text` (never empty: waybar hides a module without text), the
    /// reason in the tooltip, class and alt `unavailable`.
    package static func unavailable(_ reason: String, text: String = "n/a") -> JSONValue {
        .object([
            ("text", .string(Self.escaped(text.isEmpty ? "n/a" : text))),
            ("tooltip", .string(Self.escaped("weathertag: \(reason)"))),
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
    /// `2019 · ☔ 12°C Seoul · the market`: the year, the weather its block holds, the place and the title; an entry
    /// that says why it is where it is (`EntryDocument.saysWhy`: one without weather) ends with its `why`.
    package static func onThisDayLine(_ entry: EntryDocument) -> String {
        var weather: [String] = []
        if let icon = entry.weather?.icon { weather.append(TagFormatter.emoji(forIcon: icon)) }
        if let temperature = entry.weather?.temperature, temperature.isFinite {
            let unit = entry.weather?.units.flatMap(Units.init(rawValue:)) ?? .metric
            weather.append("\(Int(temperature.rounded()))\(unit.temperatureSymbol.trimmingWhitespace())")
        }
        if let place = entry.weather?.place, !place.isEmpty { weather.append(place) }
        return [
            String(entry.time.prefix(4)), weather.joined(separator: " "), entry.title,
            entry.saysWhy ? entry.why : "",
        ].filter { !$0.isEmpty }.joined(separator: " · ")
    }

    /// Pango markup's special characters as entities.
    package static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;")
    }

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
        // Coordinates only as privacy shows them, and none where it withholds them.
        let source =
            tag.position.withheld
            ? tag.position.source
            : tag.position.source + " (" + String(cFormat: "%.4f, %.4f", tag.position.latitude, tag.position.longitude)
                + ")"
        lines.append([tag.place, source].compactMap { $0 }.joined(separator: " · "))
        let minutes = Int(max(0, now.timeIntervalSince(tag.fetchedAt)) / 60)
        lines.append(
            "fetched \(minutes) min ago"
                + (tag.stale
                    ? tag.weather.source == nil
                        ? " (stale: OpenWeather cannot be reached)" : " (stale: no weather source can be reached)"
                    : ""))
        return lines.joined(separator: "\n")
    }
}
