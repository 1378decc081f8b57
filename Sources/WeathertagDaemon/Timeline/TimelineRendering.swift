import FoundationEssentials
import Glibc
import WeathertagCore

/// The timeline page of a diary's entries, as `weathertag timeline` writes it and the daemon keeps it
/// (`timeline.output`): the entries, earlier years' entries of the day it is made, the map of where they were
/// written, and the icons the daemon cached.
package enum TimelineRendering {
    /// What a page is made of besides its entries.
    package struct Settings: Sendable {
        package var title: String
        package var environment: [String: String]
        package var iconCache: String?
        package var map: MapFiles
        package var privacy: PrivacyPolicy
        /// The words of the page and the map (`timeline.lang`, else `weather.lang`).
        package var words: Messages

        package init(
            title: String, environment: [String: String], iconCache: String?, map: MapFiles, privacy: PrivacyPolicy,
            words: Messages = .english
        ) {
            (self.title, self.environment, self.iconCache) = (title, environment, iconCache)
            (self.map, self.privacy, self.words) = (map, privacy, words)
        }

        /// Dates and numbers in the words' language (`timeline.lang`: CLDR's `ko`, `zh_TW`), or the environment's
        /// locale where the words are English (`LC_TIME=en_GB.UTF-8` writes `5 Mar 2026`).
        var formatting: DiaryFormatting {
            let locale =
                self.words.isEnglish
                ? DiaryFormatting.locale(environment: self.environment) : DateLocale(identifier: self.words.language)
            return DiaryFormatting(locale: locale, words: self.words)
        }
    }

    /// The page written at `file` (crash-safely, `FileIO.writeAtomically`) as it is made, never held whole: the
    /// page of 50,000 entries is 68 MiB, and held whole, then copied to bytes, it took 227 MiB.
    package static func writePage(
        _ entries: [EntryDocument], onThisDay: [EntryDocument], settings: Settings, generatedAt: Date,
        file: String, inbox: String
    ) throws {
        try FileIO.writeAtomically(to: file) { write in
            try Self.page(
                entries, onThisDay: onThisDay, settings: settings, generatedAt: generatedAt, file: file, inbox: inbox,
                into: write)
        }
    }

    /// The page's HTML, its map's dots leading to the entries' cards, given to `write` in pieces. Written at `file`
    /// inside `inbox`, the cards show the entries' photos that are there (a photo is never a broken image);
    /// elsewhere, none.
    private static func page(
        _ entries: [EntryDocument], onThisDay: [EntryDocument], settings: Settings, generatedAt: Date,
        file: String, inbox: String, into write: (String) throws -> Void
    ) rethrows {
        let formatting = settings.formatting
        var page = TimelinePage(
            title: settings.title, formatting: formatting,
            icons: Self.icons(for: [entries, onThisDay].joined(), cache: settings.iconCache), generatedAt: generatedAt)
        page.photoBase = Paths.wayUp(from: file, to: inbox)
        var entries = entries
        var onThisDay = onThisDay
        if page.photoBase != nil {
            Self.keepPhotosFound(&entries, inbox: inbox)
            Self.keepPhotosFound(&onThisDay, inbox: inbox)
        }
        let map = MapRendering.svg(
            entries, files: settings.map, privacy: settings.privacy, formatting: formatting, links: .cards,
            standalone: false)
        try page.render(entries, onThisDay: onThisDay, map: map, into: write)
    }

    /// The map alone (`weathertag map`, `timeline.map_output`), its dots leading to the entries' files.
    package static func map(_ entries: [EntryDocument], settings: Settings, inbox: String, file: String) -> String {
        MapRendering.svg(
            entries, files: settings.map, privacy: settings.privacy, formatting: settings.formatting,
            links: .files(inbox: inbox, mapFile: file), standalone: true)
    }

    /// Each entry's photos that are files in the inbox.
    static func keepPhotosFound(_ entries: inout [EntryDocument], inbox: String) {
        for index in entries.indices {
            guard let photos = entries[index].photos else { continue }
            let found = photos.filter { photo in
                var status = stat()
                return stat(inbox + "/" + photo, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            }
            // Written only when one is missing: the first write copies the whole list (50,000 documents, 24 MB).
            guard found.count != photos.count else { continue }
            entries[index].photos = found.isEmpty ? nil : found
        }
    }

    /// The cached icons' PNGs by code, for the codes `entries` show (`cache`: `cache.directory`/icons).
    package static func icons(
        for entries: some Sequence<EntryDocument>, cache: String?
    ) -> [String: [UInt8]] {
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
