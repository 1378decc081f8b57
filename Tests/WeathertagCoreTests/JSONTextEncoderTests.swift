import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// `JSONTextEncoder` writes the socket's documents as it encodes them: each test checks its text against the tree
/// `JSONValueEncoder` builds and serializes, which the golden tests in `APIDocumentTests` pin byte for byte.
@Suite("JSON text encoder")
struct JSONTextEncoderTests {
    static let now = Fixtures.observedAt.addingTimeInterval(30)

    static func entry(_ index: Int) -> EntryDocument {
        EntryDocument(
            path: "2026/e\(index) \"quoted\"\\.md", title: "Day \(index) — über 🌧", time: "2026-11-22T09:4\(index):00Z",
            dayOnly: index % 2 == 0, timeSource: "front_matter:date", lane: "stamped", reason: "stamped",
            detail: index % 2 == 0 ? nil : "tab\there\nnewline", why: "stamped", excerpt: "A walk\u{1}in the rain",
            weather: DiaryWeather(condition: "Rain", temperature: -0.5, units: "metric", place: "Bergen", aqi: 2),
            mood: index % 3 == 0 ? nil : 0.25 * Double(index), block: ["weather:", "  condition: Rain"],
            history: EntryHistoryDocument(
                stampedAt: "2026-11-22T09:41:00Z", restoredAt: nil, restores: index,
                laneSince: nil),
            location: EntryLocation(latitude: 60.39, longitude: 5.32, name: index == 1 ? "Bryggen" : nil),
            photos: index == 2 ? [] : ["a.jpg", "b c.png"])
    }

    static var status: StatusDocument {
        var provider = StatusDocument.Provider(
            type: "command", ok: false, attempts: 3, failures: 1, lastSuccessAt: "2026-11-22T09:40:00Z",
            lastError: "exit 1: \"no fix\"", lastErrorAt: nil, skippedUntil: nil,
            lastPosition: LocationDocument(Fixtures.position),
            details: ["program": "/usr/bin/where", "accuracy": "city", "type": "shadowed by the fixed key"])
        (provider.won, provider.accuracy, provider.ageSeconds) = (true, 17, 60)
        var status = StatusDocument(
            startedAt: "2026-11-22T09:00:00Z", uptimeSeconds: 2460, inbox: "/srv/diary",
            providers: [provider, provider],
            weather: TagDocument(Fixtures.tag, now: Self.now),
            cache: .init(places: 1, hits: 4, misses: 1, lastFetchedAt: nil, ageSeconds: 1e16),
            services: .init(
                bySource: [
                    "openweather": .init(calls: 1, callsToday: 1), "open-meteo": .init(calls: 3, callsToday: 2),
                ],
                iconDownloads: 1, lastError: nil, nextAttemptAt: "2026-11-22T09:45:00Z"),
            entries: .init(
                stamped: 5, restored: 4, alreadyStamped: 2, skipped: 1, backdated: 3, waiting: 0, lastScanAt: nil),
            lastError: nil, lastErrorAt: nil,
            lanes: LanesDocument(
                waiting: .init(count: 0, latest: []), stamped: .init(count: 3, latest: (0..<3).map(Self.entry)),
                backdated: .init(count: 1, latest: [Self.entry(4)]), leftAlone: .init(count: 0, latest: [])))
        status.history = .init(source: "open-meteo", waiting: 2, requests: 7, budgetLeft: 1234.5)
        status.conflicts = [
            StatusDocument.Conflict(SyncConflict(copy: "a.sync-conflict-1.md", entry: "a.md", tool: .syncthing))
        ]
        status.timeline = .init(path: "/srv/www/index.html", writtenAt: nil, entries: 3, stale: true, lastError: nil)
        return status
    }

    @Test func everyDocumentOfTheSocketIsTheTreesTextByteForByte() throws {
        func same(_ document: some Encodable, _ name: String) throws {
            let text = try JSONTextEncoder().encode(document)
            let tree = try JSONValueEncoder().encode(document).serialized
            #expect(text == tree, "\(name)")
        }
        try same(Self.status, "status")
        try same(TagDocument(Fixtures.tag, now: Self.now), "tag")
        try same(EntryListDocument(entries: (0..<5).map(Self.entry), nextCursor: "c1"), "entries")
        try same(EntryListDocument(entries: [], nextCursor: nil), "no entries")
        try same(Self.entry(1), "entry")
        try same(LocationDocument(Fixtures.position), "location")
        try same(ErrorDocument(error: "no such endpoint /v1/\u{0}x; try /v1/tag", status: 404), "error")
        // What the golden test pins, through the new path.
        #expect(
            try JSONTextEncoder().encode(TagDocument(Fixtures.tag, now: Self.now)) == APIDocumentTests.tagJSON)
        // Sources in the order of their names, whatever order their dictionary keeps (hash order, which changes
        // from run to run).
        #expect(
            try JSONTextEncoder().encode(Self.status).contains(
                #""by_source":{"open-meteo":{"calls":3,"calls_today":2},"openweather":{"calls":1,"calls_today":1}}"#))
        // And read back by the CLI's decoder (a detail named as a fixed key is not written, so the text is compared).
        let text = try JSONTextEncoder().encode(Self.status)
        #expect(try JSONTextEncoder().encode(JSONDecoder().decode(StatusDocument.self, from: Data(text.utf8))) == text)
    }

    @Test func valuesAtTheTopAndNumbersAreWrittenAsTheTreeWritesThem() throws {
        let values: [Double] = [0, -0.0, 1, -1, 12.3, 1e15, 1e15 - 1, -1e15, 1e300, .infinity, 0.1 + 0.2]
        for value in values {
            #expect(try JSONTextEncoder().encode(value) == JSONValueEncoder().encode(value).serialized, "\(value)")
        }
        #expect(try JSONTextEncoder().encode(Int64.max) == JSONValueEncoder().encode(Int64.max).serialized)
        #expect(try JSONTextEncoder().encode("a\"b\\c\u{7f}") == JSONValueEncoder().encode("a\"b\\c\u{7f}").serialized)
        #expect(try JSONTextEncoder().encode([[1, 2], [], [3]]) == "[[1,2],[],[3]]")
        #expect(try JSONTextEncoder().encode(["k": [String?.none]]) == #"{"k":[null]}"#)
        #expect(try JSONTextEncoder().encode(Nothing()) == "null")
        #expect(try JSONTextEncoder().encode([Nothing(), Nothing()]) == "[null,null]")
    }

    /// What text written in order cannot take back: each is encoded again by the tree, and the answer is its.
    @Test func aValueThatUsesItsContainersOutOfOrderGetsTheTreesAnswer() throws {
        let cases: [(any Encodable, String)] = [
            (Unusual.duplicateKey, #"{"a":3,"b":2}"#),
            (Unusual.backToTheOuterObject, #"{"outer":{"x":1},"later":2}"#),
            (Unusual.outerAfterInner, #"{"inner":{"x":1,"y":2},"after":3}"#),
            (Unusual.containerTwice, #"{"a":1,"b":2}"#),
            (Unusual.valueTwice, "2"),
            (Unusual.superEncoder, #"{"a":1,"super":{"b":2}}"#),
            (Unusual.keyedThenUnkeyed, "[1]"),
            (Unusual.nothingUnderAKey, #"{"a":null,"b":1}"#),
        ]
        for (value, expected) in cases {
            let tree = try JSONValueEncoder().encode(value).serialized
            #expect(tree == expected, "the tree's own answer for \(value)")
            #expect(try JSONTextEncoder().encode(value) == tree, "\(value)")
        }
    }

    @Test func aValueThatThrowsThrowsTheTreesError() {
        #expect(throws: Refusal.self) { try JSONTextEncoder().encode(["ok": Refuses()]) }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct Refusal: Error {}

    struct Refuses: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            throw Refusal()
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { self.stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    enum Unusual: Encodable {
        case duplicateKey, backToTheOuterObject, outerAfterInner, containerTwice, valueTwice, superEncoder
        case keyedThenUnkeyed, nothingUnderAKey

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .duplicateKey:
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: Key("a"))
                try container.encode(2, forKey: Key("b"))
                try container.encode(3, forKey: Key("a"))
            case .backToTheOuterObject:
                var container = encoder.container(keyedBy: Key.self)
                var outer = container.nestedContainer(keyedBy: Key.self, forKey: Key("outer"))
                try container.encode(2, forKey: Key("later"))
                try outer.encode(1, forKey: Key("x"))
            case .outerAfterInner:
                var container = encoder.container(keyedBy: Key.self)
                var inner = container.nestedContainer(keyedBy: Key.self, forKey: Key("inner"))
                try inner.encode(1, forKey: Key("x"))
                try container.encode(3, forKey: Key("after"))
                try inner.encode(2, forKey: Key("y"))
            case .containerTwice:
                var first = encoder.container(keyedBy: Key.self)
                try first.encode(1, forKey: Key("a"))
                var second = encoder.container(keyedBy: Key.self)
                try second.encode(2, forKey: Key("b"))
            case .valueTwice:
                var container = encoder.singleValueContainer()
                try container.encode(1)
                try container.encode(2)
            case .superEncoder:
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: Key("a"))
                var parent = container.superEncoder().container(keyedBy: Key.self)
                try parent.encode(2, forKey: Key("b"))
            case .keyedThenUnkeyed:
                var keyed = encoder.container(keyedBy: Key.self)
                try keyed.encode(1, forKey: Key("a"))
                var unkeyed = encoder.unkeyedContainer()
                try unkeyed.encode(1)
            case .nothingUnderAKey:
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(Nothing(), forKey: Key("a"))
                try container.encode(1, forKey: Key("b"))
            }
        }
    }
}
