import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// A diary written on a phone and synced: the sync tools' conflict copies are left alone, never listed as entries,
/// and shown in the `conflict` lane; a file a sync tool is still bringing in waits for it.
@Suite("Synced diaries")
struct SyncedDiaryTests {
    static let fixed = #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#

    static func conflicts(_ daemon: DaemonProcess) throws -> [[String: Any]] {
        try daemon.get("/v1/status").json["conflicts"] as? [[String: Any]] ?? []
    }

    @Test func conflictCopiesAreLeftAloneNotListedAndShownInTheirLane() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let copies = [
                "walk.sync-conflict-20261124-101010-ABCDEFG.md",  // Syncthing
                "walk (conflicted copy 2026-11-24 101010).md",  // Nextcloud
                "walk (Case Conflict).md",  // Dropbox
            ]
            try harness.dropByRename("walk.md", "A walk by the river\n")
            for copy in copies { try harness.dropByRename(copy, "A walk by the river, and tea after\n") }
            let daemon = try await harness.startDaemon()
            _ = try await harness.waitForStamp("walk.md")

            // Shown in the conflict lane, each with its entry and the remedy; listed once as an entry.
            let shown = try await poll("three conflicts in /v1/status", timeout: .seconds(20)) {
                let conflicts = try Self.conflicts(daemon)
                return conflicts.count == 3 ? conflicts : nil
            }
            #expect(Set(shown.compactMap { $0["path"] as? String }) == Set(copies))
            for conflict in shown {
                #expect(conflict["entry"] as? String == "walk.md", "\(conflict)")
                #expect(conflict["remedy"] as? String == "merge it into walk.md and delete it")
            }
            #expect(
                Set(shown.compactMap { $0["tool"] as? String }) == ["Syncthing", "Nextcloud or ownCloud", "Dropbox"])
            let listed = try await poll("walk.md stamped in the index", timeout: .seconds(20)) {
                () -> [String]? in
                let paths = try DiaryTests.paths(daemon)
                let lane = try DiaryTests.entry(daemon, "walk.md")?["lane"] as? String
                return paths.contains("walk.md") && lane == "stamped" ? paths : nil
            }
            #expect(listed == ["walk.md"])
            let status = try await DiaryTests.cli(["status"], harness)
            #expect(status.stdout.contains("3 sync conflicts, left as they are"), "\(status.stdout)")
            #expect(
                status.stdout.contains(
                    "walk (Case Conflict).md (Dropbox): merge it into walk.md and delete it"),
                "\(status.stdout)")

            // `why` explains a copy as what it is (it used to say "not in the diary index … or not seen yet").
            let why = try await DiaryTests.cli(["why", harness.entryPath(copies[1])], harness)
            #expect(why.status == 66, "not an entry")
            #expect(
                why.stdout.contains(
                    "is not an entry: a Nextcloud or ownCloud conflict copy of walk.md, never stamped: "
                        + "merge it into walk.md and delete it"), "\(why.stdout) \(why.stderr)")

            // waybar's tooltip says so, and the module gets a class for it.
            let waybar = try await DiaryTests.cli(["tag", "--waybar"], harness)
            let module = try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any]
            #expect((module?["tooltip"] as? String)?.hasSuffix("\n3 sync conflicts (weathertag status)") == true)
            #expect((module?["class"] as? [String])?.contains("sync-conflict") == true, "\(waybar.stdout)")

            // A copy arriving while the daemon runs joins the lane, untouched; a deleted one leaves it.
            try harness.dropInPlace("walk (Case Conflict 1).md", "Tea\n")
            #expect(unlink(harness.entryPath(copies[0])) == 0)
            try await poll("the lane follows the copies", timeout: .seconds(20)) {
                Set(try Self.conflicts(daemon).compactMap { $0["path"] as? String })
                    == ["walk (Case Conflict 1).md", copies[1], copies[2]] ? true : nil
            }
            // The daemon has seen every copy (each is in the lane) and stamped none: not a byte changed.
            #expect(harness.read("walk (Case Conflict 1).md") == "Tea\n")
            for copy in copies.dropFirst() { #expect(harness.read(copy) == "A walk by the river, and tea after\n") }
            #expect(try DiaryTests.paths(daemon) == ["walk.md"])
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func aMergedEntryKeepsItsBlockAndTheMemoryFollowsIt() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("merge.md", "Morning\n")
            _ = try await harness.waitForStamp("merge.md")
            // The author merges the conflict copy in, keeping the copy's block (another moment's weather).
            let merged = """
                ---
                weather:
                  condition: Rain
                  description: light rain
                  temperature: 5.5
                  units: metric
                  observed_at: 2026-11-24T07:10:00Z
                ---
                Morning
                And the evening, from the phone.

                """
            try harness.directory.write("inbox/.merge.md.part", merged)
            #expect(rename(harness.entryPath(".merge.md.part"), harness.entryPath("merge.md")) == 0)
            let remembered = try await poll("the memory follows the entry's block", timeout: .seconds(20)) {
                () -> [String]? in
                let block = try DiaryTests.entry(daemon, "merge.md")?["block"] as? [String] ?? []
                return block.contains { $0.contains("temperature: 5.5") } ? block : nil
            }
            #expect(!remembered.contains { $0.contains("temperature: 12.3") })
            // No second stamp: the entry is as the author left it, found stamped.
            #expect(harness.read("merge.md") == merged)
            // Counted once its batch is reported, which comes after the memory is told: waited for.
            let counts = try await poll("the merged entry counted as found stamped") { () -> [String: Any]? in
                let counts = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return counts?["already_stamped"] as? Int == 1 ? counts : nil
            }
            #expect(counts["stamped"] as? Int == 1, "\(counts)")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func anEntryASyncToolIsBringingInWaitsForIt() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.fixed)
            let daemon = try await harness.startDaemon()
            // Syncthing writes the new version to .syncthing.NAME.tmp and renames it over NAME when complete.
            try harness.directory.write("inbox/.syncthing.train.md.tmp", "A longer ver")
            try harness.dropInPlace("train.md", "A short version\n")
            let entry = try await poll("train.md waits for Syncthing", timeout: .seconds(20)) {
                try DiaryTests.entry(daemon, "train.md").flatMap {
                    $0["reason"] as? String == "syncing" ? $0 : nil
                }
            }
            #expect(entry["detail"] as? String == ".syncthing.train.md.tmp")
            #expect(harness.read("train.md") == "A short version\n")
            try harness.directory.write("inbox/.syncthing.train.md.tmp", "A longer version\n")
            #expect(rename(harness.entryPath(".syncthing.train.md.tmp"), harness.entryPath("train.md")) == 0)
            _ = try await harness.waitForStamp("train.md")
            let stamped = harness.read("train.md")
            #expect(stamped.hasSuffix("A longer version\n") && !stamped.contains("A short version"), "\(stamped)")
            #expect(try await daemon.stop() == 0)
        }
    }
}
