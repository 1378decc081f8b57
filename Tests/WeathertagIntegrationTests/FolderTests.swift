import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// A diary kept in year/month folders: watched all the way down, folders made or moved in at any moment.
@Suite("Folders", .serialized)
struct FolderTests {
    static let fixed = #"[{"type": "fixed", "latitude": 46.2, "longitude": 6.15}]"#

    static func shell(_ script: String, in harness: Harness) async throws {
        let result = try await ChildProcess.run(["/bin/sh", "-c", script], in: harness.directory)
        guard result.status == 0 else { throw TimeoutError(description: "\(script): \(result.stderr)") }
    }

    @Test func entriesInFoldersAreStampedWhereverAndWheneverTheFoldersCome() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try harness.patchConfig(
                #""path": "\#(harness.inbox)""#, #""path": "\#(harness.inbox)", "exclude": ["drafts/", "*.private.md"]"#
            )
            // There before the start: found by the first listing.
            try await Self.shell(
                "mkdir -p '\(harness.inbox)/2025/12' && echo 'Old year' > '\(harness.inbox)/2025/12/31.md'", in: harness
            )
            let daemon = try await harness.startDaemon()
            _ = try await harness.waitForStamp("2025/12/31.md")

            // Made and written in one command: the file lands before the folder can be watched.
            try await Self.shell(
                "mkdir -p '\(harness.inbox)/2026/11' && echo 'Monday' > '\(harness.inbox)/2026/11/23.md'", in: harness)
            _ = try await harness.waitForStamp("2026/11/23.md")

            // A whole tree written elsewhere, then moved in.
            let outside = harness.directory.file("trip")
            try await Self.shell(
                "mkdir -p '\(outside)/days/one' '\(outside)/days/two' && echo 'Day one' > '\(outside)/days/one/a.md' "
                    + "&& echo 'Day two' > '\(outside)/days/two/b.md' && echo 'Overview' > '\(outside)/trip.md' "
                    + "&& mv '\(outside)' '\(harness.inbox)/trip'", in: harness)
            for entry in ["trip/trip.md", "trip/days/one/a.md", "trip/days/two/b.md"] {
                _ = try await harness.waitForStamp(entry)
            }

            // A folder renamed inside the inbox keeps being watched under its new name.
            #expect(rename(harness.entryPath("trip"), harness.entryPath("journey")) == 0)
            try harness.dropByRename("journey/days/two/later.md", "Written after the rename\n")
            _ = try await harness.waitForStamp("journey/days/two/later.md")

            // Hidden folders, excluded ones and links to folders are not the diary.
            let untouched = [
                ".obsidian/workspace.md", ".git/notes.md", "2026/drafts/idea.md", "2026/11/me.private.md",
                "linked/outside.md",
            ]
            try await Self.shell(
                "mkdir -p '\(harness.inbox)/.obsidian' '\(harness.inbox)/.git' '\(harness.inbox)/2026/drafts' "
                    + "'\(harness.directory.path)/elsewhere' && ln -s '\(harness.directory.path)/elsewhere' "
                    + "'\(harness.inbox)/linked'", in: harness)
            for entry in untouched where !entry.hasPrefix("linked/") {
                try harness.dropByRename(entry, "Not an entry\n")
            }
            try harness.directory.write("elsewhere/outside.md", "Reached only through a link\n")
            // Something stamped after them shows they were passed over, not merely late.
            try await Self.shell("echo 'Tuesday' > '\(harness.inbox)/2026/11/24.md'", in: harness)
            _ = try await harness.waitForStamp("2026/11/24.md")
            for entry in untouched {
                #expect(!harness.read(entry).contains("weather:"), "\(entry) was stamped")
            }
            // Logs and the socket name entries by their path in the inbox. A stamp is in its file before it is
            // counted and logged (durable first, then told): the count is waited for.
            try await poll("seven entries counted as stamped") { () -> Bool? in
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["stamped"] as? Int == 7 ? true : nil
            }
            #expect(daemon.log.contains("entry=2026/11/23.md"))
            #expect(try await daemon.stop() == 0)
        }
    }

    /// Entries written days or years ago never get today's weather: by their front matter's date, their file
    /// name, or the modification time `rsync -a` kept.
    @Test func entriesWrittenEarlierAreLeftAloneWithTheReason() async throws {
        guard let rsync = which("rsync") else { throw TimeoutError(description: "rsync is needed (make setup)") }
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("party.md", "---\ndate: 2019-05-01\n---\nA party\n")
            try harness.dropByRename("2019-05-02.md", "The day after\n")
            let archive = try harness.directory.makeDirectory("archive")
            try harness.directory.write("archive/old.md", "From the old laptop\n")
            try await Self.shell("touch -d '2019-05-03 12:00' '\(archive)/old.md'", in: harness)
            let copied = try await ChildProcess.run(
                [rsync, "-a", archive + "/", harness.inbox + "/"], in: harness.directory)
            #expect(copied.status == 0, "\(copied.stderr)")
            try await poll("three entries back-dated") { () -> Bool? in
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["backdated"] as? Int == 3 ? true : nil
            }
            #expect(harness.read("party.md") == "---\ndate: 2019-05-01\n---\nA party\n")
            #expect(harness.read("2019-05-02.md") == "The day after\n")
            #expect(harness.read("old.md") == "From the old laptop\n")
            #expect(daemon.log.contains("written 2019-05-01 (by its front matter's date)"))
            #expect(daemon.log.contains("written 2019-05-02 (by its file name)"))
            #expect(daemon.log.contains("written 2019-05-03 12:00 (by its modification time)"))
            // Today's entry, and one dated today, are stamped.
            try harness.dropByRename("today.md", "---\ndate: \(Self.today())\n---\nToday\n")
            _ = try await harness.waitForStamp("today.md")
            #expect(try await daemon.stop() == 0)
        }
    }

    static func today() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// Out of inotify watches (its own user namespace allows the daemon 3): the error names the setting, and the
    /// folders left unwatched are found by polling.
    @Test func foldersBeyondTheWatchLimitArePolled() async throws {
        guard let unshare = which("unshare") else { throw TimeoutError(description: "unshare (util-linux) is needed") }
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            try harness.patchConfig(
                #""path": "\#(harness.inbox)""#, #""path": "\#(harness.inbox)", "poll_seconds": 0.5"#)
            for month in 1...6 { try harness.directory.makeDirectory("inbox/2026/\(month)") }
            let launcher = [
                unshare, "--user", "--map-root-user", "/bin/sh", "-c",
                #"echo 3 > /proc/sys/user/max_inotify_watches && exec "$0" "$@""#,
            ]
            let daemon = try await harness.startDaemon(launcher: launcher)
            try await poll("the error naming the setting") {
                daemon.log.contains("fs.inotify.max_user_watches is reached") ? true : nil
            }
            for month in 1...6 { try harness.dropByRename("2026/\(month)/1.md", "First of month \(month)\n") }
            for month in 1...6 { _ = try await harness.waitForStamp("2026/\(month)/1.md") }
            #expect(try await daemon.stop() == 0)
        }
    }
}
