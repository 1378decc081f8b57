/// One line of a GeoNames cities file (`cities500.txt` … `cities15000.txt`: UTF-8, tab-separated, 19 columns:
/// geonameid, name, asciiname, alternatenames, latitude, longitude, feature class, feature code, country code,
/// cc2, admin1 code, admin2, admin3, admin4, population, elevation, dem, timezone, modification date). Pure.
public struct GeoNamesRecord: Sendable, Equatable {
    public var id: Int
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var country: String
    public var admin1: String
    public var population: Int
    /// The place's zone in the tz database (`Europe/Zurich`); nil when the line has none.
    public var zone: String?

    /// The record of a line, or nil for one that is not a populated place's (too few columns, no valid
    /// coordinates).
    public init?(line: Substring) {
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
    public static func region(line: Substring) -> (code: String, name: String)? {
        let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard columns.count >= 2, !columns[0].isEmpty, !columns[1].isEmpty else { return nil }
        return (String(columns[0]), String(columns[1]))
    }

    /// The files weathertag reads, the most complete first: the first found in the folder is used.
    public static let cityFiles = ["cities500.txt", "cities1000.txt", "cities5000.txt", "cities15000.txt"]
    public static let regionFile = "admin1CodesASCII.txt"
}
