import FoundationEssentials

/// The weather of past hours from Open-Meteo (`history.source` `open-meteo`, no key): the ERA5 archive
/// (`/v1/archive`, about five days behind) for older days, the forecast API (`/v1/forecast` with `start_date` and
/// `end_date`) for the last days. Hours are fetched in bulk, a whole calendar year of a place per request (the
/// current year up to the archive's end), so a diary of ten years in three towns costs tens of requests. Pure:
/// planning, the request, and the answer into `Weather`; `HistoryService` performs them.
package enum OpenMeteoHistory {
    static let hourlyVariables = [
        "temperature_2m", "relative_humidity_2m", "apparent_temperature", "is_day", "weather_code", "cloud_cover",
        "pressure_msl", "wind_speed_10m", "wind_direction_10m", "wind_gusts_10m", "rain", "snowfall",
    ]
    static let dailyVariables = ["sunrise", "sunset"]

    /// Days the archive is taken to be behind today (ERA5 is about five; the margin keeps requests off its edge).
    package static let archiveLagDays = 7

    /// The archive's first day, 1940-01-01 (ERA5 starts there): an earlier `start_date` is refused with HTTP 400, and
    /// no hour before it can be had.
    package static let archiveStart = Date(timeIntervalSince1970: -946_771_200)

    /// Why an hour cannot be had from Open-Meteo at all; nil when it can (or may, once past).
    package static func unavailable(hour: Int) -> String? {
        guard Double(hour) * 3600 < Self.archiveStart.timeIntervalSince1970 else { return nil }
        return "Open-Meteo's archive begins on 1940-01-01; there is no weather of earlier hours to be had"
    }

    /// Open-Meteo's free limits per IP address, as they publish them: 600 calls a minute, 5,000 an hour, 10,000 a day,
    /// 300,000 a month.
    package static let freeLimits = CallLimits(perMinute: 600, perHour: 5000, perDay: 10_000, perMonth: 300_000)

    /// What one request counts as, the way Open-Meteo counts: max(variables / 10, 1) × max(days / 14, 1) ×
    /// locations (their examples: 15 variables over 14 days weigh 1.5; over 28 days, 3.0).
    package static func weight(variables: Int, days: Int, locations: Int = 1) -> Double {
        max(Double(variables) / 10, 1) * max(Double(days) / 14, 1) * Double(max(locations, 1))
    }

    /// Which of Open-Meteo's services answers a fetch.
    package enum Service: String, Sendable, Equatable {
        case archive, forecast
    }

    /// One request: a service and a span of days (`YYYY-MM-DD`, inclusive; the place's own days).
    package struct Fetch: HistoryFetch, Equatable {
        package var service: Service
        package var start: String
        package var end: String
        package var days: Int

        package init(service: Service, start: String, end: String, days: Int) {
            self.service = service
            self.start = start
            self.end = end
            self.days = days
        }

        /// What Open-Meteo counts it as.
        package var weight: Double {
            OpenMeteoHistory.weight(
                variables: OpenMeteoHistory.hourlyVariables.count + OpenMeteoHistory.dailyVariables.count,
                days: self.days)
        }

        package var description: String { "\(self.service) \(self.start)…\(self.end)" }
    }

    /// What to ask for so that `hour` (Unix time / 3600) is answered, given the spans of hours already kept for the
    /// place: the hour's calendar year (a day of margin each side, as the place's days need not be UTC's), up to
    /// the archive's end, from the archive, starting after what is already kept of that year; or the last days
    /// from the forecast API. Nil for an hour not yet past.
    package static func plan(hour: Int, now: Date, kept: [ClosedRange<Int>]) -> Fetch? {
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(secondsFromGMT: 0) else { return nil }
        calendar.timeZone = utc
        let moment = Date(timeIntervalSince1970: Double(hour) * 3600)
        guard moment <= now else { return nil }
        func days(_ count: Int, from date: Date) -> Date { date.addingTimeInterval(Double(count) * 86_400) }
        let today = calendar.startOfDay(for: now)
        let archiveEnd = days(-Self.archiveLagDays, from: today)
        if calendar.startOfDay(for: moment) > archiveEnd {
            return Self.fetch(.forecast, days(-1, from: archiveEnd), days(1, from: today), calendar)
        }
        guard let year = calendar.dateInterval(of: .year, for: moment) else { return nil }
        // A day of margin, but never before the archive's first day (it answers 400 there).
        var start = max(days(-1, from: year.start), Self.archiveStart)
        let end = min(year.end, archiveEnd)
        // Only what is not kept yet: after the last span kept that ends before this hour in this year.
        let startHour = Int(start.timeIntervalSince1970 / 3600)
        if let keptEnd = kept.map(\.upperBound).filter({ $0 < hour && $0 >= startHour }).max() {
            start = max(start, calendar.startOfDay(for: Date(timeIntervalSince1970: Double(keptEnd) * 3600 - 86_400)))
        }
        return Self.fetch(.archive, start, end, calendar)
    }

    /// The day around `hour` again (a day of margin each side), from the service that has it now: for a gap in a
    /// kept answer, asked again later. Nil for an hour not yet past.
    package static func planDay(hour: Int, now: Date) -> Fetch? {
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(secondsFromGMT: 0) else { return nil }
        calendar.timeZone = utc
        let moment = Date(timeIntervalSince1970: Double(hour) * 3600)
        guard moment <= now else { return nil }
        let day = calendar.startOfDay(for: moment)
        let archiveEnd = calendar.startOfDay(for: now).addingTimeInterval(Double(-Self.archiveLagDays) * 86_400)
        let start = max(day.addingTimeInterval(-86_400), Self.archiveStart)
        let end = day.addingTimeInterval(86_400)
        return Self.fetch(day > archiveEnd ? .forecast : .archive, start, end, calendar)
    }

    private static func fetch(_ service: Service, _ start: Date, _ end: Date, _ calendar: Calendar) -> Fetch {
        let days = (calendar.dateComponents([.day], from: start, to: end).day ?? 0) + 1
        return Fetch(
            service: service, start: Self.dayString(start, calendar), end: Self.dayString(end, calendar), days: days)
    }

    static func dayString(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(cFormat: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The request for `fetch` at `position`, in `units`' units (Kelvin is asked as °C). Times come as Unix
    /// seconds; the days are the place's own (`timezone=auto`).
    package static func url(
        _ fetch: Fetch, archiveURL: String, forecastURL: String, at position: RequestPosition, units: Units
    ) -> String {
        let base = fetch.service == .archive ? archiveURL : forecastURL
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        let path = fetch.service == .archive ? "/v1/archive" : "/v1/forecast"
        let query = [
            "latitude=" + String(cFormat: "%.5f", position.latitude),
            "longitude=" + String(cFormat: "%.5f", position.longitude),
            "start_date=\(fetch.start)", "end_date=\(fetch.end)",
            "hourly=" + Self.hourlyVariables.joined(separator: ","),
            "daily=" + Self.dailyVariables.joined(separator: ","), "timezone=auto", "timeformat=unixtime",
            "temperature_unit=" + (units == .imperial ? "fahrenheit" : "celsius"),
            "wind_speed_unit=" + (units == .imperial ? "mph" : "ms"), "precipitation_unit=mm",
        ]
        return trimmed + path + "?" + query.joined(separator: "&")
    }

    /// The hours of an answer, checked to be the documented shape and to hold at least one hour of weather. Read as
    /// it is parsed (`JSONPullReader`): each hour's values go straight into the kept floats, and no tree of the
    /// document is built.
    package static func decode(_ body: [UInt8]) throws(WeatherError) -> HourlySeries {
        guard let answer = Answer(body), let first = answer.times.first, let last = answer.times.last, first <= last,
            answer.columns[0]?.count == answer.times.count
        else {
            throw WeatherError(kind: .badResponse, message: "Open-Meteo's history is not the documented JSON shape")
        }
        guard let series = HourlySeries(answer), !series.isEmpty else {
            throw WeatherError(kind: .notFound, message: "Open-Meteo has no hours for this place and time")
        }
        return series
    }

    /// An answer as Open-Meteo spells it (one array per variable, `null` where it has none), read into what is
    /// kept: each known variable's values as floats (NaN for `null`), in `hourlyVariables`' order, its times as
    /// Unix seconds. Unknown members are skipped.
    struct Answer {
        var times: [Double] = []
        var columns: [[Float]?] = Array(repeating: nil, count: OpenMeteoHistory.hourlyVariables.count)
        var dayStarts: [Double] = []
        var sunrises: [Double?] = []
        var sunsets: [Double?] = []
        var utcOffset: Int?
        /// The place's zone (`timezone=auto`): its local times, hour by hour, come from its rules.
        var zone: String?
        var latitude: Double?
        var longitude: Double?

        /// At most a year and a margin of hours (and of days) per answer: more is not an answer to what is asked.
        static let maximumHours = 400 * 24

        init?(_ body: [UInt8]) {
            var reader = JSONPullReader(body)
            var times: [OpenMeteoTime] = []
            var days: [OpenMeteoTime] = []
            var rises: [OpenMeteoTime?] = []
            var sets: [OpenMeteoTime?] = []
            var columns = self.columns
            var offset: Int?
            var zone: String?
            var latitude: Double?
            var longitude: Double?
            do {
                try reader.object { (reader: inout JSONPullReader, key) throws(JSONPullReader.Malformed) in
                    switch key {
                    case "utc_offset_seconds":
                        offset = try reader.number().flatMap { abs($0) <= 86_400 ? Int($0) : nil }
                        if offset == nil { try reader.skip() }
                    case "timezone":
                        if reader.peek() == UInt8(ascii: "\"") { zone = try reader.string() } else { try reader.skip() }
                    case "latitude":
                        latitude = try reader.number()
                        if latitude == nil { try reader.skip() }
                    case "longitude":
                        longitude = try reader.number()
                        if longitude == nil { try reader.skip() }
                    case "hourly":
                        try Self.readHourly(&reader, times: &times, columns: &columns)
                    case "daily":
                        try reader.object { (reader: inout JSONPullReader, name) throws(JSONPullReader.Malformed) in
                            switch name {
                            case "time": days = try Self.timeList(&reader).compactMap { $0 }
                            case "sunrise": rises = try Self.timeList(&reader)
                            case "sunset": sets = try Self.timeList(&reader)
                            default: try reader.skip()
                            }
                        }
                    default:
                        try reader.skip()
                    }
                }
                guard reader.atEnd() else { return nil }
            } catch {
                return nil
            }
            self.utcOffset = offset
            self.zone = zone
            self.latitude = latitude
            self.longitude = longitude
            self.columns = columns
            self.times = times.map { $0.unix(offset: offset) }
            self.dayStarts = days.map { $0.unix(offset: offset) }
            self.sunrises = rises.map { $0?.unix(offset: offset) }
            self.sunsets = sets.map { $0?.unix(offset: offset) }
        }

        /// `hourly`: its times, and the values of each variable weathertag keeps (others are skipped).
        private static func readHourly(
            _ reader: inout JSONPullReader, times: inout [OpenMeteoTime], columns: inout [[Float]?]
        ) throws(JSONPullReader.Malformed) {
            try reader.object { (reader: inout JSONPullReader, name) throws(JSONPullReader.Malformed) in
                if name == "time" {
                    times = try Self.timeList(&reader).map { (time) throws(JSONPullReader.Malformed) in
                        guard let time else { throw JSONPullReader.Malformed() }
                        return time
                    }
                    return
                }
                guard let variable = OpenMeteoHistory.hourlyVariables.firstIndex(of: name) else {
                    try reader.skip()
                    return
                }
                columns[variable] = try Self.values(&reader)
            }
        }

        /// One variable's hours: NaN where a value is null or of another type (that value is unknown, not the whole
        /// answer wrong).
        private static func values(_ reader: inout JSONPullReader) throws(JSONPullReader.Malformed) -> [Float] {
            var values: [Float] = []
            try reader.array { (reader: inout JSONPullReader) throws(JSONPullReader.Malformed) in
                guard values.count < Self.maximumHours else { throw JSONPullReader.Malformed() }
                if try reader.null() {
                    values.append(.nan)
                } else if let value = try reader.number() {
                    values.append(Float(value))
                } else {
                    try reader.skip()
                    values.append(.nan)
                }
            }
            return values
        }

        /// A list of times: Unix seconds, or local ISO 8601 without an offset; null where there is none.
        private static func timeList(
            _ reader: inout JSONPullReader
        ) throws(JSONPullReader.Malformed) -> [OpenMeteoTime?] {
            var list: [OpenMeteoTime?] = []
            try reader.array { (reader: inout JSONPullReader) throws(JSONPullReader.Malformed) in
                guard list.count < Self.maximumHours else { throw JSONPullReader.Malformed() }
                if try reader.null() {
                    list.append(nil)
                } else if let seconds = try reader.number() {
                    guard let time = OpenMeteoTime(unix: seconds) else { throw JSONPullReader.Malformed() }
                    list.append(time)
                } else {
                    guard let local = OpenMeteoTime(local: try reader.string()) else {
                        throw JSONPullReader.Malformed()
                    }
                    list.append(local)
                }
            }
            return list
        }
    }
}

/// A place's hours as kept: every variable of `OpenMeteoHistory.hourlyVariables` as 32-bit floats (NaN where
/// Open-Meteo had none), hour by hour from `start`, and each day's sunrise and sunset. A year is about 420 KB, read
/// back with a copy, so an entry costs no JSON parsing however its diary's places and years interleave.
package struct HourlySeries: HistoryHours, Equatable {
    /// The first hour (Unix time / 3600).
    package private(set) var start: Int
    package private(set) var count: Int
    package private(set) var utcOffset: Int?
    /// The place's zone, as the answer named it.
    package private(set) var zone: String?
    /// The answer's grid point: where the sun is asked whether it is day, for an hour without `is_day`.
    package private(set) var latitude: Double?
    package private(set) var longitude: Double?
    /// `variables × count` values, variable by variable.
    private var values: [Float]
    /// Each day's start, sunrise and sunset (Unix seconds; 0 for none).
    private var days: [(start: Int64, sunrise: Int64, sunset: Int64)]

    static let variables = OpenMeteoHistory.hourlyVariables.count
    static let magic: [UInt8] = Array("WTH2".utf8)
    /// Kept before the zone and grid point were: still read (their local times take the one offset).
    static let previousMagic: [UInt8] = Array("WTH1".utf8)

    init?(_ answer: OpenMeteoHistory.Answer) {
        let times = answer.times
        guard let first = times.first, let last = times.last else { return nil }
        self.start = Int((first / 3600).rounded(.down))
        self.count = Int((last / 3600).rounded(.down)) - self.start + 1
        guard self.count > 0, self.count <= 400 * 24 else { return nil }
        self.utcOffset = answer.utcOffset
        self.zone = answer.zone.flatMap { Zone.named($0) == nil ? nil : $0 }
        self.latitude = answer.latitude
        self.longitude = answer.longitude
        self.values = [Float](repeating: .nan, count: Self.variables * self.count)
        for (variable, series) in answer.columns.enumerated() {
            guard let series else { continue }
            // Placed by their time, not their index: a gap or a repeated hour cannot shift the rest.
            for (index, time) in times.enumerated() where index < series.count {
                let value = series[index]
                guard value.isFinite else { continue }
                let hour = Int((time / 3600).rounded(.down)) - self.start
                guard hour >= 0, hour < self.count else { continue }
                self.values[variable * self.count + hour] = value
            }
        }
        self.days = answer.dayStarts.enumerated().map { index, start in
            func at(_ series: [Double?]) -> Int64 {
                guard index < series.count, let value = series[index], value.isFinite else { return 0 }
                return Int64(value)
            }
            return (Int64(start), at(answer.sunrises), at(answer.sunsets))
        }
        // Only the hours with a temperature count: the archive's last days may still be empty.
        let temperatures = self.values[0..<self.count]
        guard let firstKnown = temperatures.firstIndex(where: { !$0.isNaN }),
            let lastKnown = temperatures.lastIndex(where: { !$0.isNaN })
        else {
            self.count = 0
            return
        }
        self.trim(to: firstKnown...lastKnown)
    }

    private mutating func trim(to kept: ClosedRange<Int>) {
        guard kept != 0...(self.count - 1) else { return }
        var trimmed: [Float] = []
        trimmed.reserveCapacity(Self.variables * kept.count)
        for variable in 0..<Self.variables {
            trimmed +=
                self.values[(variable * self.count + kept.lowerBound)...(variable * self.count + kept.upperBound)]
        }
        self.values = trimmed
        self.start += kept.lowerBound
        self.count = kept.count
    }

    package var isEmpty: Bool { self.count == 0 }

    /// The hours it holds weather for (Unix time / 3600).
    package var span: ClosedRange<Int> { self.start...(self.start + max(self.count, 1) - 1) }

    /// The same series ending at `hour` at the latest (the forecast API's hours after now are not history).
    package func ending(at hour: Int) -> HourlySeries? {
        guard hour >= self.start else { return nil }
        guard hour < self.start + self.count - 1 else { return self }
        var copy = self
        copy.trim(to: 0...(hour - self.start))
        return copy
    }

    private func value(_ variable: Int, _ index: Int) -> Double? {
        let value = self.values[variable * self.count + index]
        return value.isNaN ? nil : Double(value)
    }

    /// The weather of `hour`, or nil when it has none for that hour.
    package func weather(hour: Int, units: Units, lang: String) -> Weather? {
        let index = hour - self.start
        guard index >= 0, index < self.count, let temperature = self.value(0, index),
            let code = self.value(4, index).flatMap({ Int(exactly: $0).flatMap(WMOWeatherCode.init) })
        else { return nil }
        let time = Int64(hour) * 3600
        let answered = OpenMeteoAPI.temperatureUnits(asking: units)
        let day = self.days.last { $0.start <= time }
        func date(_ seconds: Int64?) -> Date? {
            seconds.flatMap { $0 > 0 ? Date(timeIntervalSince1970: Double($0)) : nil }
        }
        func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
        func rounded(_ value: Double?) -> Double? { value.map(rounded) }
        return Weather(
            condition: code.condition,
            description: code.description(in: lang),
            code: code.openWeatherID,
            // Without `is_day`, the sun at the answer's grid point (else day, as before there was one).
            icon: code.icon(
                isDay: self.value(3, index).map { $0 != 0 }
                    ?? self.latitude.flatMap { latitude in
                        self.longitude.map {
                            Sun.isUp(latitude: latitude, longitude: $0, at: Date(timeIntervalSince1970: Double(time)))
                        }
                    } ?? true),
            temperature: rounded(units.temperature(temperature, from: answered)) as Double,
            feelsLike: rounded(self.value(2, index).map { units.temperature($0, from: answered) }),
            humidity: self.value(1, index).flatMap(\.roundedInt),
            pressure: self.value(6, index).flatMap(\.roundedInt),
            windSpeed: rounded(self.value(7, index)),
            units: units,
            observedAt: Date(timeIntervalSince1970: Double(time)),
            sunrise: date(day?.sunrise),
            sunset: date(day?.sunset),
            utcOffset: self.utcOffset,
            windDegrees: self.value(8, index).flatMap(\.roundedInt),
            windGust: rounded(self.value(9, index)),
            clouds: self.value(5, index).flatMap(\.roundedInt),
            // The hour's rain and snow (snowfall comes in cm), only when it rained or snowed.
            rain1h: rounded(self.value(10, index)).flatMap { $0 > 0 ? $0 : nil },
            snow1h: rounded(self.value(11, index)).flatMap { $0 > 0 ? $0 * 10 : nil },
            zone: self.zone
        )
    }

    package static func == (lhs: HourlySeries, rhs: HourlySeries) -> Bool {
        lhs.encoded == rhs.encoded
    }

    // MARK: Kept as bytes

    /// `WTH2`, then little-endian: start, count, UTC offset (Int64 each; the offset Int64.min for none), the zone's
    /// name (its length, then its bytes), latitude and longitude (Float64 bit patterns; NaN for none), the day
    /// count, each day's start, sunrise and sunset, then the values. (`WTH1`: no zone, no grid point.)
    package var encoded: [UInt8] {
        var bytes = Self.magic
        func append(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        append(Int64(self.start))
        append(Int64(self.count))
        append(self.utcOffset.map(Int64.init) ?? .min)
        let zone = Array((self.zone ?? "").utf8)
        append(Int64(zone.count))
        bytes += zone
        append(Int64(bitPattern: (self.latitude ?? .nan).bitPattern))
        append(Int64(bitPattern: (self.longitude ?? .nan).bitPattern))
        append(Int64(self.days.count))
        for day in self.days {
            append(day.start)
            append(day.sunrise)
            append(day.sunset)
        }
        bytes.reserveCapacity(bytes.count + self.values.count * 4)
        for value in self.values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    package init?(encoded bytes: [UInt8]) {
        let current = bytes.starts(with: Self.magic)
        guard current || bytes.starts(with: Self.previousMagic) else { return nil }
        var offset = Self.magic.count
        func int64() -> Int64? {
            guard offset + 8 <= bytes.count else { return nil }
            defer { offset += 8 }
            return bytes[offset..<(offset + 8)].withUnsafeBytes {
                Int64(littleEndian: $0.loadUnaligned(as: Int64.self))
            }
        }
        guard let start = int64(), let count = int64(), let utcOffset = int64() else { return nil }
        var zone: String?
        var latitude: Double?
        var longitude: Double?
        if current {
            guard let length = int64(), length >= 0, length <= 64, offset + Int(length) <= bytes.count else {
                return nil
            }
            let name = String(decoding: bytes[offset..<(offset + Int(length))], as: UTF8.self)
            offset += Int(length)
            zone = name.isEmpty ? nil : name
            guard let north = int64(), let east = int64() else { return nil }
            let (lat, lon) = (
                Double(bitPattern: UInt64(bitPattern: north)), Double(bitPattern: UInt64(bitPattern: east))
            )
            (latitude, longitude) = (lat.isNaN ? nil : lat, lon.isNaN ? nil : lon)
        }
        guard let dayCount = int64(), count >= 0, count <= 400 * 24, dayCount >= 0, dayCount <= 400 else {
            return nil
        }
        var days: [(start: Int64, sunrise: Int64, sunset: Int64)] = []
        for _ in 0..<dayCount {
            guard let start = int64(), let sunrise = int64(), let sunset = int64() else { return nil }
            days.append((start, sunrise, sunset))
        }
        let total = Self.variables * Int(count)
        guard bytes.count - offset == total * 4 else { return nil }
        self.values = bytes[offset...].withUnsafeBytes { raw in
            (0..<total).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
        self.start = Int(start)
        self.count = Int(count)
        self.utcOffset = utcOffset == .min ? nil : Int(utcOffset)
        (self.zone, self.latitude, self.longitude) = (zone, latitude, longitude)
        self.days = days
    }
}
