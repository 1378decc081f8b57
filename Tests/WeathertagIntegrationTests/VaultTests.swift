import Foundation
import Glibc
import Logging
import Testing
import WeathertagCore
import WeathertagDaemon
import WeathertagTestSupport

/// A real public vault's root as the inbox (`Recorded/Vaults/journal-templater`: daily notes in `Journal/` from
/// `Templates/Daily`, the core Templates plugin and Templater on `Templates/`), with the daemon that runs on it: its
/// template, stamped by an older weathertag, is never stamped and is cleaned with `stamp --remove`; today's note
/// made from it by the substitution the template plugins do (`tools/template-render.js`, in node), a note copied
/// from last week's, a same-day copy and a block of another time each get what is theirs; the vault's other notes
/// are no entries; `check`, `status`, `why`, `entries` and `stats` say so.
@Suite("A vault's templates, copies and root", .serialized)
struct VaultTests {
    static let vault = Fixtures.repositoryRoot + "/Tests/WeathertagCoreTests/Recorded/Vaults/journal-templater"
    static let render = Fixtures.repositoryRoot + "/tools/template-render.js"
    static let fixed = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978, "name": "Seoul"}]"#
    static let extra =
        #", "stamp": {"format": "properties"}, "history": {"enabled": true, "source": "openweather", "max_calls_per_day": 900}"#
    /// When an older weathertag stamped the template: 2025-11-03T10:41:00Z.
    static let templateStamped = Date(timeIntervalSince1970: 1_762_166_460)

    /// `YYYY-MM-DD` of `date`, in UTC (the daemon's zone here).
    static func day(_ date: Date) -> String {
        String(ISO8601DateFormatter().string(from: date).prefix(10))
    }

    /// The stamp's properties of `text` (its `weather_` lines), and the rest of it.
    static func split(_ text: String) -> (stamp: [String], rest: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (
            lines.filter { $0.hasPrefix("weather_") },
            lines.filter { !$0.hasPrefix("weather_") }.joined(separator: "\n")
        )
    }

    /// `weather_local_time`'s day in `text`.
    static func stampedDay(_ text: String) -> String? {
        Self.split(text).stamp.first { $0.hasPrefix("weather_local_time: ") }.map {
            String($0.dropFirst("weather_local_time: ".count).prefix(10))
        }
    }

    /// The index's entry at `path` (`GET /v1/entries/{path}`, percent-encoded); nil when it has none.
    static func entry(_ daemon: DaemonProcess, _ path: String) throws -> [String: Any]? {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
        let response = try daemon.get("/v1/entries/" + encoded)
        return response.status == 200 ? response.json : nil
    }

    @Test func aVaultsTemplatesCopiesAndRoot() async throws {
        try await withHarness { harness in
            // The vault, and notes of its root that are no diary's.
            for item in try FileManager.default.contentsOfDirectory(atPath: Self.vault) {
                try FileManager.default.copyItem(atPath: Self.vault + "/" + item, toPath: harness.inbox + "/" + item)
            }
            let readme = "# My vault\n\nSee [[nav]].\n"
            try harness.dropInPlace("nav.md", "- [[Journal]]\n")
            try FileManager.default.createDirectory(
                atPath: harness.inbox + "/Projects", withIntermediateDirectories: true)
            try harness.dropInPlace("Projects/plan.md", "# Plan\n")
            // An older weathertag stamped every note: the template and the README hold its block, and its memory says
            // it wrote them.
            var weather = Fixtures.weather
            (weather.observedAt, weather.utcOffset, weather.condition) = (Self.templateStamped, 3600, "Rain")
            let old = WeatherTag(
                weather: weather, position: Fixtures.position, iconFile: nil, fetchedAt: Self.templateStamped
            ).stampLines(fields: StampField.all, format: .properties)
            let template = harness.read("Templates/Daily.md")
            for (name, text) in [("Templates/Daily.md", template), ("README.md", readme)] {
                guard case .stamped(let bytes) = FrontMatterStamper.stamp(Array(text.utf8), lines: old) else {
                    Issue.record("\(name) not stamped")
                    return
                }
                try Data(bytes).write(to: URL(fileURLWithPath: harness.entryPath(name)))
            }
            let stampedTemplate = harness.read("Templates/Daily.md")
            let stampedReadme = harness.read("README.md")
            do {
                var logger = Logger(label: "an older weathertag")
                logger.logLevel = .critical
                let database = try StateDatabase.open(directory: harness.state, inbox: harness.inbox, logger: logger)
                database.memory.remember(
                    [
                        .init(path: "Templates/Daily.md", block: old, origin: .stamped),
                        .init(path: "README.md", block: old, origin: .stamped),
                    ], at: Self.templateStamped)
            }
            try harness.writeConfig(providers: Self.fixed, extra: Self.extra)

            // `check` says what it found, and names what the older version stamped.
            let check = try await DiaryTests.cli(["check"], harness)
            #expect(
                check.stdout.contains(
                    "ok   inbox: the inbox is an Obsidian vault: entries are Journal/ (Daily notes, "
                        + ".obsidian/daily-notes.json); templates in Templates/ (Templates, .obsidian/templates.json) "
                        + "are never stamped"), "\(check.stdout)")
            #expect(
                check.stdout.contains(
                    "warn Templates/Daily.md holds a weather block weathertag wrote on 2025-11-03, and is a template"),
                "\(check.stdout)")
            #expect(check.stdout.contains("warn README.md holds a weather block weathertag wrote"), "\(check.stdout)")
            #expect(check.stdout.contains("weathertag stamp --remove \(harness.inbox)/README.md takes it out"))

            let daemon = try await harness.startDaemon(environment: ["TZ": "UTC"])
            // The vault's own daily note: stamped with the weather of its day, from history.
            let recorded = "Journal/2022/W28/2022-07-12.md"
            let old2022 = try await poll("the 2022 note stamped") { () -> String? in
                let text = harness.read(recorded)
                return text.contains("weather_kind: historical") ? text : nil
            }
            #expect(Self.stampedDay(old2022) == "2022-07-12", "\(old2022)")
            // The template: never stamped, its block left as it is, and said in every view.
            let templateEntry = try await poll("the template in the index") { () -> [String: Any]? in
                let entry = try Self.entry(daemon, "Templates/Daily.md")
                return entry?["lane"] as? String == "left_alone" ? entry : nil
            }
            #expect(templateEntry["lane"] as? String == "left_alone", "\(templateEntry)")
            #expect(templateEntry["reason"] as? String == "stamped_template", "\(templateEntry)")
            #expect(templateEntry["weather"] is NSNull, "its block is no entry's weather: \(templateEntry)")
            #expect(harness.read("Templates/Daily.md") == stampedTemplate)
            let status = try await DiaryTests.cli(["status"], harness)
            #expect(
                status.stdout.contains(
                    "templates holding a block weathertag wrote (`weathertag stamp --remove` takes it out): "
                        + "Templates/Daily.md"), "\(status.stdout)")
            // The vault's other notes are no entries: never given weather, listed nowhere, explained.
            #expect(try Self.entry(daemon, "README.md") == nil)
            #expect(try Self.entry(daemon, "nav.md") == nil)
            let why = try await DiaryTests.cli(["why", harness.entryPath("nav.md")], harness)
            #expect(why.stdout.contains("nav.md is not an entry: not one of the diary's entries"), "\(why.stdout)")
            #expect(harness.read("nav.md") == "- [[Journal]]\n" && harness.read("README.md") == stampedReadme)

            // Today's note, made from the template as Obsidian makes it: its front matter, the template's block
            // with it, copied byte for byte, then the core plugin's {{date}} and Templater's tags filled in.
            let today = Self.day(Date())
            let note = "Journal/\(today.prefix(4))/\(today).md"
            try FileManager.default.createDirectory(
                atPath: harness.entryPath(String(note.prefix { $0 != "/" }) + "/" + String(today.prefix(4))),
                withIntermediateDirectories: true)
            func render(into path: String) async throws {
                let run = try await ChildProcess.run(
                    ["/usr/bin/env", "node", Self.render, harness.entryPath("Templates/Daily.md"), path, today],
                    in: harness.directory)
                #expect(run.status == 0, "\(run.stderr)")
            }
            // (What it makes, outside the inbox, to compare with: the template's block inherited.)
            try await render(into: harness.directory.file("made.md"))
            let made = try String(contentsOfFile: harness.directory.file("made.md"), encoding: .utf8)
            #expect(Self.split(made).stamp.sorted() == old.sorted(), "the template's block, inherited")
            try await render(into: harness.entryPath(note))
            let stamped = try await poll("today's note stamped with its own weather") { () -> String? in
                let text = harness.read(note)
                return Self.stampedDay(text).map { $0 >= today } == true ? text : nil
            }
            // Only the stamp changed: every byte of the author's (the rendered template) kept.
            #expect(Self.split(stamped).rest == Self.split(made).rest, "\(stamped)")
            #expect(!stamped.contains("<%") && !stamped.contains("{{date"))
            // (The file is on the disk before the index is told.)
            let todays = try await poll("today's note in the index") { () -> [String: Any]? in
                let entry = try Self.entry(daemon, note)
                return entry?["lane"] as? String == "stamped" ? entry : nil
            }
            #expect(todays["reason"] as? String == "stamped", "\(todays)")

            // Last week's note, stamped by the daemon, copied to start today's: its block replaced by today's.
            let lastWeek = Self.day(Date().addingTimeInterval(-7 * 86_400))
            try harness.dropByRename("Journal/\(lastWeek).md", "---\ntitle: Market\n---\nPlums again.\n")
            let weekOld = try await poll("last week's note stamped") { () -> String? in
                let text = harness.read("Journal/\(lastWeek).md")
                return text.contains("weather_kind: historical") ? text : nil
            }
            #expect(Self.stampedDay(weekOld) == lastWeek)
            try harness.dropInPlace("Journal/\(today) Market.md", weekOld)
            let copy = try await poll("the copy stamped with its own weather") { () -> String? in
                let text = harness.read("Journal/\(today) Market.md")
                return Self.stampedDay(text).map { $0 >= today } == true ? text : nil
            }
            #expect(Self.split(copy).rest == Self.split(weekOld).rest)

            // Obsidian's "Make a copy" of today's note, the same day: the day's weather rightly kept.
            let sameDay = "Journal/\(today.prefix(4))/\(today) 1.md"
            try harness.dropInPlace(sameDay, stamped)
            let kept = try await poll("the same-day copy read") { () -> [String: Any]? in
                let entry = try Self.entry(daemon, sameDay)
                return entry?["lane"] as? String == "stamped" ? entry : nil
            }
            #expect(kept["lane"] as? String == "stamped" && kept["reason"] as? String == "found", "\(kept)")
            #expect(harness.read(sameDay) == stamped)

            // A block of another time weathertag never wrote: left as it is, in a lane of its own, counted nowhere.
            let foreign = old.map { $0.replacing("Rain", with: "Thunderstorm") }
            let ferry = "Journal/\(today) Ferry.md"
            let ferryText = "---\n" + foreign.joined(separator: "\n") + "\n---\nOn the ferry.\n"
            try harness.dropByRename(ferry, ferryText)
            let other = try await poll("the other time's block in its lane") { () -> [String: Any]? in
                let entry = try Self.entry(daemon, ferry)
                return entry?["lane"] as? String == "other_time" ? entry : nil
            }
            #expect((other["why"] as? String)?.contains("It holds weather from another time") == true, "\(other)")
            #expect(other["weather"] is NSNull && harness.read(ferry) == ferryText)
            let stats = try await DiaryTests.cli(["stats"], harness)
            #expect(!stats.stdout.contains("Thunderstorm"), "\(stats.stdout)")
            let listed = try await DiaryTests.cli(["entries", "--format", "{path}|{condition}"], harness)
            #expect(listed.stdout.contains("\(ferry)|\n"), "\(listed.stdout)")

            // The template cleaned: the block weathertag wrote taken out, and nothing else.
            let remove = try await DiaryTests.cli(
                ["stamp", "--remove", harness.entryPath("Templates/Daily.md")], harness)
            #expect(remove.status == 0, "\(remove.stdout)\(remove.stderr)")
            #expect(harness.read("Templates/Daily.md") == template)
            let cleaned = try await poll("the template read again") { () -> [String: Any]? in
                let entry = try Self.entry(daemon, "Templates/Daily.md")
                return entry?["reason"] as? String == "template" ? entry : nil
            }
            #expect(cleaned["lane"] as? String == "left_alone")
            // A block weathertag did not write is not taken out.
            let refused = try await DiaryTests.cli(["stamp", "--remove", harness.entryPath(ferry)], harness)
            #expect(refused.status == 65 && refused.stderr.contains("not one weathertag remembers writing there"))
            #expect(harness.read(ferry) == ferryText)
            // The README too, which is no entry now.
            let readmeRemoved = try await DiaryTests.cli(
                ["stamp", "--remove", harness.entryPath("README.md")], harness)
            #expect(readmeRemoved.status == 0 && harness.read("README.md") == readme, "\(readmeRemoved.stderr)")
            let after = try await DiaryTests.cli(["check"], harness)
            #expect(!after.stdout.contains("warn Templates/Daily.md") && !after.stdout.contains("warn README.md"))
            #expect(try await daemon.stop() == 0)
            // Nothing of what the template plugins made was ever left with the template's weather.
            #expect(
                !harness.read(note).contains("2025-11-03")
                    && !harness.read("Journal/\(today) Market.md").contains(lastWeek + "T"))
        }
    }
}
