import FoundationEssentials
import WeathertagCore

/// Asks OpenWeather for current weather, place names, the air and the timemachine's history (`openweather`). Counts
/// every call it makes; its errors never contain the key.
package struct OpenWeatherClient: WeatherSource {
    package let type = "openweather"
    package var configuration: OpenWeatherSection
    /// Every source's units and language (`weather.units`, `weather.lang`): what OpenWeather is asked in.
    package let units: Units
    package let lang: String
    private let http: any HTTPClient
    private let countCall: @Sendable () -> Void

    package init(
        configuration: OpenWeatherSection, units: Units, lang: String, http: any HTTPClient,
        countCall: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        (self.units, self.lang) = (units, lang)
        self.http = http
        self.countCall = countCall
    }

    package var maximumCallsPerMinute: Int { self.configuration.maximumCallsPerMinute }

    package var ceilingSetting: String { "openweather.max_calls_per_minute" }

    package var iconImages: IconImages? {
        IconImages(baseURL: self.configuration.iconBaseURL, timeout: self.configuration.timeout)
    }

    private var apiKey: String { self.configuration.apiKey?.value ?? "" }

    package var keyOrigin: String? { self.configuration.apiKey?.origin }

    package func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        let url = OpenWeatherAPI.currentWeatherURL(
            baseURL: self.configuration.baseURL,
            at: position,
            apiKey: self.apiKey,
            units: self.units,
            lang: self.lang
        )
        let response = try await self.get(url, "OpenWeather")
        do {
            return try OpenWeatherAPI.decodeCurrentWeather(response, units: self.units)
        } catch {
            throw WeatherError(kind: error.kind, message: self.redacted(error.message))
        }
    }

    /// The place by name near `position`; nil when the geocoder knows none.
    package func placeName(at position: RequestPosition) async throws(WeatherError) -> PlaceName? {
        let url = OpenWeatherAPI.reverseGeocodingURL(
            baseURL: self.configuration.baseURL, at: position, apiKey: self.apiKey)
        return try OpenWeatherAPI.decodeReverseGeocoding(try await self.get(url, "OpenWeather's geocoder"))
    }

    /// The air at `position`.
    package func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality? {
        let url = OpenWeatherAPI.airPollutionURL(
            baseURL: self.configuration.baseURL, at: position, apiKey: self.apiKey)
        return try OpenWeatherAPI.decodeAirPollution(try await self.get(url, "OpenWeather's air pollution API"))
    }

    /// The timemachine's answer for `position` at `time`, checked to hold the weather of that time, as it came (to
    /// be kept and read again).
    package func timemachineAnswer(at position: RequestPosition, time: Date) async throws(WeatherError) -> [UInt8] {
        let url = OpenWeatherAPI.timemachineURL(
            baseURL: self.configuration.baseURL, at: position, time: time, apiKey: self.apiKey,
            units: self.units,
            lang: self.lang)
        let response = try await self.get(url, "OpenWeather's history")
        do {
            _ = try OpenWeatherAPI.decodeTimemachine(response, units: self.units)
        } catch {
            throw WeatherError(kind: error.kind, message: self.redacted(error.message))
        }
        return response.body
    }

    /// One counted call; a transport failure is `.unreachable`, in words without the key.
    private func get(_ url: String, _ service: String) async throws(WeatherError) -> HTTPResponse {
        self.countCall()
        do {
            return try await self.http.get(HTTPRequest(url: url, timeout: self.configuration.timeout))
        } catch {
            throw WeatherError(
                kind: .unreachable, message: "\(service) unreachable: \(self.redacted("\(error)"))", cause: error)
        }
    }

    /// Belt and braces: whatever a lower layer put in a message, the key does not leave this type.
    private func redacted(_ message: String) -> String {
        let key = self.apiKey
        return key.isEmpty ? message : message.replacing(key, with: "<redacted>")
    }
}

extension OpenWeatherClient: PlaceNamingService {}

extension OpenWeatherClient {
    /// `{"type": "openweather"}`: everything else is in the `openweather` section, which must hold a key.
    package struct Settings: Sendable {
        package var configuration: OpenWeatherSection
        package var units: Units
        package var lang: String
    }
}

extension WeatherSourcePlugin {
    package static var openWeather: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "openweather", name: "OpenWeather", needsKey: true,
            answers: [
                AnswerReader("OpenWeather's current weather") { bytes in
                    _ = try? OpenWeatherAPI.decodeCurrentWeather(HTTPResponse(status: 200, body: bytes), units: .metric)
                },
                AnswerReader("OpenWeather's timemachine hour") { bytes in
                    _ = try? OpenWeatherAPI.decodeTimemachine(HTTPResponse(status: 200, body: bytes), units: .standard)
                },
                AnswerReader("OpenWeather's air") { bytes in
                    _ = try? OpenWeatherAPI.decodeAirPollution(HTTPResponse(status: 200, body: bytes))
                },
                AnswerReader("OpenWeather's reverse geocoder") { bytes in
                    _ = try? OpenWeatherAPI.decodeReverseGeocoding(HTTPResponse(status: 200, body: bytes))
                },
            ],
            keys: [
                .seconds("timeout_seconds", maximum: 120)
            ], sections: [OpenWeatherSection.self],
            impliedBy: { context in
                // As before sources were plugins: a key and no list is OpenWeather alone.
                context.sections[OpenWeatherSection.self].apiKey == nil
                    ? nil : "an OpenWeather key, so OpenWeather alone"
            }
        ) { (config, context) throws(ConfigurationError) in
            var configuration = context.sections[OpenWeatherSection.self]
            guard configuration.apiKey != nil else {
                throw OpenWeatherSection.missingKey(
                    neededBy: config.fieldPath("type") + " openweather", keyless: context.keyless)
            }
            if let timeout = try config.seconds("timeout_seconds", maximum: 120) { configuration.timeout = timeout }
            return OpenWeatherClient.Settings(configuration: configuration, units: context.units, lang: context.lang)
        } makePast: { settings, context in
            OpenWeatherClient(
                configuration: settings.configuration, units: settings.units, lang: settings.lang, http: context.http,
                countCall: context.countCall)
        }
    }
}

extension GeocoderPlugin {
    /// OpenWeather's reverse geocoder (`geocoding.provider: openweather`), asked with the `openweather` section's
    /// key and counted on its ceiling; the default geocoder when there is a key.
    package static var openWeather: GeocoderPlugin {
        GeocoderPlugin(
            type: "openweather", description: "OpenWeather's geocoder", sections: [OpenWeatherSection.self]
        ) { (sections, neededBy) throws(ConfigurationError) -> OpenWeatherSection? in
            let section = sections[OpenWeatherSection.self]
            guard section.apiKey != nil else {
                if let neededBy { throw OpenWeatherSection.missingKey(neededBy: neededBy) }
                return nil
            }
            return section
        } make: { section, context in
            // Its names come in every language it has; `weather.lang` picks one (`PlaceName`).
            OpenWeatherClient(
                configuration: section, units: .metric, lang: "en", http: context.http, countCall: context.countCall)
        }
    }
}

/// The `openweather` section: the key and OpenWeather's addresses, read by its source and its geocoder.
package struct OpenWeatherSection: ConfigurationSection {
    package static let name = "openweather"
    package static let declaredKeys: [ConfigKey] = [
        .string("api_key", "The key, inline (lowest priority)."),
        .string("api_key_file", minLength: 1, "A file holding the key (chmod 600)."),
        .url("base_url", default: "https://api.openweathermap.org"),
        .url("icon_base_url", default: "https://openweathermap.org/img/wn"),
        .choice(
            "units", ["standard", "metric", "imperial"], deprecated: true,
            "Deprecated: read as weather.units when that is not given."),
        .string(
            "lang", pattern: "^[A-Za-z_-]{1,8}$", deprecated: true,
            "Deprecated: read as weather.lang when that is not given."),
        .seconds("timeout_seconds", maximum: 120, default: 10),
        .integer("max_calls_per_minute", minimum: 1, maximum: 3000, default: 60),
    ]
    /// Where they were when OpenWeather was the only source.
    package static let movedKeys = ["units": "weather.units", "lang": "weather.lang"]

    /// nil when none is configured: then OpenWeather is not among the sources, and keyless ones answer.
    package var apiKey: APIKey?
    package var baseURL = "https://api.openweathermap.org"
    package var iconBaseURL = "https://openweathermap.org/img/wn"
    package var timeout: Duration = .seconds(10)
    /// Never more calls than this in any 60 seconds (the free plan allows 60).
    package var maximumCallsPerMinute = 60

    package init(apiKey: APIKey?) {
        self.apiKey = apiKey
    }

    package init(
        _ object: ConfigObject, context: SectionContext, warnings: inout [String]
    ) throws(ConfigurationError) {
        self.apiKey = try Self.resolveAPIKey(object, context: context, warnings: &warnings)
        if let url = try object.url("base_url") { self.baseURL = url }
        if let url = try object.url("icon_base_url") { self.iconBaseURL = url }
        // `units` and `lang` are every source's: Core reads them here too, as it used to (`movedKeys`).
        if let timeout = try object.seconds("timeout_seconds", maximum: 120) { self.timeout = timeout }
        if let calls = try object.integer("max_calls_per_minute", in: 1...3000) { self.maximumCallsPerMinute = calls }
    }

    /// Highest first: systemd credential, `$OPENWEATHER_API_KEY`, `api_key_file`, `api_key`.
    private static func resolveAPIKey(
        _ object: ConfigObject, context: SectionContext, warnings: inout [String]
    ) throws(ConfigurationError) -> APIKey? {
        func clean(_ text: String) -> String? {
            let key = text.trimmingWhitespaceAndNewlines()
            return key.isEmpty ? nil : key
        }
        let (paths, files) = (context.paths, context.files)
        if let directory = paths.environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let file = directory + "/openweather-api-key"
            if let data = files.contents(file), let key = clean(String(decoding: data, as: UTF8.self)) {
                return APIKey(key, origin: "systemd credential openweather-api-key")
            }
        }
        if let key = paths.environment["OPENWEATHER_API_KEY"].flatMap(clean) {
            return APIKey(key, origin: "$OPENWEATHER_API_KEY")
        }
        if let name = try object.nonEmptyString("api_key_file") {
            let file = paths.absolute(name)
            guard let data = files.contents(file) else {
                throw ConfigurationError(field: "openweather.api_key_file", message: "cannot read \(file)")
            }
            guard let key = clean(String(decoding: data, as: UTF8.self)) else {
                throw ConfigurationError(field: "openweather.api_key_file", message: "\(file) is empty")
            }
            if let mode = files.permissions(file), mode & 0o077 != 0 {
                warnings.append(
                    "openweather.api_key_file: \(file) can be read by others (mode \(String(mode, radix: 8))); "
                        + "chmod 600 \(file)")
            }
            return APIKey(key, origin: file)
        }
        if let key = try object.string("api_key").flatMap(clean) {
            return APIKey(key, origin: "openweather.api_key")
        }
        return nil
    }

    /// The error for a part of the configuration that needs OpenWeather (`user`, such as `history.source`) when
    /// there is no key; `keyless` are the sources that need none (the registry's), offered instead.
    package static func missingKey(neededBy user: String, keyless: [String] = []) -> ConfigurationError {
        ConfigurationError(
            field: "openweather.api_key",
            message: "no OpenWeather API key, and \(user) needs one: set $OPENWEATHER_API_KEY, put the key in a "
                + "file named by openweather.api_key_file, set openweather.api_key, or under systemd use "
                + "LoadCredential=openweather-api-key:/etc/weathertag/api-key"
                + (keyless.isEmpty ? "" : "; or use a source that needs no key (\(keyless.joined(separator: ", ")))")
        )
    }
}

/// The past from OpenWeather's One Call 3.0 timemachine (a subscription): one call per place and hour, the answer
/// kept as it came (`TimemachineHour`).
extension OpenWeatherClient: HistorySource {
    package var name: String { "OpenWeather" }

    /// `history.max_calls_per_day` (900 unless set; One Call 3.0 is free up to 1,000 a day) in any 24 hours.
    package func historyLimits(maximumPerDay: Int?) -> HistoryLimits {
        let calls = maximumPerDay ?? 900
        return HistoryLimits(
            calls: .perDay(Double(calls)), name: "the \(calls) history calls a day (history.max_calls_per_day)")
    }

    package func unavailable(hour: Int) -> String? { nil }

    package func plan(hour: Int, moment: Date, now: Date, kept: [ClosedRange<Int>]) -> (any HistoryFetch)? {
        moment <= now ? TimemachineFetch(moment: moment, hour: hour) : nil
    }

    /// Its answers have no gaps: an answer without the hour's weather is refused when it comes.
    package func planAgain(hour: Int, now: Date) -> (any HistoryFetch)? { nil }

    package func history(
        _ fetch: any HistoryFetch, at position: RequestPosition, now: Date
    ) async throws(WeatherError) -> (any HistoryHours)? {
        guard let fetch = fetch as? TimemachineFetch else { return nil }
        return TimemachineHour(
            hour: fetch.hour, body: try await self.timemachineAnswer(at: position, time: fetch.moment))
    }

    package func hours(kept: [UInt8]) -> (any HistoryHours)? { TimemachineHour(encoded: kept) }
}
