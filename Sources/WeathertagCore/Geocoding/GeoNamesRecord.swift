/// One line of a GeoNames cities file (`cities500.txt` … `cities15000.txt`: UTF-8, tab-separated, 19 columns:
/// geonameid, name, asciiname, alternatenames, latitude, longitude, feature class, feature code, country code,
/// cc2, admin1 code, admin2, admin3, admin4, population, elevation, dem, timezone, modification date). Pure.
package struct GeoNamesRecord: Sendable, Equatable {
    package var id: Int
    package var name: String
    package var latitude: Double
    package var longitude: Double
    package var country: String
    package var admin1: String
    package var population: Int
    /// The place's zone in the tz database (`Europe/Zurich`); nil when the line has none.
    package var zone: String?

    /// The record of a line, or nil for one that is not a populated place's (too few columns, no valid
    /// coordinates).
    package init?(line: Substring) {
        let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard columns.count >= 15, let id = Int(columns[0]), !columns[1].isEmpty,
            let latitude = Double(columns[4]), let longitude = Double(columns[5]),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        self.id = id
        self.name = String(columns[1])
        self.latitude = latitude
        self.longitude = longitude
        self.country = String(columns[8])
        self.admin1 = String(columns[10])
        self.population = Int(columns[14]) ?? 0
        self.zone = columns.count > 17 && !columns[17].isEmpty ? String(columns[17]) : nil
    }

    /// `KR.11<TAB>Seoul<TAB>Seoul<TAB>1835847` (`admin1CodesASCII.txt`): the region code and its name.
    package static func region(line: Substring) -> (code: String, name: String)? {
        let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard columns.count >= 2, !columns[0].isEmpty, !columns[1].isEmpty else { return nil }
        return (String(columns[0]), String(columns[1]))
    }

    /// A town's name in a language (`alternateNamesV2.txt`: alternateNameId, geonameid, isolanguage, alternate name,
    /// isPreferredName, isShortName, isColloquial, isHistoric, from, to). Nil for a line that is not a name in a
    /// language (GeoNames keeps postal codes, links, airport codes and Wikidata ids in the same file, their
    /// "language" a longer word: `post`, `link`, `iata`) or a name that is colloquial or historic (`Bombay`).
    package static func localName(line: Substring) -> LocalName? {
        let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard columns.count >= 4, let id = Int(columns[1]), !columns[3].isEmpty,
            (2...3).contains(columns[2].utf8.count), columns[2].utf8.allSatisfy({ (97...122).contains($0) })
        else { return nil }
        func flag(_ index: Int) -> Bool { columns.count > index && columns[index] == "1" }
        guard !flag(6), !flag(7) else { return nil }
        return LocalName(
            id: id, language: String(columns[2]), name: String(columns[3]),
            rank: (flag(5) ? 2 : 0) + (flag(4) ? 1 : 0))
    }

    /// A town's name in one language, and how well it names the town for a stamp: a short name (`Seoul`, not
    /// `Seoul Special City`) before a preferred one, before any other.
    package struct LocalName: Sendable, Equatable {
        package var id: Int
        package var language: String
        package var name: String
        package var rank: Int

        package init(id: Int, language: String, name: String, rank: Int) {
            self.id = id
            self.language = language
            self.name = name
            self.rank = rank
        }
    }

    /// The files weathertag reads, the most complete first: the first found in the folder is used.
    package static let cityFiles = ["cities500.txt", "cities1000.txt", "cities5000.txt", "cities15000.txt"]
    package static let regionFile = "admin1CodesASCII.txt"
    /// The towns' names in other languages; optional.
    package static let namesFile = "alternateNamesV2.txt"
}
