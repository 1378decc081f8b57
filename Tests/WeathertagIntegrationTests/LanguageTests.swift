import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The real binary in the reader's language: the command line follows `LANGUAGE`, `LC_ALL`, `LC_MESSAGES` and
/// `LANG` from the catalogs shipped beside it (`.build/locale`, as `make setup` compiles them), the page follows
/// `timeline.lang`, and machine output stays as it is.
@Suite("The reader's language", .serialized)
struct LanguageTests {
    static func run(_ arguments: [String], _ harness: Harness, _ language: [String: String]) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        for variable in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] { environment[variable] = nil }
        environment.merge(language) { $1 }
        let result = try await ChildProcess.run(
            [DaemonProcess.binary] + arguments + ["--config", harness.directory.file("config.json")],
            environment: environment, in: harness.directory)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    @Test func everyCommandSpeaksTheReadersLanguageAndMachinesStillReadEnglish() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: DiaryTests.fixed, extra: #", "timeline": {"lang": "ko", "title": "일기"}"#)
            try harness.directory.write("inbox/walk.md", "# 산책\n\n한강을 따라 걸었다.\n")
            try harness.directory.write("inbox/old.md", "---\ndate: 2025-01-05\n---\n오래전의 비.\n")
            try harness.directory.write("inbox/template.md", "# {{date}}\n\n오늘의 일기\n")
            let daemon = try await harness.startDaemon()
            _ = try await harness.waitForStamp("walk.md")
            try await poll("all three entries indexed", timeout: .seconds(20)) {
                try DiaryTests.paths(daemon).count == 3 ? true : nil
            }

            // Korean from LANG, a Korean that is not installed as a locale needing nothing more.
            let korean = try await Self.run(["status"], harness, ["LANG": "ko_KR.UTF-8"])
            #expect(korean.contains("기록됨 1") && korean.contains("지난 날짜 1"), "\(korean)")
            #expect(korean.contains("상태별") && !korean.contains(" stamped"), "\(korean)")
            // LANGUAGE first, as GNU programs have it, under any locale but C.
            let japanese = try await Self.run(["why", "walk.md"], harness, ["LANG": "C.UTF-8", "LANGUAGE": "ja:de"])
            #expect(japanese.contains("walk.md (記録済み): 天気は記録済みです。"), "\(japanese)")
            #expect(japanese.contains("何もしなくて大丈夫です。"), "\(japanese)")
            let german = try await Self.run(["entries"], harness, ["LC_MESSAGES": "de_DE.UTF-8", "LANG": "C.UTF-8"])
            #expect(german.contains("Der Eintrag ist rückdatiert und bleibt ohne Wetter"), "\(german)")
            // Why it is where it is, what exactly, and what would change it: all in the reader's words, the diary's
            // own text ({{date}}) as it is.
            let template = try await Self.run(["why", "template.md"], harness, ["LANG": "ko_KR.UTF-8"])
            #expect(
                template.contains(
                    "template.md (그대로 둠): 그대로 두었습니다: 템플릿입니다: {{date}}이(가) 들어 있는데, 템플릿 플러그인이 "
                        + "노트를 만들 때 채우는 자리입니다."), "\(template)")
            #expect(template.contains("할 일 없음: 템플릿에는 날씨를 기록하지 않습니다."), "\(template)")
            // Under C, English, whatever LANGUAGE says.
            let english = try await Self.run(["why", "walk.md"], harness, ["LC_ALL": "C", "LANGUAGE": "ko"])
            #expect(english.hasPrefix("walk.md (stamped): It is stamped."), "\(english)")

            // Machine output never changes with the language.
            let json = try await Self.run(["entries", "--json"], harness, ["LANG": "ko_KR.UTF-8"])
            let plain = try await Self.run(["entries", "--json"], harness, ["LANG": "C.UTF-8"])
            #expect(json == plain && json.contains("\"why\":\"It is stamped.\""), "\(json)")

            // The page follows timeline.lang, whatever the reader's language.
            _ = try await Self.run(
                ["timeline", "--output", harness.directory.file("page.html")], harness, ["LANG": "fr_FR.UTF-8"])
            let page = try String(contentsOfFile: harness.directory.file("page.html"), encoding: .utf8)
            #expect(page.contains("일기 3편") && page.contains("지난 날짜의 일기라서 날씨 없이 두었습니다"), "page in Korean")
            #expect(!page.contains("3 entries") && !page.contains("Made by weathertag"))
        }
    }
}
