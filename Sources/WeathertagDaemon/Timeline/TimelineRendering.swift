import FoundationEssentials
import WeathertagCore

/// The timeline page of a diary's entries, as `weathertag timeline` writes it and the daemon keeps it
/// (`timeline.output`): the entries, earlier years' entries of the day it is made, and the icons the daemon cached.
package enum TimelineRendering {
    /// The page's HTML.
    package static func page(
        _ entries: [EntryDocument], onThisDay: [EntryDocument], title: String, environment: [String: String],
        iconCache: String?, generatedAt: Date
    ) -> String {
        let page = TimelinePage(
            title: title,
            formatting: DiaryFormatting(locale: DiaryFormatting.locale(environment: environment)),
            icons: Self.icons(for: entries + onThisDay, cache: iconCache),
            generatedAt: generatedAt)
        return page.render(entries, onThisDay: onThisDay)
    }

    /// The cached icons' PNGs by code, for the codes `entries` show (`cache`: `cache.directory`/icons).
    package static func icons(for entries: [EntryDocument], cache: String?) -> [String: [UInt8]] {
        guard let cache else { return [:] }
        var icons: [String: [UInt8]] = [:]
        for code in Set(entries.compactMap { $0.weather?.icon }) where code.allSatisfy({ $0.isLetter || $0.isNumber }) {
            if let data = FileManager.default.contents(atPath: "\(cache)/\(code)@2x.png") {
                icons[code] = [UInt8](data)
            }
        }
        return icons
    }

    /// The query of earlier years' entries of `day`'s month and day ("On this day"), at most 20.
    package static func onThisDay(_ day: Date) -> EntryQuery {
        var earlier = EntryQuery(limit: 20)
        earlier.restrict(toEarlierYearsOf: day, zone: .current)
        return earlier
    }
}

extension DiaryIndex {
    /// Every entry `query` matches, page after page (at most `limit` when given).
    package func all(_ query: EntryQuery, limit: Int? = nil) async throws -> [EntryDocument] {
        try await query.all(limit: limit) { try await self.list($0) }
    }
}
