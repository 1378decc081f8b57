import FoundationEssentials

/// Why an export cannot be imported: which entry (its number in the export, and its id when it has one) and what
/// is wrong, or where the file stops being JSON. Nothing is written when an export is refused.
package struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }

    static func entry(_ number: Int, _ id: String?, _ message: String) -> ImportError {
        ImportError("entry \(number)\(id.map { " (\($0))" } ?? ""): \(message)")
    }
}

/// Day One's JSON export (`Journal.json`, alone or in the export's .zip with `photos/`): `{"metadata": {…},
/// "entries": [{"uuid", "creationDate", "timeZone", "text", "tags", "starred", "location": {…}, "weather": {…},
/// "photos": [{"identifier", "md5", "type"}], …}]}`.
///
/// Read with `JSONPullReader`, one entry at a time, keeping only what is written: a ten-year export's text,
/// not its tree. Every entry must have a `uuid` and a `creationDate`; a field of the wrong kind is an error naming
/// the entry, never passed over, except the weather's and place's numbers, which Day One leaves out or zeroes when
/// its service had none (`sunriseDate` of 1970 means unknown).
package enum DayOneExport {
    /// At most this many entries: a larger file is no diary (and would not fit the summary).
    package static let maximumEntries = 1_000_000

    package static func read(_ bytes: [UInt8]) throws(ImportError) -> [ImportedEntry] {
        try Self.entries(of: bytes, app: "Day One") { reader, number throws(JSONPullReader.Malformed) in
            var raw = RawEntry()
            try raw.read(&reader)
            return raw.entry(number: number)
        }
    }

    /// `{"entries": [...]}`, other keys passed over: each element read by `entry` (given its number, from 1) into a
    /// checked entry or the error that refuses the whole export. For both apps' exports.
    static func entries(
        of bytes: [UInt8], app: String,
        entry: (inout JSONPullReader, Int) throws(JSONPullReader.Malformed) -> Result<ImportedEntry, ImportError>
    ) throws(ImportError) -> [ImportedEntry] {
        var reader = JSONPullReader(bytes)
        var entries: [ImportedEntry] = []
        var sawEntries = false
        do throws(JSONPullReader.Malformed) {
            try reader.object { reader, key throws(JSONPullReader.Malformed) in
                guard key == "entries" else { return try reader.skip() }
                sawEntries = true
                try reader.array { reader throws(JSONPullReader.Malformed) in
                    guard entries.count < Self.maximumEntries else { throw JSONPullReader.Malformed() }
                    switch try entry(&reader, entries.count + 1) {
                    case .success(let read): entries.append(read)
                    case .failure(let error): throw JSONPullReader.Malformed(reason: error.description)
                    }
                }
            }
            guard reader.atEnd() else { throw JSONPullReader.Malformed() }
        } catch {
            if let reason = error.reason { throw ImportError(reason) }
            throw ImportError(
                "not \(app)'s JSON export: it stops being JSON of that shape at line \(reader.line(at: reader.index))")
        }
        guard sawEntries else { throw ImportError("not \(app)'s JSON export: it has no \"entries\"") }
        return entries
    }

    /// An entry as read, before it is checked.
    private struct RawEntry {
        var uuid: String?
        var creationDate: String?
        var timeZone: String?
        var text = ""
        var tags: [String] = []
        var starred = false
        var place = ImportedEntry.Place()
        var locationZone: String?
        var weather: [String: Double] = [:]
        var weatherWords: [String: String] = [:]
        var attachments: [ImportedEntry.Attachment] = []
        var problem: String?

        mutating func read(_ reader: inout JSONPullReader) throws(JSONPullReader.Malformed) {
            try reader.object { reader, key throws(JSONPullReader.Malformed) in
                switch key {
                case "uuid": self.uuid = try Self.string(&reader, key, &self.problem)
                case "creationDate": self.creationDate = try Self.string(&reader, key, &self.problem)
                case "timeZone": self.timeZone = try Self.string(&reader, key, &self.problem)
                case "text": self.text = try Self.string(&reader, key, &self.problem) ?? ""
                case "starred":
                    if let starred = try reader.bool() {
                        self.starred = starred
                    } else {
                        try Self.wrong(&reader, key, &self.problem)
                    }
                case "tags":
                    guard reader.peek() == UInt8(ascii: "[") else { return try Self.wrong(&reader, key, &self.problem) }
                    try reader.array { reader throws(JSONPullReader.Malformed) in
                        if let tag = try Self.string(&reader, "tags", &self.problem) { self.tags.append(tag) }
                    }
                case "location": try self.readLocation(&reader)
                case "weather": try self.readWeather(&reader)
                case "photos", "videos", "audios", "pdfAttachments":
                    let folder = key == "pdfAttachments" ? "pdfs" : key
                    guard reader.peek() == UInt8(ascii: "[") else { return try Self.wrong(&reader, key, &self.problem) }
                    try reader.array { reader throws(JSONPullReader.Malformed) in
                        try self.readAttachment(&reader, folder: folder)
                    }
                default: try reader.skip()
                }
            }
        }

        private mutating func readLocation(_ reader: inout JSONPullReader) throws(JSONPullReader.Malformed) {
            if try reader.null() { return }
            try reader.object { reader, key throws(JSONPullReader.Malformed) in
                func words() throws(JSONPullReader.Malformed) -> String? {
                    let value = try Self.string(&reader, "location.\(key)", &self.problem)?.trimmingWhitespace()
                    return value?.isEmpty == false ? value : nil
                }
                switch key {
                case "placeName": self.place.name = try words()
                case "localityName": self.place.locality = try words()
                case "administrativeArea": self.place.area = try words()
                case "country": self.place.country = try words()
                case "timeZoneName": self.locationZone = try words()
                case "latitude": self.place.latitude = try Self.number(&reader, "location.latitude", &self.problem)
                case "longitude": self.place.longitude = try Self.number(&reader, "location.longitude", &self.problem)
                default: try reader.skip()
                }
            }
        }

        private mutating func readWeather(_ reader: inout JSONPullReader) throws(JSONPullReader.Malformed) {
            if try reader.null() { return }
            try reader.object { reader, key throws(JSONPullReader.Malformed) in
                switch key {
                case "conditionsDescription", "weatherCode", "weatherServiceName", "sunriseDate", "sunsetDate":
                    if let value = try Self.string(&reader, "weather.\(key)", &self.problem) {
                        self.weatherWords[key] = value
                    }
                case "temperatureCelsius", "relativeHumidity", "windSpeedKPH", "windBearing", "windChillCelsius",
                    "pressureMB", "visibilityKM":
                    if let value = try Self.number(&reader, "weather.\(key)", &self.problem) {
                        self.weather[key] = value
                    }
                default: try reader.skip()
                }
            }
        }

        private mutating func readAttachment(
            _ reader: inout JSONPullReader, folder: String
        )
            throws(JSONPullReader.Malformed)
        {
            var identifier: String?
            var md5: String?
            var type: String?
            try reader.object { reader, key throws(JSONPullReader.Malformed) in
                switch key {
                case "identifier": identifier = try Self.string(&reader, "\(folder).identifier", &self.problem)
                case "md5": md5 = try Self.string(&reader, "\(folder).md5", &self.problem)
                case "type": type = try Self.string(&reader, "\(folder).type", &self.problem)
                default: try reader.skip()
                }
            }
            // Day One names the file by its digest and type; a name that could leave the folder is not one.
            guard let identifier, let md5, let type, Self.isPlainName(md5), Self.isPlainName(type) else { return }
            self.attachments.append(.init(identifier: identifier, file: "\(folder)/\(md5).\(type)"))
        }

        static func isPlainName(_ name: String) -> Bool {
            !name.isEmpty && name.count <= 128
                && name.unicodeScalars.allSatisfy {
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
                }
        }

        /// A string, or nil with the problem noted when it is another kind (null is nothing).
        static func string(
            _ reader: inout JSONPullReader, _ key: String, _ problem: inout String?
        )
            throws(JSONPullReader.Malformed) -> String?
        {
            if try reader.null() { return nil }
            guard reader.peek() == UInt8(ascii: "\"") else {
                try Self.wrong(&reader, key, &problem)
                return nil
            }
            return try reader.string()
        }

        static func number(
            _ reader: inout JSONPullReader, _ key: String, _ problem: inout String?
        )
            throws(JSONPullReader.Malformed) -> Double?
        {
            if try reader.null() { return nil }
            guard let value = try reader.number() else {
                try Self.wrong(&reader, key, &problem)
                return nil
            }
            return value
        }

        static func wrong(
            _ reader: inout JSONPullReader, _ key: String, _ problem: inout String?
        )
            throws(JSONPullReader.Malformed)
        {
            if problem == nil { problem = "\"\(key)\" is not what Day One writes there" }
            try reader.skip()
        }

        func entry(number: Int) -> Result<ImportedEntry, ImportError> {
            if let problem { return .failure(.entry(number, self.uuid, problem)) }
            guard let uuid = self.uuid, Self.isPlainName(uuid) else {
                return .failure(.entry(number, self.uuid, "it has no uuid (or one that is not letters and digits)"))
            }
            guard let creationDate, let date = Date(iso8601WithOffset: creationDate) else {
                return .failure(
                    .entry(
                        number, uuid,
                        "its creationDate \(self.creationDate.map { "\"\($0)\"" } ?? "is missing and") is not a time"))
            }
            // The zone it was written in; an unknown name is refused rather than read in another zone.
            let zoneName = self.timeZone ?? self.locationZone
            let zone: Zone
            if let zoneName {
                guard let named = Zone.named(zoneName) else {
                    return .failure(.entry(number, uuid, "its timeZone \"\(zoneName)\" is no zone of the tz database"))
                }
                zone = named
            } else {
                zone = .utc
            }
            let body = DayOneText.unescaped(self.text)
            var place: ImportedEntry.Place? = self.place == ImportedEntry.Place() ? nil : self.place
            if let latitude = place?.latitude, let longitude = place?.longitude,
                !(abs(latitude) <= 90 && abs(longitude) <= 180) || (latitude == 0 && longitude == 0)
            {
                // Off the globe, or Day One's 0, 0 for "no fix": the names stay, the coordinates go.
                place?.latitude = nil
                place?.longitude = nil
            }
            return .success(
                ImportedEntry(
                    origin: .dayOne, id: uuid, number: number, date: date, zone: zone,
                    title: DayOneText.title(of: body),
                    body: body, tags: self.tags, starred: self.starred, place: place, weather: self.dayOneWeather(),
                    attachments: self.attachments))
        }

        /// The weather, when Day One kept a temperature; its sun times unless they are the 1970 of "none".
        private func dayOneWeather() -> DayOneWeather? {
            guard let temperature = self.weather["temperatureCelsius"], abs(temperature) < 100 else { return nil }
            func time(_ key: String) -> Date? {
                guard let text = self.weatherWords[key], let date = Date(iso8601WithOffset: text),
                    date.timeIntervalSince1970 > 86_400
                else { return nil }
                return date
            }
            func measure(_ key: String, _ range: ClosedRange<Double>) -> Double? {
                self.weather[key].flatMap { range.contains($0) ? $0 : nil }
            }
            return DayOneWeather(
                temperatureCelsius: temperature,
                description: self.weatherWords["conditionsDescription"]?.trimmingWhitespace() ?? "",
                code: self.weatherWords["weatherCode"] ?? "",
                service: self.weatherWords["weatherServiceName"].flatMap { $0.isEmpty ? nil : $0 },
                relativeHumidity: measure("relativeHumidity", 0...100), windSpeedKPH: measure("windSpeedKPH", 0...500),
                windBearing: measure("windBearing", 0...360), windChillCelsius: measure("windChillCelsius", -100...100),
                pressureMB: measure("pressureMB", 800...1100), visibilityKM: measure("visibilityKM", 0...500),
                sunrise: time("sunriseDate"), sunset: time("sunsetDate"))
        }
    }
}
