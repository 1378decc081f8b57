import FoundationEssentials
import WeathertagCore

/// Asks OpenWeather for current weather, place names, the air and the timemachine's history (`openweather`). Counts
/// every call it makes; its errors never contain the key.
package struct OpenWeatherClient: WeatherSource {
    package let type = "openweather"
    package var configuration: OpenWeatherConfiguration
    /// Every source's units and language (`weather.units`, `weather.lang`): what OpenWeather is asked in.
    package let units: Units
    package let lang: String
    private let http: any HTTPClient
    private let countCall: @Sendable () -> Void

    package init(
        configuration: OpenWeatherConfiguration, units: Units, lang: String, http: any HTTPClient,
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

extension OpenWeatherClient {
    /// `{"type": "openweather"}`: everything else is in the `openweather` section, which must hold a key.
    package struct Settings: Sendable {
        package var configuration: OpenWeatherConfiguration
        package var units: Units
        package var lang: String
    }
}

extension WeatherSourcePlugin {
    package static var openWeather: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "openweather", keys: ["timeout_seconds"]
        ) { (config, context) throws(ConfigurationError) in
            guard context.openWeather.apiKey != nil else {
                throw Configuration.missingKey(neededBy: config.fieldPath("type") + " openweather")
            }
            var configuration = context.openWeather
            if let timeout = try config.seconds("timeout_seconds", maximum: 120) { configuration.timeout = timeout }
            return OpenWeatherClient.Settings(configuration: configuration, units: context.units, lang: context.lang)
        } makePast: { settings, context in
            OpenWeatherClient(
                configuration: settings.configuration, units: settings.units, lang: settings.lang, http: context.http,
                countCall: context.countCall)
        }
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
