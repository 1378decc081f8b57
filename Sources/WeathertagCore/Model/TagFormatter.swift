import FoundationEssentials

/// Turns a tag into the short human line (`⛅ 12.3°C broken clouds · Seoul`) or a user's template.
package struct TagFormatter: Sendable {
    /// The placeholders a template may use, with what each stands for.
    package static let placeholders: KeyValuePairs<String, String> = [
        "icon": "an emoji for the condition (☀️ ⛅ ☁️ 🌧️ …)",
        "icon_code": "the icon code, in OpenWeather's scheme whoever answered (04d)",
        "temperature": "temperature with its unit (12.3°C)",
        "temp": "temperature without unit (12.3)",
        "feels_like": "felt temperature with its unit",
        "description": "condition text (broken clouds)",
        "condition": "condition group (Clouds)",
        "humidity": "relative humidity in % (71)",
        "wind_speed": "wind speed (3.6)",
        "place": "place name (Seoul)",
        "region": "the place's region or state, from the geocoder (Geneva)",
        "country": "the place's ISO country code, from the geocoder (CH)",
        "aqi": "air quality index 1–5, with air_quality.enabled (2)",
        "air": "air quality in words: good, fair, moderate, poor, very_poor",
        "source": "where the position came from (gpsd, ip, command, fixed)",
        "observed_at": "when the source observed it (ISO 8601)",
        "stale": "\"stale\" when the weather is old, otherwise empty",
        "sunrise": "sunrise at the place, its local time (07:21)",
        "sunset": "sunset at the place, its local time (17:02)",
        "daylight": "\"day\" or \"night\" at the place when observed",
        "local_time": "when it was observed, the place's local time (18:41)",
        "moon": "the moon's phase as an emoji (🌔)",
        "moon_phase": "the moon's phase (waxing_gibbous)",
        "wind_direction": "where the wind comes from, 16-point compass (WSW)",
        "wind_deg": "where the wind comes from, degrees (250)",
        "wind_gust": "wind gusts (7.2)",
        "clouds": "cloud cover in % (75)",
        "visibility": "visibility in metres (10000)",
    ]

    package static let defaultTemplate = "{icon} {temperature} {description}{ · place}"

    package var template: String

    /// Fails naming the placeholder when the template uses an unknown one.
    package init(template: String = Self.defaultTemplate) throws(TemplateError) {
        for name in Self.names(in: template) where !Self.placeholders.contains(where: { $0.key == name }) {
            throw TemplateError(placeholder: name)
        }
        self.template = template
    }

    /// `{name}` is replaced by the value; `{ · name}` (text before the name) only appears when the value is not
    /// empty, so a line does not end in a dangling separator.
    package func format(_ tag: WeatherTag) -> String {
        var out = ""
        var rest = Substring(self.template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                out += rest[open...]
                return out
            }
            let inside = rest[rest.index(after: open)..<close]
            let (prefix, name) = Self.split(inside)
            let value = Self.value(of: name, in: tag)
            if !value.isEmpty { out += prefix + value }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    package static func emoji(forIcon icon: String) -> String {
        let night = icon.hasSuffix("n")
        switch icon.prefix(2) {
        case "01": return night ? "🌙" : "☀️"
        case "02": return night ? "☁️" : "⛅"
        case "03", "04": return "☁️"
        case "09": return "🌧️"
        case "10": return night ? "🌧️" : "🌦️"
        case "11": return "⛈️"
        case "13": return "❄️"
        case "50": return "🌫️"
        default: return "🌡️"
        }
    }

    private static func value(of name: String, in tag: WeatherTag) -> String {
        let weather = tag.weather
        let unit = weather.units.temperatureSymbol
        switch name {
        case "icon": return Self.emoji(forIcon: weather.icon)
        case "icon_code": return weather.icon
        case "temperature": return Self.oneDecimal(weather.temperature) + unit
        case "temp": return Self.oneDecimal(weather.temperature)
        case "feels_like": return weather.feelsLike.map { Self.oneDecimal($0) + unit } ?? ""
        case "description": return weather.description
        case "condition": return weather.condition
        case "humidity": return weather.humidity.map(String.init) ?? ""
        case "wind_speed": return weather.windSpeed.map(Self.oneDecimal) ?? ""
        case "place": return tag.place ?? ""
        case "region": return tag.region ?? ""
        case "country": return tag.country ?? ""
        case "aqi": return tag.airQuality.map { String($0.aqi) } ?? ""
        case "air": return tag.airQuality?.label ?? ""
        case "source": return tag.position.source
        case "observed_at": return weather.observedAt.iso8601
        case "stale": return tag.stale ? "stale" : ""
        case "sunrise": return Self.localClock(weather.sunrise, weather.sunrise.flatMap(weather.utcOffset(at:)))
        case "sunset": return Self.localClock(weather.sunset, weather.sunset.flatMap(weather.utcOffset(at:)))
        case "local_time": return Self.localClock(weather.observedAt, weather.utcOffset(at: weather.observedAt))
        case "daylight": return weather.daylight.map { $0 ? "day" : "night" } ?? ""
        case "moon": return MoonPhase(at: weather.observedAt).name.emoji
        case "moon_phase": return MoonPhase(at: weather.observedAt).name.rawValue
        case "wind_direction": return weather.windDirection ?? ""
        case "wind_deg": return weather.windDegrees.map(String.init) ?? ""
        case "wind_gust": return weather.windGust.map(Self.oneDecimal) ?? ""
        case "clouds": return weather.clouds.map(String.init) ?? ""
        case "visibility": return weather.visibility.map(String.init) ?? ""
        default: return ""
        }
    }

    /// `18:41` at the place (its UTC offset); empty when either is unknown.
    private static func localClock(_ date: Date?, _ offset: Int?) -> String {
        guard let date, let offset else { return "" }
        let text = date.iso8601(utcOffset: offset)
        let time = text.split(separator: "T").last ?? ""
        return String(time.prefix(5))
    }

    static func oneDecimal(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == 0 ? "0.0" : "\(rounded)"
    }

    /// Splits `{ · place}` into its literal prefix and the placeholder name (the last word).
    private static func split(_ inside: Substring) -> (prefix: String, name: String) {
        var nameStart = inside.endIndex
        while nameStart > inside.startIndex {
            let before = inside.index(before: nameStart)
            guard inside[before].isLetter || inside[before] == "_" else { break }
            nameStart = before
        }
        return (String(inside[..<nameStart]), String(inside[nameStart...]))
    }

    private static func names(in template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(Self.split(rest[rest.index(after: open)..<close]).name)
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}

/// A template names a placeholder that does not exist.
package struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    package var placeholder: String

    package init(placeholder: String) {
        self.placeholder = placeholder
    }

    package var description: String {
        "unknown placeholder {\(self.placeholder)}; known: "
            + TagFormatter.placeholders.map { "{\($0.key)}" }.joined(separator: " ")
    }
}
