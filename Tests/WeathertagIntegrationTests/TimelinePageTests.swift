import Foundation
import Testing
import WeathertagTestSupport

/// `timeline.output`: the daemon keeps the diary's page itself, so a bookmarked `file://` page is always today's
/// diary; checked in the file, in `status`, and as a headless Chromium reads the page.
@Suite("The timeline page kept current", .serialized)
struct TimelinePageTests {
    static let fixed = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#

    /// The page's text as Chromium's DOM has it after loading the file.
    static func dom(_ page: String, _ harness: Harness) async throws -> String {
        let chromium = try #require(which("chromium"), "chromium is needed (make setup)")
        let dumped = try await ChildProcess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page],
            in: harness.directory)
        #expect(dumped.status == 0, "\(dumped.stderr)")
        return dumped.stdout
    }

    @Test func thePageIsWrittenAtStartAndAgainAfterANewStamp() async throws {
        try await withHarness { harness in
            let page = harness.directory.file("site/diary.html")
            try FileManager.default.createDirectory(
                atPath: harness.directory.file("site"), withIntermediateDirectories: true)
            try harness.writeConfig(
                providers: Self.fixed, extra: #", "timeline": {"output": "site/diary.html", "title": "Kept current"}"#)
            try harness.directory.write("inbox/first.md", "---\ntitle: Snow on the roofs\n---\nCold.\n")
            try harness.directory.write("inbox/second.md", "---\ntitle: A walk by the river\n---\nMild.\n")
            // A debug build's knob: the page may be written again a second after the last, not a minute.
            let daemon = try await harness.startDaemon(environment: ["WEATHERTAG_TEST_PAGE_INTERVAL": "1"])

            // Written once the start has settled, with both entries, stamped.
            let first = try await poll("the page written with both entries", timeout: .seconds(30)) { () -> String? in
                guard let html = try? String(contentsOfFile: page, encoding: .utf8),
                    html.contains("A walk by the river"), html.contains("Snow on the roofs"),
                    html.components(separatedBy: "class=\"temperature\"").count > 2
                else { return nil }
                return html
            }
            #expect(first.contains("<title>Kept current</title>"))
            let status = try await poll("status tells of the page", timeout: .seconds(10)) { () -> [String: Any]? in
                let timeline = try daemon.get("/v1/status").json["timeline"] as? [String: Any]
                return timeline?["written_at"] is String && timeline?["entries"] as? Int == 2 ? timeline : nil
            }
            #expect(status["path"] as? String == page)
            #expect(status["last_error"] is NSNull)

            // A new entry is stamped: the page is written again, and Chromium shows it in its month.
            try harness.directory.write("inbox/third.md", "---\ntitle: Rain on the window\n---\nWet.\n")
            try await poll("the page written again with the new entry", timeout: .seconds(30)) { () -> Bool? in
                let html = try? String(contentsOfFile: page, encoding: .utf8)
                return html?.contains("Rain on the window") == true ? true : nil
            }
            let dom = try await Self.dom(page, harness)
            #expect(dom.contains("Rain on the window") && dom.contains("Snow on the roofs"))
            #expect(dom.contains("3 entries"), "\(dom.prefix(2000))")
            // No temporary file is left beside the page.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: harness.directory.file("site")) == ["diary.html"])

            let text = try await DiaryTests.cli(["status"], harness)
            #expect(text.stdout.contains("timeline") && text.stdout.contains(page), "\(text.stdout)")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// A page that cannot be written (its folder gone) is logged, said in `status`, and tried again; stamping goes
    /// on, and the page is written once the folder is back.
    @Test func aPageThatCannotBeWrittenStopsNothing() async throws {
        try await withHarness { harness in
            let folder = harness.directory.file("site")
            let page = folder + "/diary.html"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try harness.writeConfig(providers: Self.fixed, extra: #", "timeline": {"output": "site/diary.html"}"#)
            try harness.directory.write("inbox/first.md", "---\ntitle: Fog\n---\nGrey.\n")
            let daemon = try await harness.startDaemon(environment: ["WEATHERTAG_TEST_PAGE_INTERVAL": "1"])
            try await poll("the first page", timeout: .seconds(30)) { () -> Bool? in
                (try? String(contentsOfFile: page, encoding: .utf8))?.contains("Fog") == true ? true : nil
            }
            // The folder goes (a USB stick pulled, a sync tool's rename): the next write fails.
            try FileManager.default.removeItem(atPath: folder)
            try harness.directory.write("inbox/second.md", "---\ntitle: Hail\n---\nLoud.\n")
            let failed = try await poll("status says why the page is not written", timeout: .seconds(30)) {
                () -> String? in
                let timeline = try daemon.get("/v1/status").json["timeline"] as? [String: Any]
                return timeline?["last_error"] as? String
            }
            #expect(failed.contains("site"), "\(failed)")
            // Stamping went on.
            try await poll("the entry stamped", timeout: .seconds(30)) { () -> Bool? in
                let text = try? String(contentsOfFile: harness.entryPath("second.md"), encoding: .utf8)
                return text?.contains("weather:") == true ? true : nil
            }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try await poll("the page written once its folder is back", timeout: .seconds(30)) { () -> Bool? in
                (try? String(contentsOfFile: page, encoding: .utf8))?.contains("Hail") == true ? true : nil
            }
            let timeline = try daemon.get("/v1/status").json["timeline"] as? [String: Any]
            #expect(timeline?["last_error"] is NSNull)
            #expect(try await daemon.stop() == 0)
        }
    }
}
