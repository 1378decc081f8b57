import FoundationEssentials

/// jrnl's JSON export (`jrnl --export json`): `{"tags": {"@tag": n}, "entries": [{"title", "body", "date":
/// "YYYY-MM-DD", "time": "HH:MM", "tags": ["@tag"], "starred"}]}`. jrnl keeps no zone, no place and no weather: its
/// times are read in `zone` (the machine's, or `import jrnl --zone`), and every entry is stamped from history.
///
/// jrnl has no id either; an entry's is a digest of its date, time and title, and of how many entries before it in
/// the export share all three, so that importing the same export again finds every entry it wrote.
package enum JrnlExport {
    package static func read(_ bytes: [UInt8], zone: Zone) throws(ImportError) -> [ImportedEntry] {
        var seen: [String: Int] = [:]
        return try DayOneExport.entries(of: bytes, app: "jrnl") { reader, number throws(JSONPullReader.Malformed) in
            var fields: [String: String] = [:]
            var tags: [String] = []
            var starred = false
            var problem: String?
            try reader.object { reader, key throws(JSONPullReader.Malformed) in
                switch key {
                case "title", "body", "date", "time":
                    if try reader.null() { return }
                    guard reader.peek() == UInt8(ascii: "\"") else {
                        problem = problem ?? "\"\(key)\" is not a string"
                        return try reader.skip()
                    }
                    fields[key] = try reader.string()
                case "starred":
                    if let value = try reader.bool() {
                        starred = value
                    } else if !(try reader.null()) {
                        problem = problem ?? "\"starred\" is not true or false"
                        try reader.skip()
                    }
                case "tags":
                    if try reader.null() { return }
                    guard reader.peek() == UInt8(ascii: "[") else {
                        problem = problem ?? "\"tags\" is not a list"
                        return try reader.skip()
                    }
                    try reader.array { reader throws(JSONPullReader.Malformed) in
                        guard reader.peek() == UInt8(ascii: "\"") else {
                            problem = problem ?? "a tag is not a string"
                            return try reader.skip()
                        }
                        let tag = try reader.string().trimmingWhitespace()
                        let bare = tag.hasPrefix("@") || tag.hasPrefix("#") ? String(tag.dropFirst()) : tag
                        if !bare.isEmpty, !tags.contains(bare) { tags.append(bare) }
                    }
                default: try reader.skip()
                }
            }
            return Self.entry(
                number: number, fields: fields, tags: tags, starred: starred, problem: problem, zone: zone,
                seen: &seen)
        }
    }

    private static func entry(
        number: Int, fields: [String: String], tags: [String], starred: Bool, problem: String?, zone: Zone,
        seen: inout [String: Int]
    ) -> Result<ImportedEntry, ImportError> {
        let title = fields["title"]?.trimmingWhitespace() ?? ""
        let named = title.isEmpty ? nil : "\"\(title.prefix(40))\""
        if let problem { return .failure(.entry(number, named, problem)) }
        guard let day = fields["date"] else { return .failure(.entry(number, named, "it has no date")) }
        let time = fields["time"] ?? "00:00"
        // jrnl writes `YYYY-MM-DD` and `HH:MM`: read as one local time, in the zone given.
        guard let moment = EntryTime.given("\(day) \(time)", timeZone: zone), !moment.dayOnly else {
            return .failure(.entry(number, named, "its date \"\(day)\" and time \"\(time)\" are not a time"))
        }
        let key = "\(day) \(time) \(title)"
        let ordinal = seen[key, default: 0]
        seen[key] = ordinal + 1
        let id = Self.digest(ordinal == 0 ? key : "\(key) #\(ordinal + 1)")
        var body = fields["body"] ?? ""
        while body.hasSuffix("\n") { body.removeLast() }
        return .success(
            ImportedEntry(
                origin: .jrnl, id: id, number: number, date: moment.date, zone: zone,
                title: title.isEmpty ? nil : title, body: body, tags: tags, starred: starred))
    }

    /// 64-bit FNV-1a of the text's UTF-8, as 16 hex digits: a stable name for an entry, not a secret (why not a
    /// library's hash: nothing here needs more, and Swift's own `Hasher` differs from run to run).
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return String(cFormat: "%016llx", hash)
    }
}
