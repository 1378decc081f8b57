/// Which names in the inbox are diary entries. Hidden files, editor and sync-tool temporaries, sync tools' conflict
/// copies (`SyncConflict`) and anything not ending in `.md` or `.markdown` are not.
package enum InboxFilter {
    package static func isCandidate(_ name: String) -> Bool {
        guard Self.isMarkdown(name) else { return false }
        return SyncConflict.recognize(name) == nil
    }

    /// A Markdown name that is no temporary: an entry, or a sync tool's conflict copy of one.
    package static func isMarkdown(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/") else { return false }
        if name.hasPrefix("~syncthing~") || name.hasSuffix("~") || name == "4913" { return false }
        let lower = name.lowercased()
        for suffix in [".swp", ".swx", ".tmp", ".part", ".crdownload"] where lower.hasSuffix(suffix) { return false }
        return lower.hasSuffix(".md") || lower.hasSuffix(".markdown")
    }
}
