import CLinux
import Glibc
import Subprocess
import WeathertagCore

/// Writes another app's entries into a diary folder (`weathertag import`): each entry where the layout puts it,
/// never over a file that is there, and never twice (an entry whose id a file in the diary already holds is passed
/// over). Everything is first written into a hidden staging folder inside the diary (`.import.….weathertag-tmp`,
/// which the inbox never looks into), stamped there, then moved in file by file with a rename that cannot replace;
/// on any error before that the staging folder is removed and the diary is as it was.
package struct DiaryImporter: Sendable {
    /// The diary's folder (`--into`).
    package let root: String
    package let layout: DiaryLayout
    /// Which folders below it the diary's own files are in (the inbox's tree), for finding what is imported already.
    package let tree: InboxTree

    package init(root: String, layout: DiaryLayout, tree: InboxTree = InboxTree()) {
        (self.root, self.layout, self.tree) = (root, layout, tree)
    }

    /// What an import would do: the entries to write, each with its path in the diary, and how many are there
    /// already.
    package struct Plan: Sendable {
        package var entries: [(entry: ImportedEntry, path: String)]
        package var alreadyThere: Int
    }

    /// The entries written so far, in the staging folder.
    package struct Staging: Sendable {
        /// The staging folder, absolute.
        package var folder: String
        /// Each entry's path in the diary, relative, and whether it still needs weather (it brought none).
        package var entries: [(path: String, needsWeather: Bool)]
        /// Files the entries link to that the export did not hold (`photos/…`), each once.
        package var missing: [String]
        /// Attachments copied, each once per folder.
        package var attachments: [String]

        /// Where a relative path of the diary is while it is staged.
        package func staged(_ path: String) -> String { self.folder + "/" + path }
    }

    /// The ids (`origin.idKey`) the diary's Markdown files hold in their front matter.
    package func importedIDs(key: String) -> Set<String> {
        var ids: Set<String> = []
        InboxWalk.walk(inbox: self.root, tree: self.tree) { folder, contents in
            for name in contents.files where InboxFilter.isMarkdown(name) {
                let path = InboxWalk.path(self.root, folder) + "/" + name
                if let id = Self.frontMatterValue(of: key, in: path) { ids.insert(id) }
            }
        }
        return ids
    }

    /// Which entries to write and where: those whose id is not in the diary yet, each at the layout's path for its
    /// own local time, with `-2`, `-3` … where a file is there or another entry of the same minute took the name.
    package func plan(_ entries: [ImportedEntry]) -> Plan {
        let known = entries.first.map { self.importedIDs(key: $0.origin.idKey) } ?? []
        var taken: Set<String> = []
        var plan = Plan(entries: [], alreadyThere: 0)
        for entry in entries {
            if known.contains(entry.id) {
                plan.alreadyThere += 1
                continue
            }
            let clock = entry.wallClock
            var ordinal = 1
            var path = self.layout.path(for: clock)
            while taken.contains(path) || FileIO.exists(self.root + "/" + path) {
                ordinal += 1
                path = self.layout.path(for: clock, ordinal: ordinal)
            }
            taken.insert(path)
            plan.entries.append((entry, path))
        }
        return plan
    }

    /// Writes the plan's entries into a new staging folder, with their attachments from `exportFolder` (where the
    /// export's `photos/` are) beside them; `render` makes an entry's text from the links its attachments got.
    package func stage(
        _ plan: Plan, exportFolder: String?,
        render: (ImportedEntry, _ links: [String: String]) -> String
    ) throws -> Staging {
        let folder = try self.makeStagingFolder()
        var staging = Staging(folder: folder, entries: [], missing: [], attachments: [])
        do {
            var copied: Set<String> = []
            for (entry, path) in plan.entries {
                let (directory, _) = FileIO.split("/" + path)
                var links: [String: String] = [:]
                for attachment in entry.attachments {
                    let file = attachment.file
                    let name = String(file.split(separator: "/").last ?? "")
                    let relative = (directory == "/" ? "" : String(directory.dropFirst()) + "/") + "photos/" + name
                    guard let exportFolder, FileIO.exists(exportFolder + "/" + file) else {
                        if !staging.missing.contains(file) { staging.missing.append(file) }
                        continue
                    }
                    links[attachment.identifier] = "photos/" + name
                    if copied.insert(relative).inserted, !FileIO.exists(self.root + "/" + relative) {
                        try FileIO.makeDirectories(staging.staged(FileIO.split(relative).directory))
                        try Self.copy(exportFolder + "/" + file, to: staging.staged(relative))
                        staging.attachments.append(relative)
                    }
                }
                let text = render(entry, links)
                let target = staging.staged(path)
                try FileIO.makeDirectories(FileIO.split(target).directory)
                try FileIO.writeAtomically(Array(text.utf8), to: target)
                staging.entries.append((path, entry.weather == nil))
            }
        } catch {
            self.discard(staging)
            throw error
        }
        return staging
    }

    /// Moves every staged file into the diary, never over a file: one that appeared meanwhile makes the entry take
    /// the next free name. Returns each entry's final path (relative), in the plan's order, once every move is on the
    /// disk: each folder that took a file fsynced (and the folders made for them), then the staging folder removed
    /// and the diary's folder fsynced. (Without it, a power cut after `import` said what it imported left them in
    /// the hidden staging folder: tools/powercut/crash-states.py --workload imported.)
    package func commit(_ staging: Staging) throws -> [String] {
        var moved: [String] = []
        var folders: [String] = []
        func arriving(_ target: String) throws {
            let folder = FileIO.split(target).directory
            try FileIO.makeDirectories(folder, syncing: true)
            if !folders.contains(folder) { folders.append(folder) }
        }
        for attachment in staging.attachments {
            try arriving(self.root + "/" + attachment)
            // The same digest is the same file: one there already is kept.
            _ = try Self.moveWithoutReplacing(staging.staged(attachment), to: self.root + "/" + attachment)
        }
        for (path, _) in staging.entries {
            let target = self.root + "/" + path
            try arriving(target)
            var final = path
            var ordinal = 1
            while try !Self.moveWithoutReplacing(staging.staged(path), to: self.root + "/" + final) {
                ordinal += 1
                let dot = path.lastIndex(of: ".") ?? path.endIndex
                final = path[..<dot] + "-\(ordinal)" + path[dot...]
            }
            moved.append(final)
        }
        for folder in folders { try FileIO.fsyncDirectory(folder) }
        self.discard(staging)
        try FileIO.fsyncDirectory(self.root)
        return moved
    }

    /// Why a .zip could not be unpacked.
    package struct UnpackError: Error, CustomStringConvertible {
        package var description: String
        /// `unzip` is not installed.
        package var missingProgram: Bool
    }

    /// Unpacks Day One's .zip with `unzip` into a new hidden folder of the diary (on its filesystem, not in memory),
    /// whose path it returns; `unzip` refuses names that would leave the folder. (Why a program: no library in
    /// reach reads .zip without Foundation, and the export is read once.)
    package func unpack(zip: String) async throws(UnpackError) -> String {
        self.removeStaleStaging()
        let folder: String
        do {
            folder = try FileIO.createTemporaryFolder(directory: self.root, name: "import-zip")
        } catch {
            throw UnpackError(description: "cannot write into \(self.root): \(error)", missingProgram: false)
        }
        let ran = try? await Subprocess.run(
            .name("unzip"), arguments: ["-qq", "-o", zip, "-d", folder], output: .discarded,
            error: .string(limit: 64 << 10))
        guard let result = ran else {
            FileIO.removeTree(folder)
            throw UnpackError(
                description: "reading a .zip needs unzip (apt install unzip), or give the Journal.json in it",
                missingProgram: true)
        }
        guard result.terminationStatus.isSuccess else {
            FileIO.removeTree(folder)
            let said = result.standardError.trimmingWhitespaceAndNewlines()
            throw UnpackError(description: "not a .zip unzip can read: \(said)", missingProgram: false)
        }
        return folder
    }

    /// Removes the staging folder and all it holds.
    package func discard(_ staging: Staging) {
        FileIO.removeTree(staging.folder)
    }

    /// A new staging folder (`.import.PID.START.bBOOT.RANDOM.weathertag-tmp`, named as a temp file is), once the
    /// ones an import stopped by a crash or a power cut left behind are gone: their writer is not running
    /// (`FileIO.isStaleTemporary`), and what they hold was never moved into the diary.
    private func makeStagingFolder() throws -> String {
        self.removeStaleStaging()
        return try FileIO.createTemporaryFolder(directory: self.root, name: "import")
    }

    /// Removes the staging and unpacking folders of imports that are not running any more (a crash, a power cut),
    /// and makes their going durable.
    func removeStaleStaging() {
        let names = FileIO.names(in: self.root) { name in name.starts(with: ".import".utf8) }
        let removed = FileIO.removeStaleTemporaryFolders(
            in: self.root,
            names: names.filter { name in
                var info = stat()
                return lstat(self.root + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            })
        if !removed.isEmpty { try? FileIO.fsyncDirectory(self.root) }
    }

    /// Renames `from` to `to` unless `to` exists: false (and `from` left) when it does.
    static func moveWithoutReplacing(_ from: String, to: String) throws -> Bool {
        if clinux_rename_noreplace(from, to) == 0 { return true }
        switch errno {
        case EEXIST: return false
        case EINVAL, ENOSYS:
            // A filesystem that cannot say (some FUSE and network ones): a hard link fails the same way when the name
            // is taken.
            if link(from, to) == 0 {
                unlink(from)
                return true
            }
            if errno == EEXIST { return false }
            throw SystemError("link", path: to)
        default: throw SystemError("rename", path: to)
        }
    }

    /// Copies a file's bytes, a megabyte at a time.
    static func copy(_ from: String, to: String) throws {
        let source = open(from, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw SystemError("open", path: from) }
        defer { close(source) }
        let target = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard target >= 0 else { throw SystemError("open", path: to) }
        defer { close(target) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw SystemError("read", path: from) }
            if count == 0 { break }
            try FileIO.writeAll(target, Array(buffer[..<count]), path: to)
        }
        guard fsync(target) == 0 else { throw SystemError("fsync", path: to) }
    }

    /// `rm -r` of a folder weathertag made, never following a symbolic link.
    package static func removeFolder(_ path: String) {
        FileIO.removeTree(path)
    }

    /// A top-level front matter key's value in the first 64 KiB of a file, as written; nil without one.
    static func frontMatterValue(of key: String, in path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        guard lines.next()?.trimmingWhitespaceAndNewlines() == "---" else { return nil }
        while let line = lines.next() {
            let trimmed = line.trimmingWhitespaceAndNewlines()
            if trimmed == "---" || trimmed == "..." { return nil }
            guard line.hasPrefix(key + ":") else { continue }
            let value = line.dropFirst(key.count + 1).trimmingWhitespaceAndNewlines()
            return value.trimming { $0 == "\"" || $0 == "'" }
        }
        return nil
    }
}
