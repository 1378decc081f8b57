import Foundation

/// Runs a check over files, for the fuzz executables' normal build: `fuzz-stamper FILE|FOLDER…` replays a corpus
/// or a crash reproducer without libFuzzer.
package enum CorpusReplay {
    /// Every regular file in `paths` (folders one level deep), sorted.
    package static func files(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
            guard isDirectory.boolValue else { return [path] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.sorted().map { path + "/" + $0 }
        }
    }

    package static func run(_ check: ([UInt8]) -> Void, arguments: [String] = Array(CommandLine.arguments.dropFirst()))
    {
        let files = Self.files(arguments)
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            check(Array(data))
        }
        print("replayed \(files.count) inputs")
    }
}
