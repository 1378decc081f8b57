import Testing

@testable import WeathertagCore

/// The crash guard's notes, read and judged without files.
@Suite struct BatchMarkerTests {
    static let version = FileVersion(
        device: 2049, inode: 77, size: 120, modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 5)

    @Test func aNoteNamesTheEntryReachedInItsOwnBoot() throws {
        let names = ["a.md", "folder/b c.md", "odd\nname.md"]
        var marker = BatchMarker(boot: "boot-1", names: names)
        var bytes = marker.bytes
        #expect(BatchMarker(bytes) == marker)
        #expect(BatchMarker(bytes)?.suspect(currentBoot: "boot-1") == nil, "no entry reached yet")
        // The field written over in place, as the daemon does per entry.
        let field = BatchMarker.field(2)
        bytes.replaceSubrange(marker.reachedOffset..<(marker.reachedOffset + field.count), with: field)
        marker.reached = 2
        let read = try #require(BatchMarker(bytes))
        #expect(read == marker)
        #expect(read.stopped(currentBoot: "boot-1") == "odd\nname.md")
        #expect(read.suspect(currentBoot: "boot-1") == nil, "a kill from outside blames no file")
        // The signal handler's byte: a fault of the daemon's own.
        bytes[marker.crashedOffset] = BatchMarker.crashFlag
        marker.crashed = true
        let crashed = try #require(BatchMarker(bytes))
        #expect(crashed == marker)
        #expect(crashed.suspect(currentBoot: "boot-1") == "odd\nname.md")
        #expect(crashed.suspect(currentBoot: "boot-2") == nil, "the machine stopped, not the daemon")
        #expect(BatchMarker(Array("weathertag-batch\nboot\n000\n \n".utf8)) == nil, "torn")
        #expect(BatchMarker(Array("something else".utf8)) == nil)
    }

    @Test func aNoteWrittenOverALongerOneReadsAsItselfAlone() throws {
        let longer = BatchMarker(boot: "boot-1", names: ["a-long-name.md", "b.md", "c.md"], reached: 2).bytes
        let shorter = BatchMarker(boot: "boot-1", names: ["d.md"], reached: 0)
        var bytes = longer
        bytes.replaceSubrange(0..<shorter.bytes.count, with: shorter.bytes)
        #expect(bytes.count == longer.count)
        #expect(BatchMarker(bytes) == shorter)
        // A note of an earlier version, without the NUL at the end, reads as it did.
        #expect(BatchMarker(Array(shorter.bytes.dropLast())) == shorter)
    }

    @Test func setAsideUntilTheEntryChanges() {
        var entries = SetAsideEntries()
        entries.setAside("poison.md", Self.version)
        var changed = Self.version
        changed.modifiedNanoseconds += 1
        #expect(entries.holds("other.md", Self.version) == (false, false))
        #expect(entries.holds("poison.md", Self.version) == (true, false))
        #expect(SetAsideEntries(entries.bytes) == entries, "kept across restarts")
        #expect(entries.holds("poison.md", changed) == (false, true))
        #expect(entries.versions.isEmpty)
        #expect(SetAsideEntries(Array("garbage\u{0}1 2 3\u{0}".utf8)).versions.isEmpty)
    }
}
