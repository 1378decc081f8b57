import Foundation
import Glibc
import Logging
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// Words found in every script: a word inside a Japanese or Chinese sentence, a Korean word with its particle, a
/// Latin word without its accents, each found in the state database's FTS5 index and in the in-memory double alike,
/// and nothing found that is not there.
@Suite("words found in every script")
final class SearchInEveryScriptTests {
    let directory: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_795_431_600)

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    static let entries = [
        "tokyo.md": "---\ntitle: 東京の夜\n---\n今日は東京で寿司を食べた。とても美味しかった。\n",
        "beijing.md": "---\ntitle: 北京\n---\n我们在北京吃了烤鸭，天气很冷。\n",
        "seoul.md": "---\ntitle: 산책\n---\n아침에 한강을 따라 걸었다. 서울에서 제일 좋아하는 길.\n",
        "paris.md": "---\ntitle: Café crème\n---\nA crêpe at the Café de Flore, then Tokyoで a walk.\n",
        "kyoto.md": "---\ntitle: 京都\n---\n雨。でも楽しい。ラーメンを食べた。\n",
        // Thai, Lao, Khmer and Burmese: no spaces between words ("today I went to the (floating) market and ate
        // mango", each in its own words).
        "bangkok.md": "---\ntitle: ตลาดน้ำ\n---\nวันนี้ฉันไปตลาดน้ำและกินมะม่วงอร่อยมาก\n",
        "vientiane.md": "---\ntitle: ຕະຫຼາດ\n---\nມື້ນີ້ຂ້ອຍໄປຕະຫຼາດແລະກິນໝາກມ່ວງ\n",
        "phnompenh.md": "---\ntitle: ផ្សារ\n---\nថ្ងៃនេះខ្ញុំទៅផ្សារហើយញ៉ាំស្វាយ។\n",
        "yangon.md": "---\ntitle: ဈေး\n---\nဒီနေ့ ကျွန်တော် ဈေးကိုသွားပြီး သရက်သီးစားခဲ့တယ်။\n",
    ]

    /// Each query, and the entries it finds.
    static let searches: [(String, Set<String>)] = [
        // Japanese and Chinese words inside sentences, of two letters and more.
        ("寿司", ["tokyo.md"]), ("烤鸭", ["beijing.md"]), ("美味", ["tokyo.md"]), ("北京", ["beijing.md"]),
        ("東京で寿司", ["tokyo.md"]), ("天气很冷", ["beijing.md"]), ("ラーメン", ["kyoto.md"]),
        // One letter: wherever it is in its run, the last letter too.
        ("鸭", ["beijing.md"]), ("冷", ["beijing.md"]), ("雨", ["kyoto.md"]),
        ("京", ["tokyo.md", "beijing.md", "kyoto.md"]),
        // Korean words with and without their particles; a word inside a longer one.
        ("한강", ["seoul.md"]), ("한강을", ["seoul.md"]), ("서울", ["seoul.md"]), ("서울에서", ["seoul.md"]),
        ("산책", ["seoul.md"]),
        // Latin, with diacritics folded either way; a word joined to Kana.
        ("cafe", ["paris.md"]), ("CRÊPE", ["paris.md"]), ("creme", ["paris.md"]), ("tokyo", ["paris.md"]),
        // Phrases across scripts and in a run.
        ("\"Tokyoで a walk\"", ["paris.md"]), ("\"東京で\"", ["tokyo.md"]), ("\"寿\"", ["tokyo.md"]),
        // Nothing where it is not: a pair across a sentence's end, or across scripts, a word in another order.
        ("雨で", []), ("京寿", []), ("oで", []), ("司寿", []), ("北京烤鸭", []), ("东京", []), ("강한", []),
        ("\"東京 寿司\"", []),
        // Every word required, across scripts.
        ("寿司 cafe", []), ("寿司 東京", ["tokyo.md"]),
        // Thai, Lao, Khmer and Burmese words inside their sentences.
        ("มะม่วง", ["bangkok.md"]), ("อร่อย", ["bangkok.md"]), ("ตลาดน้ำ", ["bangkok.md"]), ("กิน", ["bangkok.md"]),
        ("ໝາກມ່ວງ", ["vientiane.md"]), ("ຕະຫຼາດ", ["vientiane.md"]), ("ស្វាយ", ["phnompenh.md"]),
        // (Pairs' price, as in Chinese: "សារ", message, is inside "ផ្សារ", market.)
        ("ផ្សារ", ["phnompenh.md"]), ("សារ", ["phnompenh.md"]), ("သရက်သီး", ["yangon.md"]), ("ဈေး", ["yangon.md"]),
        ("\"ตลาดน้ำและ\"", ["bangkok.md"]), ("มะม่วง ตลาด", ["bangkok.md"]),
        // Nothing where it is not: a word absent (durian), a letter without its tone mark (ม for ม่), a pair across
        // Thai and Lao, words in another order, the Lao word in Thai letters.
        ("ทุเรียน", []), ("มะมวง", []), ("มะม", []), ("กมะ", []), ("มะม่วงໝາກ", []), ("น้ำตลาด", []),
        ("หมากม่วง", []), ("ស្វាយផ្សារ", []), ("သီးသရက်", []),
    ]

    func stores() throws -> [(String, any EntryStore)] {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let database = try StateDatabase.open(
            directory: self.directory.file("state"), inbox: "/diary", policy: RestorePolicy(), logger: logger)
        return [("SQLite", database.entries), ("in memory", InMemoryEntryStore())]
    }

    func index(_ store: any EntryStore) {
        let items = Self.entries.map { name, text in
            let entry = DiaryEntry.read(Array(text.utf8), fileName: name, modified: self.now, composed: nil)
            return DiaryIndexItem(
                path: name,
                version: FileVersion(
                    device: 1, inode: 2, size: Int64(text.utf8.count), modifiedSeconds: 0, modifiedNanoseconds: 0),
                entry: entry, lane: LaneState(.stamped, .stamped), placeholderTime: entry.time)
        }
        store.remember([], index: items, at: self.now)
    }

    @Test func wordsInsideSentencesAreFoundInEveryScriptAndNothingElse() async throws {
        for (name, store) in try self.stores() {
            self.index(store)
            let index = DiaryIndex(database: store)
            for (query, expected) in Self.searches {
                let found = try await index.list(EntryQuery(text: query)).entries.map(\.path)
                #expect(Set(found) == expected, "\(name): \(query)")
            }
        }
    }

    /// An index written before (migration v11), its Japanese text one token a sentence, is read again from the files:
    /// its rows go, the memory of stamps stays, and once read again the word inside the sentence is found.
    @Test func anIndexOfWholeSentencesIsReadAgain() async throws {
        let inbox = self.directory.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try Data((Self.entries["tokyo.md"] ?? "").utf8).write(to: URL(fileURLWithPath: inbox + "/tokyo.md"))
        let block = ["weather:", "  condition: Rain"]
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let open = {
            try StateDatabase.open(
                directory: self.directory.file("state"), inbox: inbox, policy: RestorePolicy(), logger: logger)
        }
        let stamp = { (database: StateDatabase) in
            _ = EntryBatch.stampFiles(
                ["tokyo.md"], in: inbox, lines: block, options: StampOptions(maximumSize: 1 << 20),
                memory: EntryBatch.Memory(database: database.entries)
            ).remembered()
        }
        do {
            let database = try open()
            stamp(database)
            // As the version before wrote it: the sentence whole, migration v11 not yet run.
            try await database.pool.write { db in
                try db.execute(sql: "DELETE FROM diary_text")
                try db.execute(
                    sql: "INSERT INTO diary_text (rowid, title, body, place) SELECT id, title, excerpt, '' FROM diary")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v11:%'")
            }
            #expect(try await DiaryIndex(database: database.entries).list(EntryQuery(text: "寿司")).entries.isEmpty)
        }
        let database = try open()
        #expect(try database.entries.entries(EntryQuery()).entries.isEmpty, "to be read again")
        #expect(try database.memory.remembered("tokyo.md")?.block == block)
        stamp(database)
        let found = try await DiaryIndex(database: database.entries).list(EntryQuery(text: "寿司")).entries
        #expect(found.map(\.path) == ["tokyo.md"])
    }

    /// An index written before migration v13, Thai one token a sentence and its marks splitting words, is made again:
    /// the text table keeps marks as letters, and once read again the word inside the sentence is found.
    @Test func anIndexWithoutThaiPairsIsMadeAgain() async throws {
        let inbox = self.directory.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try Data((Self.entries["bangkok.md"] ?? "").utf8).write(to: URL(fileURLWithPath: inbox + "/bangkok.md"))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let open = {
            try StateDatabase.open(
                directory: self.directory.file("state"), inbox: inbox, policy: RestorePolicy(), logger: logger)
        }
        let stamp = { (database: StateDatabase) in
            _ = EntryBatch.stampFiles(
                ["bangkok.md"], in: inbox, lines: ["weather:", "  condition: Rain"],
                options: StampOptions(maximumSize: 1 << 20), memory: EntryBatch.Memory(database: database.entries)
            ).remembered()
        }
        do {
            let database = try open()
            stamp(database)
            // As the version before wrote it: its text table, the sentence whole.
            try await database.pool.write { db in
                try db.execute(
                    sql: """
                        DROP TABLE diary_text;
                        CREATE VIRTUAL TABLE diary_text USING fts5 (
                            title, body, place, tokenize = 'unicode61 remove_diacritics 2');
                        INSERT INTO diary_text (rowid, title, body, place) SELECT id, title, excerpt, '' FROM diary;
                        DELETE FROM grdb_migrations WHERE identifier LIKE 'v13:%';
                        """)
            }
            #expect(try await DiaryIndex(database: database.entries).list(EntryQuery(text: "มะม่วง")).entries.isEmpty)
        }
        let database = try open()
        #expect(try database.entries.entries(EntryQuery()).entries.isEmpty, "to be read again")
        let table = try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'diary_text'")
        }
        #expect(table?.contains("categories 'L* N* Co M*'") == true, "\(table ?? "")")
        stamp(database)
        let found = try await DiaryIndex(database: database.entries).list(EntryQuery(text: "มะม่วง")).entries
        #expect(found.map(\.path) == ["bangkok.md"])
    }

    @Test func theIndexHoldsPairsOfLettersAndEveryOtherScriptAsItWas() {
        // Thai in pairs of letters, a letter with its tone mark one (ม่).
        #expect(SearchText.indexed("กินมะม่วง") == " กิน นม มะ ะม่ ม่ว วง ง ")
        #expect(SearchText.indexed("ไทยລາວ") == " ไท ทย ย  ລາ າວ ວ ")
        #expect(SearchText.indexed("今日は東京で寿司。") == " 今日 日は は東 東京 京で で寿 寿司 司 。")
        #expect(SearchText.indexed("Tokyoで a walk") == "Tokyo で  a walk")
        #expect(SearchText.indexed("서울에서 걸었다") == " 서울 울에 에서 서   걸었 었다 다 ")
        let latin = "Café — “crème” 🌧️ naïve"
        #expect(SearchText.indexed(latin) == latin)
        #expect(!SearchText.mayHoldUnspaced(latin))
        #expect(SearchText.mayHoldUnspaced("𠀋") && SearchText.mayHoldUnspaced("ｶ") && SearchText.mayHoldUnspaced("ᄀ"))
    }

    @Test func queriesAreCutAsTheIndexIs() {
        #expect(SearchText.terms("寿司") == [.prefix("寿司")])
        #expect(SearchText.terms("寿") == [.prefix("寿")])
        #expect(SearchText.terms("東京で") == [.phrase(["東京", "京で"], lastIsPrefix: false)])
        #expect(SearchText.terms("tokyo東京") == [.prefix("tokyo"), .prefix("東京")])
        #expect(SearchText.terms("\"東京 tower\"") == [.phrase(["東京", "京", "tower"], lastIsPrefix: false)])
        #expect(SearchText.terms("\"tower 東\"") == [.phrase(["tower", "東"], lastIsPrefix: true)])
        #expect(EntryQuery.searchExpression("한강을") == #""한강 강을""#)
        #expect(EntryQuery.searchExpression("\"寿司\" x") == #""寿司"* AND "x"*"#)
    }
}
