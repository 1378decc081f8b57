import Glibc
import WeathertagCore

/// The editors' lock and swap files of the folders a batch stamps in (`EditorLock`), each folder listed once, when
/// the batch first stamps there: one listing per folder and batch instead of six `lstat`s per entry. A lock file
/// made after the listing is missed as it would be right after a probe; the lease is the guard against writes.
/// Used by one batch, on its thread.
final class FolderLocks {
    /// Per folder, the names that begin with a dot (every lock file's does).
    private var hidden: [String: Set<String>] = [:]

    init() {}

    func lock(for name: String, in directory: String) -> EditorLock? {
        let names = self.hidden[directory] ?? self.list(directory)
        guard !names.isEmpty else { return nil }
        return EditorLock.candidates(for: name).first { names.contains($0.file) }
    }

    private func list(_ directory: String) -> Set<String> {
        var names: Set<String> = []
        if let folder = opendir(directory) {
            defer { closedir(folder) }
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes -> String? in
                    guard bytes.first == UInt8(ascii: ".") else { return nil }
                    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if let name { names.insert(name) }
            }
        }
        self.hidden[directory] = names
        return names
    }
}
