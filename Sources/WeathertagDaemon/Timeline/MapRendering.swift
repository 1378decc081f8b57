import FoundationEssentials
import WeathertagCore

/// The map of where you wrote, as `weathertag map`, `weathertag timeline` and the daemon (`timeline.output`,
/// `timeline.map_output`) draw it: the shipped shorelines and towns read from their files (`MapFiles`), the entries'
/// places as `privacy` lets them be shown, drawn by `DiaryMap`.
///
/// The files are read for each map and let go after it (about 7 MB, a few tens of milliseconds, at most once a
/// minute): the daemon holds nothing of them between pages. A file that is missing or does not read gives a map
/// without land or town names, never no map.
package enum MapRendering {
    /// Where a dot leads: the entry's card on the page, or its file beside a map written alone.
    package enum Links: Sendable {
        case cards
        case files(inbox: String, mapFile: String)
    }

    /// The map's SVG (`standalone`: a file of its own).
    package static func svg(
        _ entries: [EntryDocument], files: MapFiles, privacy: PrivacyPolicy, formatting: DiaryFormatting, links: Links,
        standalone: Bool
    ) -> String {
        let drawn = entries.compactMap { document in
            let link: String
            switch links {
            case .cards: link = "#" + TimelinePage.anchor(document.path)
            case .files(let inbox, let mapFile): link = DiaryMap.fileLink(document.path, inbox: inbox, mapFile: mapFile)
            }
            return DiaryMap.Entry(document, privacy: privacy, formatting: formatting, link: link)
        }
        return DiaryMap(words: formatting.words).render(
            drawn, data: Self.shorelines(files.coastlines), towns: Self.towns(files.towns), standalone: standalone)
    }

    static func shorelines(_ path: String?) -> WorldMapData? {
        guard let path, let bytes = FileManager.default.contents(atPath: path) else { return nil }
        return try? WorldMapData([UInt8](bytes))
    }

    /// The towns of the offline towns index (GeoNames' `cities15000.txt`), by name, place and population.
    static func towns(_ path: String?) -> [DiaryMap.Town] {
        guard let path, let data = FileManager.default.contents(atPath: path) else { return [] }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            GeoNamesRecord(line: line).map { record in
                DiaryMap.Town(
                    name: record.name, point: GeoPoint(latitude: record.latitude, longitude: record.longitude),
                    population: record.population)
            }
        }
    }
}
