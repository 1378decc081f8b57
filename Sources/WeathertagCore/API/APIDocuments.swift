import FoundationEssentials

// The socket API's documents, in one place: the daemon encodes them (`JSONValueEncoder`, keys in this order) and
// the CLI decodes them (`JSONDecoder`). Times are ISO 8601 strings; a field without a value is null.

/// `GET /v1/tag`: the stamp's fields plus `stale`, `fetched_at` and `age_seconds`.
package struct TagDocument: Codable, Sendable, Equatable {
    package var condition: String
    package var description: String
    package var code: Int
    package var icon: String
    package var iconFile: String?
    package var temperature: Double
    package var feelsLike: Double?
    package var humidity: Int?
    package var pressure: Int?
    package var windSpeed: Double?
    package var units: String
    package var observedAt: String
    package var place: String?
    package var region: String?
    package var country: String?
    /// With `air_quality.enabled`: `aqi` 1–5 and the components OpenWeather sent; `label` is derived.
    package var air: AirDocument?
    package var location: LocationDocument
    package var stale: Bool
    package var fetchedAt: String
    package var ageSeconds: Double
    /// `current`, or `historical` for the weather of an earlier time.
    package var kind: String?
    /// Which source answered (`open-meteo`, `openweather`, `met-norway`, `command`); null for OpenWeather alone
    /// configured without `weather.providers`.
    package var weatherSource: String?
    package var windDeg: Int?
    package var windDirection: String?
    package var windGust: Double?
    package var clouds: Int?
    package var visibility: Int?
    package var rain1h: Double?
    package var snow1h: Double?
    /// The place's offset from UTC in seconds; the local times below carry it.
    package var utcOffset: Int?
    package var localTime: String?
    package var sunrise: String?
    package var sunset: String?
    package var daylight: Bool?
    package var moonPhase: String?
    package var moonIllumination: Double?
    /// The sync tools' conflict copies in the inbox (`/v1/tag` only; `status` lists them): for a status bar's tooltip.
    package var syncConflicts: Int?

    enum CodingKeys: String, CodingKey {
        case condition, description, code, icon
        case iconFile = "icon_file"
        case temperature
        case feelsLike = "feels_like"
        case humidity, pressure
        case windSpeed = "wind_speed"
        case units
        case observedAt = "observed_at"
        case place, region, country, air, location, stale
        case fetchedAt = "fetched_at"
        case ageSeconds = "age_seconds"
        case kind
        case weatherSource = "weather_source"
        case windDeg = "wind_deg"
        case windDirection = "wind_direction"
        case windGust = "wind_gust"
        case clouds, visibility
        case rain1h = "rain_1h"
        case snow1h = "snow_1h"
        case utcOffset = "utc_offset"
        case localTime = "local_time"
        case sunrise, sunset, daylight
        case moonPhase = "moon_phase"
        case moonIllumination = "moon_illumination"
        case syncConflicts = "sync_conflicts"
    }
}

/// The `air` of a tag.
package struct AirDocument: Codable, Sendable, Equatable {
    package var aqi: Int
    package var label: String
    /// `openweather` (1–5) or `european` (0–100 and above); absent from daemons older than the second scale.
    package var scale: String?
    package var pm2_5: Double?
    package var pm10: Double?
    package var o3: Double?
    package var no2: Double?

    package init(_ air: AirQuality) {
        self.aqi = air.aqi
        self.label = air.label
        self.scale = air.scale.rawValue
        self.pm2_5 = air.pm2_5
        self.pm10 = air.pm10
        self.o3 = air.o3
        self.no2 = air.no2
    }
}

/// `GET /v1/location`, and the `location` of a tag.
package struct LocationDocument: Codable, Sendable, Equatable {
    /// Null when privacy withholds the coordinates (a zone, or `stamp_coordinates: none`).
    package var latitude: Double?
    package var longitude: Double?
    /// Whole metres.
    package var accuracyM: Double?
    package var source: String
    package var name: String?
    package var takenAt: String

    enum CodingKeys: String, CodingKey {
        case latitude, longitude
        case accuracyM = "accuracy_m"
        case source, name
        case takenAt = "taken_at"
    }
}

/// Any answer that is not a 200.
package struct ErrorDocument: Codable, Sendable, Equatable {
    package var error: String
    package var status: Int

    package init(error: String, status: Int) {
        self.error = error
        self.status = status
    }
}

extension TagDocument {
    package init(_ tag: WeatherTag, now: Date) {
        let weather = tag.weather
        self.init(
            condition: weather.condition,
            description: weather.description,
            code: weather.code,
            icon: weather.icon,
            iconFile: tag.iconFile,
            temperature: weather.temperature,
            feelsLike: weather.feelsLike,
            humidity: weather.humidity,
            pressure: weather.pressure,
            windSpeed: weather.windSpeed,
            units: weather.units.rawValue,
            observedAt: weather.observedAt.iso8601,
            place: tag.place,
            region: tag.region,
            country: tag.country,
            air: tag.airQuality.map(AirDocument.init),
            location: LocationDocument(tag.position),
            stale: tag.stale,
            fetchedAt: tag.fetchedAt.iso8601,
            ageSeconds: max(0, now.timeIntervalSince(tag.fetchedAt)).rounded()
        )
        let offset = weather.utcOffset(at: weather.observedAt)
        let moon = MoonPhase(at: weather.observedAt)
        self.kind = tag.kind.rawValue
        self.weatherSource = weather.source
        self.windDeg = weather.windDegrees
        self.windDirection = weather.windDirection
        self.windGust = weather.windGust
        self.clouds = weather.clouds
        self.visibility = weather.visibility
        self.rain1h = weather.rain1h
        self.snow1h = weather.snow1h
        self.utcOffset = offset
        self.localTime = offset.map { weather.observedAt.iso8601(utcOffset: $0) }
        self.sunrise = weather.sunrise.map { $0.iso8601(utcOffset: weather.utcOffset(at: $0) ?? 0) }
        self.sunset = weather.sunset.map { $0.iso8601(utcOffset: weather.utcOffset(at: $0) ?? 0) }
        self.daylight = weather.daylight
        self.moonPhase = moon.name.rawValue
        self.moonIllumination = (moon.illumination * 100).rounded() / 100
    }
}

extension LocationDocument {
    package init(_ position: Position) {
        self.init(
            latitude: position.withheld ? nil : position.latitude,
            longitude: position.withheld ? nil : position.longitude,
            accuracyM: position.accuracyMeters.map { $0.rounded() },
            source: position.source,
            name: position.name,
            takenAt: position.takenAt.iso8601
        )
    }
}

extension WeatherTag {
    /// The tag a `/v1/tag` document describes (for `tag --format`, `status` and `stamp`).
    package init(_ document: TagDocument) throws(TagDocumentError) {
        guard let units = Units(rawValue: document.units) else { throw TagDocumentError(field: "units") }
        let location = document.location
        self.init(
            weather: Weather(
                condition: document.condition,
                description: document.description,
                code: document.code,
                icon: document.icon,
                temperature: document.temperature,
                feelsLike: document.feelsLike,
                humidity: document.humidity,
                pressure: document.pressure,
                windSpeed: document.windSpeed,
                units: units,
                observedAt: Date(iso8601: document.observedAt) ?? Date(timeIntervalSince1970: 0),
                place: document.place,
                sunrise: document.sunrise.flatMap(Date.init(iso8601WithOffset:)),
                sunset: document.sunset.flatMap(Date.init(iso8601WithOffset:)),
                utcOffset: document.utcOffset,
                windDegrees: document.windDeg,
                windGust: document.windGust,
                clouds: document.clouds,
                visibility: document.visibility,
                rain1h: document.rain1h,
                snow1h: document.snow1h,
                source: document.weatherSource
            ),
            position: Position(location),
            iconFile: document.iconFile,
            fetchedAt: Date(iso8601: document.fetchedAt) ?? Date(timeIntervalSince1970: 0),
            stale: document.stale,
            kind: document.kind.flatMap(WeatherTag.Kind.init(rawValue:)) ?? .current
        )
        self.region = document.region
        self.country = document.country
        self.airQuality = document.air.map {
            AirQuality(
                aqi: $0.aqi, scale: $0.scale.flatMap(AirQuality.Scale.init(rawValue:)) ?? .openWeather, pm2_5: $0.pm2_5,
                pm10: $0.pm10, o3: $0.o3, no2: $0.no2)
        }
    }
}

extension Position {
    /// The position a location document describes; without coordinates, a withheld one.
    package init(_ location: LocationDocument) {
        self.init(
            latitude: location.latitude ?? 0,
            longitude: location.longitude ?? 0,
            accuracyMeters: location.accuracyM,
            source: location.source,
            name: location.name,
            takenAt: Date(iso8601: location.takenAt) ?? Date(timeIntervalSince1970: 0)
        )
        self.withheld = location.latitude == nil || location.longitude == nil
    }
}

/// A tag document lacks a field or has it with the wrong type.
package struct TagDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    package var field: String
    package var description: String { "the daemon's answer has no valid \"\(self.field)\"" }
}
