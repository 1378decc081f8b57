import Testing
import WeathertagCore

/// Sync tools' conflict copies and temp files, named as each tool's documentation names them.
@Suite("sync tools' conflict copies")
struct SyncConflictTests {
    @Test(arguments: [
        // Syncthing: NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.ext, DEVICE the device ID's first 7 characters.
        ("2026-11-24.sync-conflict-20261124-101010-ABCDEFG.md", "2026-11-24.md", SyncConflict.Tool.syncthing),
        ("notes.v2.sync-conflict-20261124-101010-7QXJ2LM.markdown", "notes.v2.markdown", .syncthing),
        // Nextcloud and ownCloud ≥ 2.5: NAME (conflicted copy YYYY-MM-DD HHMMSS).ext.
        ("2026-11-24 (conflicted copy 2026-11-24 101010).md", "2026-11-24.md", .nextcloud),
        // ownCloud before 2.5: NAME_conflict-YYYYMMDD-HHMMSS.ext.
        ("2026-11-24_conflict-20261124-101010.md", "2026-11-24.md", .owncloud),
        // Dropbox: NAME (USER's conflicted copy YYYY-MM-DD).ext, a second one that day with (1); case conflicts.
        ("2026-11-24 (Mina's conflicted copy 2026-11-24).md", "2026-11-24.md", .dropbox),
        ("2026-11-24 (Mina's conflicted copy 2026-11-24) (1).md", "2026-11-24.md", .dropbox),
        ("2026-11-24 (Case Conflict).md", "2026-11-24.md", .dropbox),
        ("2026-11-24 (Case Conflict 1).md", "2026-11-24.md", .dropbox),
        // Resilio Sync: NAME.Conflict.ext, NAME.Conflict1.ext.
        ("2026-11-24.Conflict.md", "2026-11-24.md", .resilio),
        ("2026-11-24.Conflict2.md", "2026-11-24.md", .resilio),
        ("trip/day one.Conflict 3.md", "trip/day one.md", .resilio),
    ])
    func aConflictCopyNamesItsEntryAndTool(copy: String, entry: String, tool: SyncConflict.Tool) throws {
        let name = String(copy.split(separator: "/").last!)
        let conflict = try #require(SyncConflict.recognize(name), "\(copy)")
        #expect(conflict.entry == String(entry.split(separator: "/").last!))
        #expect(conflict.tool == tool)
        #expect(conflict.remedy == "merge it into \(conflict.entry) and delete it")
        // Never stamped, never an entry; still Markdown, so the inbox can show it.
        #expect(!InboxFilter.isCandidate(name))
        #expect(InboxFilter.isMarkdown(name))
    }

    @Test(arguments: [
        "2026-11-24.md", "conflict.md", "On conflict (and how to end one).md", "sync-conflict notes.md",
        "2026-11-24 (copy).md", "2026-11-24.sync-conflict-20261124-101010-ABCDEFG.txt",
        ".2026-11-24.sync-conflict-20261124-101010-ABCDEFG.md", "Conflict.md", "a (conflicted copy).md",
    ])
    func otherNamesAreNotConflicts(name: String) {
        #expect(SyncConflict.recognize(name) == nil, "\(name)")
    }

    @Test func syncToolsBringingAVersionHoldTheEntry() throws {
        // Syncthing writes .syncthing.NAME.tmp and renames it over NAME when complete.
        let syncthing = try #require(EditorLock.holding("2026-11-24.md", among: [".syncthing.2026-11-24.md.tmp"]))
        #expect(syncthing.editor == "Syncthing")
        #expect(EditorLock.entry(forLockFile: ".syncthing.2026-11-24.md.tmp") == "2026-11-24.md")
        // Nextcloud and ownCloud download to .NAME.~XXXX.
        let nextcloud = try #require(EditorLock.holding("2026-11-24.md", among: [".2026-11-24.md.~5f3a"]))
        #expect(nextcloud.file == ".2026-11-24.md.~5f3a" && nextcloud.editor == "Nextcloud or ownCloud")
        #expect(EditorLock.entry(forLockFile: ".2026-11-24.md.~5f3a") == "2026-11-24.md")
        #expect(EditorLock.holding("2026-11-24.md", among: [".~2026-11-24.md"])?.isSyncTool == true)
        #expect(EditorLock.entry(forLockFile: ".~2026-11-24.md") == "2026-11-24.md")
        // LibreOffice's lock is still LibreOffice's.
        #expect(EditorLock.entry(forLockFile: ".~lock.2026-11-24.md#") == "2026-11-24.md")
        #expect(EditorLock.holding("2026-11-24.md", among: [".~lock.2026-11-24.md#"])?.editor == "LibreOffice")
        // Another entry's temp file holds nothing; neither does a tool's folder.
        #expect(
            EditorLock.holding("2026-11-25.md", among: [".syncthing.2026-11-24.md.tmp", ".2026-11-24.md.~5f3a"]) == nil)
        #expect(EditorLock.holding("2026-11-24.md", among: [".stfolder", ".stversions", ".dropbox.cache"]) == nil)
    }

    @Test func theInboxNamesACopyAndItsEntryByTheirPaths() throws {
        let tree = InboxTree(excludes: ["drafts/"])
        let conflict = try #require(tree.conflict("2026/11/24.sync-conflict-20261124-101010-ABCDEFG.md"))
        #expect(conflict.copy == "2026/11/24.sync-conflict-20261124-101010-ABCDEFG.md")
        #expect(conflict.entry == "2026/11/24.md")
        #expect(conflict.remedy == "merge it into 2026/11/24.md and delete it")
        // Where no entry could be, there is no conflict to show.
        #expect(tree.conflict("drafts/24 (Case Conflict).md") == nil)
        #expect(tree.conflict(".stversions/24 (Case Conflict).md") == nil)
        #expect(tree.conflict("2026/11/24.md") == nil)
    }

    @Test func theToolsFoldersAreNotFollowed() {
        let tree = InboxTree()
        for folder in [".stfolder", ".stversions", ".dropbox.cache", ".sync", ".stversions/2026"] {
            #expect(!tree.follows(folder: folder), "\(folder)")
            #expect(!tree.isEntry(folder + "/2026-11-24.md"), "\(folder)")
        }
    }
}
