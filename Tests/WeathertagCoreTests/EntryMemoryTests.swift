import Foundation
import Testing
import WeathertagCore

/// What is remembered of a stamp, and when it is given back: pure, no files.
@Suite("the memory of stamps")
struct EntryMemoryTests {
    static let block = ["weather:", "  condition: Rain", "  temperature: 3.5", "  observed_at: 2026-11-23T09:00:00Z"]

    @Test func theBlockIsReadBackAsItStandsInTheFile() {
        let file = """
            ---
            title: Monday
            weather:
              condition: Rain   # as the author left it
              temperature: 3.5

              observed_at: 2026-11-23T09:00:00Z
            # a comment after the block is not part of it
            tags: [walk]
            ---
            Body with weather: in it
            """
        #expect(
            FrontMatterStamper.weatherBlock(Array(file.utf8)) == [
                "weather:", "  condition: Rain   # as the author left it", "  temperature: 3.5", "",
                "  observed_at: 2026-11-23T09:00:00Z",
            ])
        // CRLF files: the lines without their ends.
        let crlf = "---\r\nweather:\r\n  condition: Rain\r\n---\r\nBody\r\n"
        #expect(FrontMatterStamper.weatherBlock(Array(crlf.utf8)) == ["weather:", "  condition: Rain"])
        // No mapping: nothing to remember.
        for text in ["No front matter\n", "---\ntitle: x\n---\n", "---\nweather:\n---\n", "---\nweather: sunny\n---\n"]
        {
            #expect(FrontMatterStamper.weatherBlock(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func aRememberedBlockGoesBackByteForByteWhereverTheStamperPutsBlocks() throws {
        let original = Array("---\ntitle: Monday\n---\nDear diary\n".utf8)
        guard case .stamped(let stamped) = FrontMatterStamper.stamp(original, lines: Self.block) else {
            Issue.record("not stamped")
            return
        }
        let remembered = try #require(FrontMatterStamper.weatherBlock(stamped))
        #expect(remembered == Self.block)
        // The same block into the same original gives the same bytes.
        #expect(FrontMatterStamper.stamp(original, lines: remembered) == .stamped(stamped))
    }

    @Test func freshReplacesTheBlockAndKeepsEveryOtherByte() {
        let file = "---\ntitle: Monday\nweather:\n  condition: Rain\n  temperature: 3.5\ntags: [a]\n---\nBody\n"
        let new = ["weather:", "  condition: Snow"]
        #expect(FrontMatterStamper.stamp(Array(file.utf8), lines: new) == .alreadyStamped)
        #expect(
            FrontMatterStamper.stamp(Array(file.utf8), lines: new, replacing: true)
                == .stamped(Array("---\ntitle: Monday\nweather:\n  condition: Snow\ntags: [a]\n---\nBody\n".utf8)))
        // Without a block, replacing is an ordinary stamp.
        #expect(
            FrontMatterStamper.stamp(Array("Body\n".utf8), lines: new, replacing: true)
                == .stamped(Array("---\nweather:\n  condition: Snow\n---\nBody\n".utf8)))
    }

    @Test func aRemovedEntryIsRememberedForItsGraceTimeOnly() {
        let policy = RestorePolicy(forgetAfter: 600)
        let now = Date(timeIntervalSince1970: 1_795_431_600)
        let present = RememberedStamp(block: Self.block)
        #expect(policy.block(for: present, now: now) == Self.block)
        #expect(policy.block(for: present, now: now, fresh: true) == nil, "fresh: new weather on purpose")
        #expect(policy.block(for: nil, now: now) == nil)
        // git and tar delete and write again at once: still the same entry.
        let justRemoved = RememberedStamp(block: Self.block, removedAt: now.addingTimeInterval(-599))
        #expect(policy.block(for: justRemoved, now: now) == Self.block)
        // Back after the grace: a new entry, new weather.
        let longGone = RememberedStamp(block: Self.block, removedAt: now.addingTimeInterval(-600))
        #expect(policy.block(for: longGone, now: now) == nil)
        #expect(policy.forgottenBefore(now) == now.addingTimeInterval(-600))
    }

    @Test func movesMeanRenamesRemovalsOrNothing() {
        let tree = InboxTree(excludes: ["drafts/"])
        func move(_ from: String?, _ to: String?, folder: Bool = false) -> PathChange? {
            PathChange.move(from: from, to: to, isFolder: folder, tree: tree)
        }
        #expect(move("a.md", "2026/a.md") == .renamed(from: "a.md", to: "2026/a.md"))
        #expect(move("2026", "2027", folder: true) == .renamed(from: "2026", to: "2027"))
        // rsync's and editors' temp file renamed over the entry: the entry's memory stays as it is.
        #expect(move(".a.md.Xy12ab", "a.md") == nil)
        // vim's backup rename, a move out, into a hidden or excluded folder: the entry has left.
        #expect(move("a.md", "a.md~") == .removed("a.md"))
        #expect(move("a.md", nil) == .removed("a.md"))
        #expect(move("2026", ".trash", folder: true) == .removed("2026"))
        #expect(move("2026", "drafts", folder: true) == .removed("2026"))
        #expect(move(nil, "a.md") == nil, "moved in: the arrival reads it")
        // Paths below a renamed folder follow it; others do not.
        #expect(PathChange.renamed("2026/11/23.md", from: "2026", to: "2027") == "2027/11/23.md")
        #expect(PathChange.renamed("20260/x.md", from: "2026", to: "2027") == nil)
        #expect(PathChange.renamed("2026", from: "2026", to: "2027") == "2027")
    }
}
