import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// A notes app's vault, as its own settings lay it out (`VaultLayout`), read from real vaults' settings
/// (`Recorded/Vaults/PROVENANCE.md`): which folders hold its entries, which its templates, and what the inbox's
/// tree makes of it.
@Suite("a vault's layout")
struct VaultLayoutTests {
    static let vaults = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Recorded/Vaults").path

    /// The recorded vault `name` as configuration files under `root` (every file and folder of it).
    static func files(_ name: String, at root: String = "/home/me/Vault") throws -> MemoryConfigurationFiles {
        let source = Self.vaults + "/" + name
        var files = MemoryConfigurationFiles(folders: [root])
        let walker = try #require(FileManager.default.enumerator(atPath: source))
        for case let path as String in walker {
            var folder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: source + "/" + path, isDirectory: &folder)
            if folder.boolValue {
                files.folders.insert(root + "/" + path)
            } else {
                let text = try String(contentsOfFile: source + "/" + path, encoding: .utf8)
                files.files[root + "/" + path] = (text, 0o644)
            }
        }
        return files
    }

    static func places(_ places: [VaultLayout.Place]) -> [String] { places.map(\.path) }

    @Test func aJournalVaultWithTemplaterAndPeriodicNotes() throws {
        let files = try Self.files("journal-templater")
        let vault = try #require(VaultLayout.read(inbox: "/home/me/Vault", files: files))
        #expect(vault.app == .obsidian && vault.inboxIsRoot && vault.problems.isEmpty)
        // Daily notes and Periodic Notes agree on Journal/: one folder, said by the first setting.
        #expect(Self.places(vault.entries) == ["Journal"])
        #expect(vault.entries[0].setting == "Daily notes, .obsidian/daily-notes.json")
        // The core plugin's and Templater's folder; the templates named one by one are in it.
        #expect(Self.places(vault.templateFolders) == ["Templates"])
        #expect(vault.templateFiles.isEmpty, "\(vault.templateFiles)")
        #expect(
            vault.summary(entriesAreAll: false)
                == "the inbox is an Obsidian vault: entries are Journal/ (Daily notes, .obsidian/daily-notes.json); "
                + "templates in Templates/ (Templates, .obsidian/templates.json) are never stamped")

        let tree = InboxTree(vault: vault)
        #expect(tree.isEntry("Journal/2022/W28/2022-07-12.md") && tree.isEntry("Journal/2022/2022-07.md"))
        #expect(tree.isEntry("Templates/Daily.md"), "a template is listed, to be left alone")
        #expect(tree.template("Templates/Daily.md") == .folder(vault.templateFolders[0]))
        #expect(tree.template("Journal/2022/W28/2022-07-12.md") == nil)
        // The vault's other notes are no entries, and their folders are not followed.
        #expect(!tree.isEntry("README.md") && !tree.isEntry("Projects/plan.md") && !tree.follows(folder: "Projects"))
        #expect(tree.follows(folder: "Journal/2022/W28") && tree.follows(folder: "Templates"))
        #expect(tree.explain("README.md")?.contains("not one of the diary's entries") == true)
        #expect(tree.explain("README.md")?.contains("Journal/") == true)
        #expect(tree.newEntriesFolder == "Journal")
        // inbox.entries: all: every note, templates still known.
        let all = InboxTree(vault: vault, entries: .all)
        #expect(
            all.isEntry("README.md") && all.isEntry("Projects/plan.md") && all.template("Templates/Daily.md") != nil)
        #expect(all.newEntriesFolder == "")
    }

    @Test func periodicNotesWithTemplaterLeftUnset() throws {
        let vault = try #require(VaultLayout.read(inbox: "/v", files: try Self.files("periodic-sample", at: "/v")))
        // Quarterly was never turned on (no `enabled`): not a folder of entries.
        #expect(
            Self.places(vault.entries) == ["Periodic/Daily", "Periodic/Weekly", "Periodic/Monthly", "Periodic/Yearly"])
        // Templater's empty folder and empty folder template are no place.
        #expect(vault.templateFolders.isEmpty)
        #expect(
            Self.places(vault.templateFiles) == [
                "Templates/Daily.md", "Templates/Weekly.md", "Templates/Monthly.md", "Templates/Yearly.md",
            ])
        let tree = InboxTree(vault: vault)
        #expect(tree.isEntry("Periodic/Daily/2022-01-03.md") && tree.isEntry("Templates/Daily.md"))
        #expect(!tree.isEntry("README.md") && !tree.isEntry("Templates/Other.md"))
        #expect(tree.follows(folder: "Templates") && tree.follows(folder: "Periodic"))
        #expect(tree.template("Templates/Daily.md")?.description.contains("Periodic Notes") == true)
    }

    @Test func journalsWhoseFoldersHoldDates() throws {
        let vault = try #require(VaultLayout.read(inbox: "/v", files: try Self.files("journals-plugin", at: "/v")))
        #expect(
            Self.places(vault.entries) == [
                "Journal/01 Daily", "Journal/02 Weekly", "Journal/03 Monthly", "Journal/04 Quarterly",
                "Journal/05 Yearly",
            ])
        #expect(vault.templateFiles.first?.path == "Templates/Daily Note Template.md")
        let tree = InboxTree(vault: vault)
        #expect(tree.isEntry("Journal/01 Daily/2026/03/2026-03-16.md") && !tree.isEntry("Notes/关于学习方法.md"))
    }

    @Test func aLogseqGraphAsLogseqWritesIt() throws {
        let vault = try #require(VaultLayout.read(inbox: "/g", files: try Self.files("logseq-default", at: "/g")))
        // Its folders only in comments: the defaults, never the comments' words.
        #expect(vault.app == .logseq && Self.places(vault.entries) == ["journals"] && vault.ownFolders == ["logseq"])
        let tree = InboxTree(vault: vault)
        #expect(tree.isEntry("journals/2026_12_07.md") && !tree.isEntry("pages/Reading.md"))
        #expect(
            !tree.follows(folder: "logseq/bak") && !InboxTree(vault: vault, entries: .all).follows(folder: "logseq"))
        #expect(InboxTree(vault: vault, entries: .all).isEntry("pages/Reading.md"))
        #expect(tree.explain("logseq/bak/pages/Reading.md")?.contains("Logseq's own folder") == true)
    }

    @Test func ednSettingsAreReadPastCommentsAndNesting() {
        func read(_ text: String) -> [String: [String]] { EDNSettings(Array(text.utf8)).strings }
        let settings = read(
            #"""
            {:meta/version 1
             ;; :journals-directory "not this"
             :hidden ["/archived" "/test.md"]
             :default-queries {:journals [{:title "a \"quoted\" title" :journals-directory "nor this"}]}
             :journals-directory "Diary/Days" ; a comment after it
             :pages-directory "notes"}
            """#)
        #expect(settings[":journals-directory"] == ["Diary/Days"])
        #expect(settings[":hidden"] == ["/archived", "/test.md"])
        #expect(settings[":pages-directory"] == ["notes"])
        // Cut short, or not EDN at all: no settings, no crash.
        #expect(read("{:journals-directory \"unterminated").isEmpty)
        #expect(read(String(repeating: "[", count: 100_000)).isEmpty)
    }

    @Test func theInboxInsideAVaultAndTheDefaults() throws {
        var files = try Self.files("journal-templater")
        files.folders.insert("/home/me/Vault/Journal")
        // The inbox is the daily notes' folder, in the vault: every note of it is an entry.
        let inside = try #require(VaultLayout.read(inbox: "/home/me/Vault/Journal", files: files))
        #expect(!inside.inboxIsRoot && inside.entries.isEmpty && inside.templateFolders.isEmpty)
        #expect(InboxTree(vault: inside).isEntry("2022/W28/2022-07-12.md"))
        #expect(inside.summary(entriesAreAll: false).hasPrefix("the inbox is in an Obsidian vault (/home/me/Vault)"))
        // A vault with no settings keeps its daily notes in its root, named by their date.
        let bare = try #require(
            VaultLayout.read(inbox: "/b", files: MemoryConfigurationFiles(folders: ["/b", "/b/.obsidian"])))
        #expect(bare.entries.map(\.path) == [""])
        let tree = InboxTree(vault: bare)
        #expect(tree.isEntry("2026-12-07.md") && tree.isEntry("2026/12/2026-12-07 Market.md"))
        #expect(!tree.isEntry("Ideas.md") && tree.follows(folder: "2026"))
        // Settings that are not JSON: not followed, and said.
        var broken = MemoryConfigurationFiles(folders: ["/c", "/c/.obsidian"])
        broken.files["/c/.obsidian/daily-notes.json"] = ("{\"folder\": \"Journal\"", 0o644)
        let said = try #require(VaultLayout.read(inbox: "/c", files: broken))
        #expect(said.problems.count == 1 && said.problems[0].hasPrefix(".obsidian/daily-notes.json is not JSON"))
        #expect(said.entries.map(\.path) == [""])
        // No vault anywhere up.
        #expect(VaultLayout.read(inbox: "/d/e", files: MemoryConfigurationFiles(folders: ["/d", "/d/e"])) == nil)
        // A setting that climbs out is no place.
        var climbing = MemoryConfigurationFiles(folders: ["/f", "/f/.obsidian"])
        climbing.files["/f/.obsidian/templates.json"] = (#"{"folder": "../elsewhere"}"#, 0o644)
        #expect(try #require(VaultLayout.read(inbox: "/f", files: climbing)).templateFolders.isEmpty)
    }
}
