import Testing
import WeathertagCore

@Suite("inbox folders")
struct InboxTreeTests {
    @Test func foldersAreFollowedUnlessHiddenTooDeepOrFlat() {
        let tree = InboxTree()
        #expect(tree.follows(folder: "2026/11"))
        #expect(tree.isEntry("2026/11/23.md") && tree.isEntry("23.md"))
        for hidden in [".git", ".obsidian/plugins", ".trash", "2026/.stversions"] {
            #expect(!tree.follows(folder: hidden), "\(hidden)")
            #expect(!tree.isEntry(hidden + "/x.md"), "\(hidden)")
        }
        #expect(!tree.isEntry("2026/.23.md.swp") && !tree.isEntry("2026/23.md~"))
        #expect(tree.follows(folder: "1/2/3/4/5/6/7/8") && !tree.follows(folder: "1/2/3/4/5/6/7/8/9"))
        #expect(!tree.isEntry("1/2/3/4/5/6/7/8/9/deep.md"))
        let flat = InboxTree(recursive: false)
        #expect(!flat.follows(folder: "2026") && !flat.isEntry("2026/x.md") && flat.isEntry("x.md"))
        #expect(!InboxTree(maximumDepth: 1).isEntry("a/b/c.md") && InboxTree(maximumDepth: 1).isEntry("a/c.md"))
    }

    @Test func excludePatternsReadLikeGitignore() {
        let tree = InboxTree(excludes: [
            "drafts/", "*.private.md", "/archive", "2019/*", "templates/**", "**/scratch/*.md", "# a comment", "",
        ])
        #expect(tree.excludes.count == 6)
        // A folder named drafts anywhere, and all below it.
        #expect(!tree.follows(folder: "drafts") && !tree.follows(folder: "2026/drafts/old"))
        #expect(!tree.isEntry("2026/drafts/x.md"))
        // A name anywhere.
        #expect(!tree.isEntry("secret.private.md") && !tree.isEntry("2026/11/me.private.md"))
        #expect(tree.isEntry("2026/11/public.md"))
        // Anchored at the inbox.
        #expect(!tree.follows(folder: "archive") && tree.follows(folder: "2026/archive"))
        #expect(!tree.isEntry("2019/05-01.md") && tree.isEntry("2020/2019/05-01.md"))
        // ** for any folders.
        #expect(!tree.isEntry("templates/daily.md") && !tree.isEntry("templates/a/b/c.md"))
        #expect(!tree.isEntry("scratch/x.md") && !tree.isEntry("2026/scratch/x.md") && tree.isEntry("2026/x.md"))
        // drafts/ is for folders: a file named drafts.md stays an entry.
        #expect(tree.isEntry("drafts.md"))
    }

    @Test func pathsSplitAndJoin() {
        #expect(InboxTree.split("2026/11/23.md") == ("2026/11", "23.md"))
        #expect(InboxTree.split("23.md") == ("", "23.md"))
        #expect(InboxTree.join("", "23.md") == "23.md" && InboxTree.join("2026", "23.md") == "2026/23.md")
    }
}

/// How often the inbox is rescanned besides inotify: the configuration's word, else the filesystem's kind.
@Suite("inbox polling")
struct InboxPollingTests {
    @Test func theConfiguredIntervalElseThirtySecondsOnARemoteFilesystem() {
        var inbox = InboxConfiguration(path: "/diary")
        #expect(inbox.pollInterval(isRemote: false) == nil)
        #expect(inbox.pollInterval(isRemote: true) == .seconds(30))
        inbox.pollInterval = .zero
        #expect(inbox.pollInterval(isRemote: true) == nil, "0 turns polling off, even on NFS")
        inbox.pollInterval = .seconds(5)
        #expect(inbox.pollInterval(isRemote: false) == .seconds(5))
    }

}

/// `why` explains every file of the inbox, not only entries: what it is and whose it is.
@Suite("files of the inbox that are not entries")
struct InboxNonEntryTests {
    @Test(arguments: [
        ("2026/11/today.sync-conflict-20261123-101010-ABCDEF1.md", "Syncthing conflict copy of 2026/11/today.md"),
        ("today (conflicted copy 2026-11-23 101010).md", "conflict copy of today.md"),
        (".today.md.swp", "vim or nano's lock or swap file for today.md"),
        ("2026/.#today.md", "emacs's lock or swap file for 2026/today.md"),
        (".syncthing.today.md.tmp", "Syncthing's temp file for today.md"),
        ("today.md~", "a temporary name"),
        (".obsidian/notes.md", "in the hidden folder .obsidian"),
        ("drafts/idea.md", "in a folder inbox.exclude leaves out ('drafts/')"),
        ("secret.private.md", "left out by inbox.exclude ('*.private.md')"),
        (".hidden.md", "a hidden file"),
        ("photo.jpg", "not Markdown"),
        ("a/b/c/d/deep.md", "deeper than inbox.max_depth (3 folders)"),
    ])
    func everyFileOfTheInboxIsExplained(path: String, words: String) throws {
        let tree = InboxTree(maximumDepth: 3, excludes: ["drafts/", "*.private.md"])
        let what = try #require(tree.explain(path), "\(path)")
        #expect(what.contains(words), "\(path): \(what)")
        #expect(tree.explain("2026/11/today.md") == nil, "an entry")
        #expect(InboxTree(recursive: false).explain("2026/x.md")?.contains("inbox.recursive is off") == true)
    }
}
