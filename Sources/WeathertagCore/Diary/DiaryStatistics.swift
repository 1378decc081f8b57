import FoundationEssentials

/// The weather of a life: what `weathertag stats` and the timeline page's charts say about the entries given. Pure:
/// counted from the entries' documents, as the index holds them.
///
/// - Temperatures are in the units most of the entries' blocks use (`°C` when as many are metric); others are
///   converted.
/// - A day is rainy when an entry of that day (the machine's clock, as `time` gives it) has rain, drizzle or a
///   thunderstorm; the share is of the days that have entries with weather.
/// - Moods are the front matter's `mood` (`DiaryMood`); their means are over the entries that have one.
package struct DiaryStatistics: Sendable, Equatable {
    package enum Grouping: String, Sendable, CaseIterable {
        case year, month, condition, place
    }

    /// A count and a mean: how many entries, and the mean of a value over those that have it.
    package struct Tally: Sendable, Equatable {
        package var key: String
        package var entries: Int
        package var mean: Double?
        /// How many of them the mean is over.
        package var measured: Int
    }

    /// An entry named by its date, title and place, with its temperature.
    package struct Extreme: Sendable, Equatable {
        package var path: String
        package var time: String
        package var title: String
        package var place: String?
        package var temperature: Double
    }

    /// One group of `--by`: its entries, those with weather, their mean temperature, rainy days, mean mood.
    package struct Group: Sendable, Equatable {
        package var key: String
        package var entries: Int
        package var withWeather: Int
        package var meanTemperature: Double?
        package var rainyDays: Int
        package var days: Int
        package var meanMood: Double?
    }

    package var entries: Int
    package var withWeather: Int
    package var first: String?
    package var last: String?
    package var units: Units
    /// Entries per condition group, most first.
    package var conditions: [Tally]
    package var rainyDays: Int
    /// Days that have an entry with weather.
    package var days: Int
    package var warmest: Extreme?
    package var coldest: Extreme?
    /// The mean temperature of each calendar month (`01` … `12`) over every year, months without entries left out.
    package var temperatureByMonth: [Tally]
    package var moods: Int
    package var moodByCondition: [Tally]
    /// Mood by temperature band (`below 0°C`, `0–10°C`, … `30°C and above`).
    package var moodByTemperature: [Tally]
    package var groups: [Group]

    /// The condition groups whose days count as rainy.
    package static let rainy: Set<String> = ["rain", "drizzle", "thunderstorm"]

    package init(_ documents: [EntryDocument], by grouping: Grouping? = nil) {
        let units = Self.units(of: documents)
        self.units = units
        let chronological = documents.sorted { $0.time < $1.time }
        self.entries = documents.count
        self.first = chronological.first.map { String($0.time.prefix(10)) }
        self.last = chronological.last.map { String($0.time.prefix(10)) }
        let weathered = documents.filter { $0.weather?.condition != nil || $0.weather?.temperature != nil }
        self.withWeather = weathered.count
        let temperature = { (entry: EntryDocument) in Self.temperature(entry, in: units) }

        var byCondition: [String: Int] = [:]
        for entry in documents {
            if let condition = entry.weather?.condition, !condition.isEmpty { byCondition[condition, default: 0] += 1 }
        }
        self.conditions = byCondition.map { Tally(key: $0.key, entries: $0.value, mean: nil, measured: 0) }
            .sorted { ($0.entries, $1.key) > ($1.entries, $0.key) }

        (self.rainyDays, self.days) = Self.rainyDays(weathered)

        let measured = chronological.compactMap { entry in temperature(entry).map { (entry, $0) } }
        func extreme(_ pair: (EntryDocument, Double)?) -> Extreme? {
            pair.map { entry, value in
                Extreme(
                    path: entry.path, time: entry.time, title: entry.title, place: entry.weather?.place,
                    temperature: value)
            }
        }
        // The first of equals: the earliest entry.
        self.warmest = extreme(measured.reduce(nil) { best, next in best.map { $0.1 >= next.1 ? $0 : next } ?? next })
        self.coldest = extreme(measured.reduce(nil) { best, next in best.map { $0.1 <= next.1 ? $0 : next } ?? next })

        var months: [String: [Double]] = [:]
        for (entry, value) in measured { months[String(entry.time.dropFirst(5).prefix(2)), default: []].append(value) }
        self.temperatureByMonth = months.keys.sorted().map { key in
            Tally(
                key: key, entries: months[key]?.count ?? 0, mean: Self.mean(months[key] ?? []),
                measured: months[key]?.count ?? 0)
        }

        let moody = documents.filter { $0.mood != nil }
        self.moods = moody.count
        (self.moodByCondition, self.moodByTemperature) = Self.moodTallies(moody, units: units)
        self.groups = grouping.map { Self.groups(documents, by: $0, units: units) } ?? []
    }

    /// An entry's temperature in `units`; nil without one.
    private static func temperature(_ entry: EntryDocument, in units: Units) -> Double? {
        guard let value = entry.weather?.temperature, value.isFinite else { return nil }
        return Self.convert(value, from: entry.weather?.units.flatMap(Units.init(rawValue:)) ?? .metric, to: units)
    }

    /// Mood by condition, the most entries first, and by temperature band, the coldest first.
    private static func moodTallies(_ moody: [EntryDocument], units: Units) -> (byCondition: [Tally], byBand: [Tally]) {
        var moodByCondition: [String: [Double]] = [:]
        var moodByBand: [Int: [Double]] = [:]
        for entry in moody {
            guard let mood = entry.mood else { continue }
            if let condition = entry.weather?.condition, !condition.isEmpty {
                moodByCondition[condition, default: []].append(mood)
            }
            if let value = Self.temperature(entry, in: units) {
                moodByBand[Self.band(Self.convert(value, from: units, to: .metric)), default: []].append(mood)
            }
        }
        let byCondition = moodByCondition.map { key, values in
            Tally(key: key, entries: values.count, mean: Self.mean(values), measured: values.count)
        }.sorted { ($0.entries, $1.key) > ($1.entries, $0.key) }
        let byBand = moodByBand.keys.sorted().map { band in
            let values = moodByBand[band] ?? []
            return Tally(
                key: Self.bandName(band), entries: values.count, mean: Self.mean(values), measured: values.count)
        }
        return (byCondition, byBand)
    }

    /// A line per year, month, condition or place, in the order of their keys.
    private static func groups(_ documents: [EntryDocument], by grouping: Grouping, units: Units) -> [Group] {
        var grouped: [String: [EntryDocument]] = [:]
        for entry in documents {
            let key: String
            switch grouping {
            case .year: key = String(entry.time.prefix(4))
            case .month: key = String(entry.time.prefix(7))
            case .condition: key = entry.weather?.condition.flatMap { $0.isEmpty ? nil : $0 } ?? "(no weather)"
            case .place: key = entry.weather?.place.flatMap { $0.isEmpty ? nil : $0 } ?? "(no place)"
            }
            grouped[key, default: []].append(entry)
        }
        return grouped.keys.sorted().map { key in
            let members = grouped[key] ?? []
            let weatheredMembers = members.filter { $0.weather?.condition != nil || $0.weather?.temperature != nil }
            let (rainy, days) = Self.rainyDays(weatheredMembers)
            return Group(
                key: key, entries: members.count, withWeather: weatheredMembers.count,
                meanTemperature: Self.mean(members.compactMap { Self.temperature($0, in: units) }), rainyDays: rainy,
                days: days, meanMood: Self.mean(members.compactMap(\.mood)))
        }
    }

    /// The share of days with entries that were rainy, 0 … 1; nil without days.
    package var rainyShare: Double? { self.days == 0 ? nil : Double(self.rainyDays) / Double(self.days) }

    static func rainyDays(_ entries: [EntryDocument]) -> (rainy: Int, days: Int) {
        var days: [String: Bool] = [:]
        for entry in entries {
            let day = String(entry.time.prefix(10))
            let rainy = entry.weather?.condition.map { Self.rainy.contains($0.lowercased()) } ?? false
            days[day] = (days[day] ?? false) || rainy
        }
        return (days.values.filter { $0 }.count, days.count)
    }

    static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// The units most blocks with a temperature use; metric on a tie.
    static func units(of documents: [EntryDocument]) -> Units {
        var counts: [Units: Int] = [:]
        for entry in documents where entry.weather?.temperature != nil {
            counts[entry.weather?.units.flatMap(Units.init(rawValue:)) ?? .metric, default: 0] += 1
        }
        return counts.max { ($0.value, $0.key == .metric ? 1 : 0) < ($1.value, $1.key == .metric ? 1 : 0) }?.key
            ?? .metric
    }

    static func convert(_ value: Double, from: Units, to: Units) -> Double {
        to.temperature(value, from: from)
    }

    /// Ten-degree bands of °C: below 0, 0–10, 10–20, 20–30, 30 and above.
    static func band(_ celsius: Double) -> Int { max(-1, min(3, Int((celsius / 10).rounded(.down)))) }

    /// A band's key as a reader says it: `below 0°C` and `30°C and above` in their words, the others as they are.
    package static func bandLabel(_ key: String, _ words: Messages) -> String {
        switch key {
        case Self.bandName(-1): return words.tr("below {temperature}", ["temperature": "0°C"])
        case Self.bandName(3): return words.tr("{temperature} and above", ["temperature": "30°C"])
        default: return key
        }
    }

    static func bandName(_ band: Int) -> String {
        switch band {
        case -1: return "below 0°C"
        case 3: return "30°C and above"
        default: return "\(band * 10)–\(band * 10 + 10)°C"
        }
    }
}

extension DiaryStatistics {
    /// `weathertag stats --json`.
    package var json: JSONValue {
        func number(_ value: Double?) -> JSONValue {
            value.map { .number(($0 * 100).rounded() / 100) } ?? .null
        }
        func tallies(_ tallies: [Tally], mean: String?) -> JSONValue {
            .array(
                tallies.map { tally in
                    var members: [(key: String, value: JSONValue)] = [
                        ("key", .string(tally.key)), ("entries", .number(Double(tally.entries))),
                    ]
                    if let mean { members.append((mean, number(tally.mean))) }
                    return .object(members)
                })
        }
        func extreme(_ extreme: Extreme?) -> JSONValue {
            guard let extreme else { return .null }
            return .object([
                ("path", .string(extreme.path)), ("time", .string(extreme.time)), ("title", .string(extreme.title)),
                ("place", extreme.place.map(JSONValue.string) ?? .null), ("temperature", number(extreme.temperature)),
            ])
        }
        return .object([
            ("entries", .number(Double(self.entries))), ("with_weather", .number(Double(self.withWeather))),
            ("first", self.first.map(JSONValue.string) ?? .null), ("last", self.last.map(JSONValue.string) ?? .null),
            ("units", .string(self.units.rawValue)),
            ("conditions", tallies(self.conditions, mean: nil)),
            ("rainy_days", .number(Double(self.rainyDays))), ("days", .number(Double(self.days))),
            ("rainy_share", number(self.rainyShare)),
            ("warmest", extreme(self.warmest)), ("coldest", extreme(self.coldest)),
            ("temperature_by_month", tallies(self.temperatureByMonth, mean: "mean_temperature")),
            ("moods", .number(Double(self.moods))),
            ("mood_by_condition", tallies(self.moodByCondition, mean: "mean_mood")),
            ("mood_by_temperature", tallies(self.moodByTemperature, mean: "mean_mood")),
            (
                "groups",
                .array(
                    self.groups.map { group in
                        .object([
                            ("key", .string(group.key)), ("entries", .number(Double(group.entries))),
                            ("with_weather", .number(Double(group.withWeather))),
                            ("mean_temperature", number(group.meanTemperature)),
                            ("rainy_days", .number(Double(group.rainyDays))), ("days", .number(Double(group.days))),
                            ("mean_mood", number(group.meanMood)),
                        ])
                    })
            ),
        ])
    }

    /// The text `weathertag stats` prints, in the reader's language.
    package var text: String { self.text(.english) }

    /// The text `weathertag stats` prints, in `words`' language, its months and numbers as `locale` writes them.
    package func text(_ words: Messages, locale: DateLocale = .english) -> String {
        let calendar = locale.words
        func degrees(_ value: Double?) -> String {
            value.map { calendar.temperature($0, units: self.units.rawValue, decimals: 1) } ?? "–"
        }
        func percent(_ part: Int, _ whole: Int) -> String {
            whole == 0 ? "–" : "\(Int((100 * Double(part) / Double(whole)).rounded()))%"
        }
        guard self.entries > 0 else { return words.tr("No entries.") + "\n" }
        var lines = [
            words.tr(
                "{count} entry, {first} – {last}; {weather} with weather",
                plural: "{count} entries, {first} – {last}; {weather} with weather", count: self.entries,
                ["first": self.first ?? "", "last": self.last ?? "", "weather": String(self.withWeather)])
        ]
        let comma = words.tr(", ", context: "list")
        if !self.conditions.isEmpty {
            let each = self.conditions.map {
                "\(words.condition($0.key)) \($0.entries) (\(percent($0.entries, self.withWeather)))"
            }
            lines.append(words.tr("Conditions: {conditions}", ["conditions": each.joined(separator: comma)]))
        }
        if self.days > 0 {
            lines.append(
                words.tr(
                    "Rainy days: {share} ({rainy} of {count} day with entries)",
                    plural: "Rainy days: {share} ({rainy} of {count} days with entries)", count: self.days,
                    ["share": percent(self.rainyDays, self.days), "rainy": String(self.rainyDays)]))
        }
        for (warmest, extreme) in [(true, self.warmest), (false, self.coldest)] {
            guard let extreme else { continue }
            let said =
                "\(degrees(extreme.temperature)), \(extreme.time.prefix(10)) \"\(extreme.title)\""
                + (extreme.place.map { " (\($0))" } ?? "")
            lines.append(
                warmest
                    ? words.tr("Warmest: {extreme}", ["extreme": said])
                    : words.tr("Coldest: {extreme}", ["extreme": said]))
        }
        if !self.temperatureByMonth.isEmpty {
            let months = self.temperatureByMonth.map { tally in
                "\(Int(tally.key).map { locale.monthName(max(1, min(12, $0))) } ?? tally.key) \(degrees(tally.mean))"
            }
            lines.append(words.tr("Temperature by month: {months}", ["months": words.list(months)]))
        }
        if self.moods > 0 {
            func moods(_ tallies: [Tally], conditions: Bool) -> String {
                words.list(
                    tallies.map {
                        let key = conditions ? words.condition($0.key) : Self.bandLabel($0.key, words)
                        return "\(key) \($0.mean.map { calendar.number($0, decimals: 1) } ?? "–") (\($0.entries))"
                    })
            }
            lines.append(
                words.tr(
                    "Mood ({count} entry) by condition: {moods}",
                    plural: "Mood ({count} entries) by condition: {moods}",
                    count: self.moods, ["moods": moods(self.moodByCondition, conditions: true)]))
            lines.append(
                words.tr(
                    "Mood by temperature: {moods}", ["moods": moods(self.moodByTemperature, conditions: false)]))
        }
        for group in self.groups {
            let mood =
                group.meanMood.map { "  " + words.tr("mood {mood}", ["mood": calendar.number($0, decimals: 1)]) } ?? ""
            lines.append(
                "  \(group.key)  "
                    + words.tr(
                        "{count} entry  {temperature}  rainy {share}",
                        plural: "{count} entries  {temperature}  rainy {share}",
                        count: group.entries,
                        ["temperature": degrees(group.meanTemperature), "share": percent(group.rainyDays, group.days)])
                    + mood)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
