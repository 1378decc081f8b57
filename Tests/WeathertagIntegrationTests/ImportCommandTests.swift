import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// `weathertag import`: the real binary, a real Day One export packed as Day One packs it (a .zip with `photos/`), a
/// real jrnl's export made by jrnl itself, history from the loopback stand-in.
@Suite("Importing a diary from Day One and jrnl", .serialized)
struct ImportCommandTests {
    static let exports = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("WeathertagCoreTests/Exports")
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixed = #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#
    static let history = #", "history": {"enabled": true, "source": "openweather", "max_calls_per_day": 900}"#

    /// Every file below `folder` (relative path → bytes), hidden ones included.
    static func tree(_ folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue
            {
                files[name] = FileManager.default.contents(atPath: folder + "/" + name)
            }
        }
        return files
    }

    static func frontMatter(_ text: String) -> String {
        guard text.hasPrefix("---\n"), let end = text.range(of: "\n---\n") else { return "" }
        return String(text[text.startIndex..<end.lowerBound])
    }

    /// A second journal of the same export, made here in the shape of Day One's (the public export above has no
    /// photos): one entry that links its photo.
    static let tripJournal = """
        {"metadata": {"version": "1.0"}, "entries": [{"uuid": "F8616B6A8BFA44DA8C6BB7FA16E300AB",
          "creationDate": "2018-01-30T16:22:17Z", "timeZone": "Asia\\/Hong_Kong", "starred": true, "tags": ["trip"],
          "text": "A day in class\\n\\n![](dayone-moment:\\/\\/A4EE1B8F13F642099FA54BE2B562CCA4)\\n\\nMood 3\\/5\\\\. Rain\\\\!",
          "location": {"localityName": "Hong Kong", "country": "Hong Kong", "placeName": "The University of Hong Kong",
            "latitude": 22.282928466796875, "longitude": 114.136474609375},
          "weather": {"temperatureCelsius": 9, "conditionsDescription": "Light Rain", "weatherCode": "rain-night",
            "weatherServiceName": "HAMweather", "relativeHumidity": 94},
          "photos": [{"identifier": "A4EE1B8F13F642099FA54BE2B562CCA4", "md5": "e03a5b310aa09d2af9435624656b82a5",
            "type": "jpeg"}]}]}
        """

    @Test func aDayOneZipBecomesAFileAnEntryWithItsWeatherAndPhotosAndOnlyOnce() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.history)
            // The export as Day One packs it: journals at the top, photos/ beside them.
            let export = harness.directory.file("export")
            try FileManager.default.createDirectory(atPath: export + "/photos", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Self.exports.appendingPathComponent("dayone-daygram2dayone-journal.json").path,
                toPath: export + "/Journal.json")
            try harness.directory.write("export/Trip.json", Self.tripJournal)
            let photo = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try photo.write(to: URL(fileURLWithPath: export + "/photos/e03a5b310aa09d2af9435624656b82a5.jpeg"))
            let zipped = try await ChildProcess.run(
                ["/bin/sh", "-c", "cd '\(export)' && zip -q -r ../export.zip Journal.json Trip.json photos"],
                in: harness.directory)
            #expect(zipped.status == 0, "\(zipped.stderr)")
            let diary = harness.directory.file("diary")
            try FileManager.default.createDirectory(atPath: diary, withIntermediateDirectories: true)

            let run = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "import", "dayone", harness.directory.file("export.zip"), "--into", diary,
                    "--config", config,
                ], in: harness.directory)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("imported 12 entries"), "\(run.stdout)")
            // Of the seven Auckland entries without a place, five were written beside one that has it, on the same
            // clock (the export as a track); two have none within ten minutes, and Geneva (the fixed place, +02:00)
            // is not Auckland's clock (+12:00): no weather, said so.
            #expect(run.stdout.contains("5 with their own weather, 5 with weather from history"), "\(run.stdout)")
            #expect(run.stdout.contains("2 without weather: no place known for their time"), "\(run.stdout)")
            #expect(run.stderr.contains("its own clock (+12:00) is neither this machine's ("), "\(run.stderr)")
            let files = Self.tree(diary)
            // Nothing left of the staging or the unpacked export.
            #expect(!files.keys.contains { $0.hasPrefix(".") }, "\(files.keys.sorted())")
            let entries = files.filter { $0.key.hasSuffix(".md") }
            #expect(entries.count == 12)
            // Day One's weather as Day One kept it; the others their own hour's, from history.
            var own = 0
            var historical = 0
            for (_, data) in entries {
                let front = Self.frontMatter(String(decoding: data, as: UTF8.self))
                if front.contains("  weather_source: dayone\n") { own += 1 }
                if front.contains("  kind: historical\n") { historical += 1 }
                #expect(front.contains("\ndayone_uuid: "))
            }
            #expect(own == 5 && historical == 5)
            // Placed by the export: the coordinates of the entry written beside it.
            let sameSecond = entries.filter { $0.key.hasPrefix("2020/05/2020-05-10-0817") }.values.map {
                String(decoding: $0, as: UTF8.self)
            }
            let placed = sameSecond.filter { !$0.contains("weather_source: dayone") }
            #expect(placed.count == 2)
            for text in placed {
                // At `privacy`'s precision, as the entry beside it is written.
                #expect(text.contains("  latitude: -36.718\n") && text.contains("  kind: historical\n"), "\(text)")
            }
            // Three entries of one second: three files.
            #expect(entries.keys.filter { $0.hasPrefix("2020/05/2020-05-08-0946") }.count == 3)
            // The photo copied beside its entry, the link rewritten; the text's escapes gone.
            let trip = String(decoding: try #require(entries["2018/01/2018-01-31-0022.md"]), as: UTF8.self)
            #expect(trip.contains("![](photos/e03a5b310aa09d2af9435624656b82a5.jpeg)"), "\(trip)")
            #expect(trip.contains("Mood 3/5. Rain!"))
            #expect(trip.contains("date: 2018-01-31T00:22:17+08:00\n"))
            #expect(trip.contains("  icon: 10n\n") && trip.contains("  weather_service: HAMweather\n"))
            #expect(trip.contains("tags: [trip]\n") && trip.contains("starred: true\n"))
            #expect(files["2018/01/photos/e03a5b310aa09d2af9435624656b82a5.jpeg"] == photo)

            // The same export again: nothing written, nothing changed.
            let again = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "import", "dayone", harness.directory.file("export.zip"), "--into", diary,
                    "--config", config,
                ], in: harness.directory)
            #expect(again.status == 0 && again.stdout.contains("imported 0 entries"), "\(again.stdout)\(again.stderr)")
            #expect(again.stdout.contains("12 there already"), "\(again.stdout)")
            #expect(Self.tree(diary) == files)
        }
    }

    /// A bad export is refused naming the entry, and leaves the diary as it was: nothing half-written.
    @Test func aBadExportIsRefusedAndLeavesNothingBehind() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.history)
            let diary = harness.directory.file("diary")
            try FileManager.default.createDirectory(atPath: diary, withIntermediateDirectories: true)
            try harness.directory.write("diary/kept.md", "---\ntitle: mine\n---\nMine\n")
            let before = Self.tree(diary)
            // Ten good entries, then one whose date is no date.
            var entries = (0..<10).map {
                #"{"uuid": "A\#($0)", "creationDate": "2020-05-1\#($0)T10:00:00Z", "text": "Good"}"#
            }
            entries.append(#"{"uuid": "BROKEN1", "creationDate": "the day after", "text": "Bad"}"#)
            try harness.directory.write("bad.json", #"{"entries": [\#(entries.joined(separator: ","))]}"#)
            let run = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "import", "dayone", harness.directory.file("bad.json"), "--into", diary,
                    "--config", config,
                ], in: harness.directory)
            #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("entry 11 (BROKEN1)") && run.stderr.contains("nothing was imported"))
            #expect(Self.tree(diary) == before)
            // Not JSON at all, or no such file.
            try harness.directory.write("notes.json", "Dear diary,\n")
            let prose = try await ChildProcess.run(
                [DaemonProcess.binary, "import", "dayone", harness.directory.file("notes.json"), "--into", diary],
                in: harness.directory)
            #expect(prose.status == 65 && prose.stderr.contains("not Day One's JSON export"), "\(prose.stderr)")
            #expect(Self.tree(diary) == before)
            // --dry-run says where each entry would go and whose weather it would get, and writes nothing.
            let dry = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "import", "jrnl",
                    Self.exports.appendingPathComponent("jrnl-4.6-export.json").path, "--into", diary, "--zone",
                    "Europe/Zurich", "--config", config, "--dry-run",
                ], in: harness.directory)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(
                dry.stdout.contains("2019/05/2019-05-01-1000-2.md: \"Market day in the rain.\", weather from history"))
            #expect(dry.stdout.contains("would import 4 of 4 entries"), "\(dry.stdout)")
            #expect(Self.tree(diary) == before)
        }
    }

    /// jrnl itself (from PyPI, `make setup`) exports a journal; its entries come in in the zone given, each with its
    /// hour's weather from history.
    @Test func aJournalExportedByJrnlComesInWithItsHoursWeather() async throws {
        try await withHarness { harness in
            let jrnl = Self.packageRoot.appendingPathComponent(".build/tools/jrnl/bin/jrnl").path
            try #require(FileManager.default.isExecutableFile(atPath: jrnl), "run `make setup` to install jrnl")
            try harness.directory.write(
                "jrnl.yaml",
                """
                colors: {body: none, date: none, tags: none, title: none}
                default_hour: 9
                default_minute: 0
                editor: ''
                encrypt: false
                highlight: false
                indent_character: '|'
                journals:
                  default: \(harness.directory.file("diary.journal"))
                linewrap: 79
                tagsymbols: '@'
                template: false
                timeformat: '%Y-%m-%d %H:%M'
                version: v4.6
                """)
            try harness.directory.write(
                "diary.journal",
                """
                [2019-05-01 10:00] Market day. *

                Plums at the @market.

                [2019-05-01 10:00] Market day.

                Again the @market.

                [2019-12-24 18:30] Christmas eve

                Snow at last.

                """)
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = harness.directory.path
            let exported = try await ChildProcess.run(
                [jrnl, "--config-file", harness.directory.file("jrnl.yaml"), "--export", "json"],
                environment: environment, in: harness.directory)
            #expect(exported.status == 0, "\(exported.stderr)")
            try harness.directory.write("export.json", exported.stdout)
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.history)
            let diary = harness.directory.file("diary")
            try FileManager.default.createDirectory(atPath: diary, withIntermediateDirectories: true)
            let run = try await ChildProcess.run(
                [
                    DaemonProcess.binary, "import", "jrnl", harness.directory.file("export.json"), "--into", diary,
                    "--zone", "Europe/Zurich", "--config", config,
                ], in: harness.directory)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("imported 3 entries") && run.stdout.contains("3 with weather from history"))
            let files = Self.tree(diary)
            let first = String(decoding: try #require(files["2019/05/2019-05-01-1000.md"]), as: UTF8.self)
            let second = String(decoding: try #require(files["2019/05/2019-05-01-1000-2.md"]), as: UTF8.self)
            #expect(first.contains("date: 2019-05-01T10:00:00+02:00\n") && first.contains("starred: true\n"))
            #expect(first.contains("tags: [market]\n") && first.contains("  kind: historical\n"), "\(first)")
            #expect(second.contains("Again the @market."))
            // The hour asked is the entry's own: 10:00 in Zurich in May is 08:00 UTC.
            let asked = try harness.standIn.timemachineQueries().map(\.dt)
            #expect(asked.contains(1_556_697_600), "\(asked)")
            let winter = String(decoding: try #require(files["2019/12/2019-12-24-1830.md"]), as: UTF8.self)
            #expect(winter.contains("date: 2019-12-24T18:30:00+01:00\n"))
        }
    }

    /// History that says "wait" (a service's pacing, a failing service's backoff of seconds) is waited for: a diary of
    /// years spends calls faster than a free service allows, and an import that gave up would leave most entries
    /// without weather. (A 429 would be waited for too, but its gate stays shut a minute.)
    @Test func historyThatSaysWaitIsWaitedFor() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.fixed, extra: Self.history)
            try harness.standIn.control(#"{"timemachine": {"mode": "503"}}"#)
            let diary = harness.directory.file("diary")
            try FileManager.default.createDirectory(atPath: diary, withIntermediateDirectories: true)
            let child = try ChildProcess(
                [
                    DaemonProcess.binary, "import", "jrnl",
                    Self.exports.appendingPathComponent("jrnl-4.6-export.json").path,
                    "--into", diary, "--zone", "Europe/Zurich", "--config", config,
                ],
                stderrPath: harness.directory.file("import.log"))
            try await poll("history asked and told to wait") {
                try harness.standIn.calls("timemachine") >= 1 ? true : nil
            }
            try harness.standIn.control(#"{"timemachine": {"mode": "ok"}}"#)
            let output = child.readStdout()
            let status = try await child.waitForExit(timeout: .seconds(90))
            #expect(status == 0, "\(output)\(child.stderr)")
            #expect(
                output.contains("imported 4 entries") && output.contains("4 with weather from history"),
                "\(output)\(child.stderr)")
        }
    }

    /// A real trip's shape (Canberra, Sydney, then Cairns: two zones, three entries with no place of their own and
    /// none beside them) imported on a machine in UTC whose fixed place is Seoul, then listed, paged and counted on
    /// each entry's own clock, read in UTC and in Berlin.
    @Test func aTripAcrossZonesIsListedPagedAndCountedAsItWasLived() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: BorrowedPlaceTests.seoul, extra: Self.history)
            let export = Self.exports.appendingPathComponent("dayone-queensland-trip-shape.json").path
            let run = try await DiaryTests.cli(["import", "dayone", export, "--into", harness.inbox], harness)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("imported 16 entries"), "\(run.stdout)")
            // 21:39Z, 01:20Z and 04:06Z have no entry with a place within ten minutes; Seoul's clock is neither.
            #expect(run.stdout.contains("3 without weather: no place known for their time"), "\(run.stdout)")

            let daemon = try await harness.startDaemon(environment: ["TZ": "UTC"])
            // Indexed from the files, not only noticed: a name the daemon has noticed but not read yet is a row
            // placed by its file name on this machine's clock, waiting, and paging while it is read would see the
            // entry twice (once at each time).
            try await poll("the trip indexed") { () -> Bool? in
                let entries = try DiaryTests.entries(daemon)
                return entries.count == 16 && !entries.contains { $0["lane"] as? String == "waiting" } ? true : nil
            }
            // Paged five at a time, newest first: every entry once, each at its own offset (Sydney's summer
            // +11:00, Queensland's +10:00).
            var times: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let response = try daemon.get("/v1/entries?limit=5" + (cursor.map { "&cursor=" + $0 } ?? ""))
                #expect(response.status == 200, "\(response.body)")
                times += (response.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["time"] as? String }
                cursor = response.json["next_cursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 4 && times.count == 16 && Set(times).count == 16, "\(pages) pages: \(times)")
            #expect(times.first == "2021-03-04T18:39:54+10:00" && times.last == "2021-03-03T22:48:50+11:00", "\(times)")
            #expect(times.filter { $0.hasSuffix("+11:00") }.count == 11, "\(times)")
            #expect(times.filter { $0.hasSuffix("+10:00") }.count == 5, "\(times)")

            // Fifteen were written on 4 March on their own clocks; in UTC eight of them were still 3 March.
            for zone in ["UTC", "Europe/Berlin"] {
                let fourth = try await DiaryTests.cli(
                    [
                        "entries", "--since", "2021-03-04", "--until", "2021-03-04", "--limit", "4", "--format",
                        "{date}",
                    ],
                    harness, zone: zone)
                #expect(fourth.status == 0, "\(fourth.stderr)")
                #expect(
                    fourth.stdout == "Mar 4, 2021, 6:39 PM +10:00\nMar 4, 2021, 5:33 PM +10:00\n"
                        + "Mar 4, 2021, 4:41 PM +10:00\nMar 4, 2021, 4:01 PM +10:00\n", "\(zone): \(fourth.stdout)")
                let day = try await DiaryTests.cli(
                    ["entries", "--since", "2021-03-04", "--until", "2021-03-04", "--json"], harness, zone: zone)
                let listed = try JSONSerialization.jsonObject(with: Data(day.stdout.utf8)) as? [String: Any]
                #expect((listed?["entries"] as? [Any])?.count == 15, "\(zone): \(day.stdout.prefix(300))")
                let third = try await DiaryTests.cli(
                    ["entries", "--until", "2021-03-03", "--format", "{date}"], harness, zone: zone)
                #expect(third.stdout == "Mar 3, 2021, 10:48 PM +11:00\n", "\(zone): \(third.stdout)")
                let stats = try await DiaryTests.cli(["stats", "--by", "month", "--json"], harness, zone: zone)
                #expect(stats.status == 0 && stats.stdout.contains("\"2021-03\""), "\(zone): \(stats.stdout)")
            }
            #expect(try await daemon.stop() == 0)
        }
    }
}
