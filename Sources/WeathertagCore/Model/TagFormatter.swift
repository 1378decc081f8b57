/// Turns a tag into the short human line (`⛅ 12.3°C broken clouds · Seoul`) or a user's template.
public struct TagFormatter: Sendable {
    /// The placeholders a template may use, with what each stands for.
    public static let placeholders: KeyValuePairs<String, String> = [
        "icon": "an emoji for the condition (☀️ ⛅ ☁️ 🌧️ …)",
        "icon_code": "OpenWeather's icon code (04d)",
        "temperature": "temperature with its unit (12.3°C)",
        "temp": "temperature without unit (12.3)",
        "feels_like": "felt temperature with its unit",
        "description": "condition text (broken clouds)",
        "condition": "condition group (Clouds)",
        "humidity": "relative humidity in % (71)",
        "wind_speed": "wind speed (3.6)",
        "place": "place name (Seoul)",
        "source": "where the position came from (gpsd, ip, command, fixed)",
        "observed_at": "when OpenWeather observed it (ISO 8601)",
        "stale": "\"stale\" when the weather is old, otherwise empty",
    ]

    public static let defaultTemplate = "{icon} {temperature} {description}{ · place}"

    public var template: String

    /// Fails naming the placeholder when the template uses an unknown one.
    public init(template: String = Self.defaultTemplate) throws(TemplateError) {
        for name in Self.names(in: template) where !Self.placeholders.contains(where: { $0.key == name }) {
            throw TemplateError(placeholder: name)
        }
        self.template = template
    }

    /// `{name}` is replaced by the value; `{ · name}` (text before the name) only appears when the value is not
    /// empty, so a line does not end in a dangling separator.
    public func format(_ tag: WeatherTag) -> String {
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

    public static func emoji(forIcon icon: String) -> String {
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
        case "source": return tag.position.source
        case "observed_at": return weather.observedAt.iso8601
        case "stale": return tag.stale ? "stale" : ""
        default: return ""
        }
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
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    public var placeholder: String

    public init(placeholder: String) {
        self.placeholder = placeholder
    }

    public var description: String {
        "unknown placeholder {\(self.placeholder)}; known: "
            + TagFormatter.placeholders.map { "{\($0.key)}" }.joined(separator: " ")
    }
}
