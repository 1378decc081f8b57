import FoundationEssentials
import WeathertagCore

/// Open-Meteo's current weather and air (`open-meteo`): no key. Its WMO codes become OpenWeather's condition, description
/// and icon codes (`WMOWeatherCode`), so every part of weathertag reads its answer as it reads OpenWeather's.
package struct OpenMeteoSource: WeatherSource {
    package let type = "open-meteo"
    package let settings: Settings
    private let http: any HTTPClient
    private let countCall: @Sendable () -> Void

    package init(settings: Settings, http: any HTTPClient, countCall: @escaping @Sendable () -> Void) {
        self.settings = settings
        self.http = http
        self.countCall = countCall
    }

    /// Open-Meteo allows 600 calls a minute per address; current weather takes no more than a tenth of that.
    package var maximumCallsPerMinute: Int { 60 }

    package func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        let url = OpenMeteoAPI.currentURL(
            baseURL: self.settings.service.baseURL, at: position, units: self.settings.units)
        return try OpenMeteoAPI.decodeCurrent(
            try await self.get(url), units: self.settings.units, lang: self.settings.lang)
    }

    /// The air now, on the European index (`air_quality_url`).
    package func airQuality(at position: RequestPosition) async throws(WeatherError) -> AirQuality? {
        let url = OpenMeteoAPI.airQualityURL(baseURL: self.settings.service.airQualityURL, at: position)
        return try OpenMeteoAPI.decodeAirQuality(try await self.get(url))
    }

    private func get(_ url: String) async throws(WeatherError) -> HTTPResponse {
        self.countCall()
        do {
            return try await self.http.get(HTTPRequest(url: url, timeout: self.settings.service.timeout))
        } catch {
            throw WeatherError(kind: .unreachable, message: "Open-Meteo unreachable: \(error)", cause: error)
        }
    }
}

extension OpenMeteoSource {
    /// `{"type": "open-meteo", "timeout_seconds": 10}`; the addresses are in `open_meteo`, the units and the
    /// language in `weather` (`weather.units`, `weather.lang`: every source's).
    package struct Settings: Sendable {
        package var service: OpenMeteoSection
        package var units: Units
        package var lang: String
    }
}

extension WeatherSourcePlugin {
    package static var openMeteo: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "open-meteo", name: "Open-Meteo",
            answers: [
                AnswerReader("Open-Meteo's current weather") { bytes in
                    _ = try? OpenMeteoAPI.decodeCurrent(
                        HTTPResponse(status: 200, body: bytes), units: .metric, lang: "en")
                },
                AnswerReader("Open-Meteo's hours") { bytes in
                    guard let series = try? OpenMeteoHistory.decode(bytes) else { return }
                    for hour in series.span { _ = series.weather(hour: hour, units: .imperial, lang: "ko") }
                },
                AnswerReader("Open-Meteo's air") { bytes in
                    _ = try? OpenMeteoAPI.decodeAirQuality(HTTPResponse(status: 200, body: bytes))
                },
            ],
            keys: [
                .seconds("timeout_seconds", maximum: 120)
            ], sections: [OpenMeteoSection.self]
        ) { (config, context) throws(ConfigurationError) in
            var service = context.sections[OpenMeteoSection.self]
            if let timeout = try config.seconds("timeout_seconds", maximum: 120) { service.timeout = timeout }
            return OpenMeteoSource.Settings(
                service: service, units: context.units, lang: context.lang)
        } makePast: { settings, context in
            OpenMeteoSource(settings: settings, http: context.http, countCall: context.countCall)
        }
    }
}

/// Open-Meteo's three services (`open_meteo`): no key, free for non-commercial use.
package struct OpenMeteoSection: ConfigurationSection {
    package static let name = "open_meteo"
    package static let description: String? =
        "Open-Meteo's services (no key; free for non-commercial use; data CC BY 4.0): the open-meteo source, history.source open-meteo, and its air."
    package static let declaredKeys: [ConfigKey] = [
        .url(
            "base_url", default: "https://api.open-meteo.com",
            "Current weather and the last days' hours (/v1/forecast)."),
        .url(
            "archive_url", default: "https://archive-api.open-meteo.com",
            "The ERA5 archive since 1940 (/v1/archive), for back-dated entries."),
        .url(
            "air_quality_url", default: "https://air-quality-api.open-meteo.com",
            "The air (/v1/air-quality), with air_quality.enabled."),
        .seconds("timeout_seconds", maximum: 120, default: 10),
        .integer(
            "max_calls_per_minute", minimum: 1, maximum: 60000, default: 300,
            "Weighted calls a minute history allows itself (half of the free 600, so current weather and other programs keep the rest)."
        ),
    ]

    /// Current weather and the last days' hours (`/v1/forecast`).
    package var baseURL = "https://api.open-meteo.com"
    /// ERA5 hours since 1940, about five days behind (`/v1/archive`).
    package var archiveURL = "https://archive-api.open-meteo.com"
    /// The air (`/v1/air-quality`).
    package var airQualityURL = "https://air-quality-api.open-meteo.com"
    package var timeout: Duration = .seconds(10)
    /// Weighted calls a minute history allows itself (`open_meteo.max_calls_per_minute`); nil: half of the free
    /// 600.
    package var maximumCallsPerMinute: Int?

    package init() {}

    package init(
        _ object: ConfigObject, context: SectionContext, warnings: inout [String]
    ) throws(ConfigurationError) {
        if let url = try object.url("base_url") { self.baseURL = url }
        if let url = try object.url("archive_url") { self.archiveURL = url }
        if let url = try object.url("air_quality_url") { self.airQualityURL = url }
        if let timeout = try object.seconds("timeout_seconds", maximum: 120) { self.timeout = timeout }
        if let calls = try object.integer("max_calls_per_minute", in: 1...60_000) {
            self.maximumCallsPerMinute = calls
        }
    }
}

/// The past from Open-Meteo: the ERA5 archive for older days, the forecast API for the last ones, a whole calendar
/// year of a place per request (`OpenMeteoHistory`), kept as compact `HourlySeries`.
extension OpenMeteoSource: HistorySource {
    package var name: String { "Open-Meteo" }

    /// Half of Open-Meteo's free limits (`open_meteo.max_calls_per_minute` and `history.max_calls_per_day` when set);
    /// no window allows more than the day.
    package func historyLimits(maximumPerDay: Int?) -> HistoryLimits {
        var limits = OpenMeteoHistory.freeLimits.share
        if let perMinute = self.settings.service.maximumCallsPerMinute { limits.perMinute = Double(perMinute) }
        if let maximumPerDay { limits.perDay = Double(maximumPerDay) }
        return HistoryLimits(
            calls: limits.clampedToTheDay,
            name: "Open-Meteo's free limits (history's half of them"
                + (maximumPerDay == nil ? ")" : ", and history.max_calls_per_day)"))
    }

    package func unavailable(hour: Int) -> String? { OpenMeteoHistory.unavailable(hour: hour) }

    package func plan(hour: Int, moment: Date, now: Date, kept: [ClosedRange<Int>]) -> (any HistoryFetch)? {
        OpenMeteoHistory.plan(hour: hour, now: now, kept: kept)
    }

    package func planAgain(hour: Int, now: Date) -> (any HistoryFetch)? {
        OpenMeteoHistory.planDay(hour: hour, now: now)
    }

    package func history(
        _ fetch: any HistoryFetch, at position: RequestPosition, now: Date
    ) async throws(WeatherError) -> (any HistoryHours)? {
        guard let fetch = fetch as? OpenMeteoHistory.Fetch else { return nil }
        let url = OpenMeteoHistory.url(
            fetch, archiveURL: self.settings.service.archiveURL, forecastURL: self.settings.service.baseURL,
            at: position, units: self.settings.units)
        let response = try await self.get(url)
        if let error = OpenMeteoAPI.error(for: response, now: now) {
            // A 400 is Open-Meteo's word on this request (a date it has no data for, a parameter out of range): final
            // for the entry, with its reason, and not the source's outage.
            if response.status == 400 { throw WeatherError(kind: .requestRefused, message: error.message) }
            throw error
        }
        let hours = try OpenMeteoHistory.decode(response.body)
        // The forecast API's hours after now are forecasts, not what happened: not kept as history.
        guard fetch.service == .forecast else { return hours }
        return hours.ending(at: Int(now.timeIntervalSince1970 / 3600) - 1)
    }

    package func hours(kept: [UInt8]) -> (any HistoryHours)? { HourlySeries(encoded: kept) }
}
