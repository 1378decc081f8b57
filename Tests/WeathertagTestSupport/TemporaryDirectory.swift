import Foundation

/// A fresh folder under /tmp (short, so Unix socket paths inside it fit), removed by `remove()`.
package struct TemporaryDirectory: Sendable {
    package let path: String

    package init() throws {
        let path = "/tmp/wt-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.path = path
    }

    package func file(_ name: String) -> String { self.path + "/" + name }

    @discardableResult
    package func makeDirectory(_ name: String) throws -> String {
        let path = self.file(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    package func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: self.file(name)))
    }

    package func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
    }
}
