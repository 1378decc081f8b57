import Glibc
import WeathertagCore

/// Stamps a batch of entries on the calling thread (a pool thread in the daemon), stopping at the first failed
/// write: the disk is full or the folder read-only, and the rest would fail the same way.
enum EntryBatch {
    /// - Parameters:
    ///   - names: paths relative to `folder`, or as they are when `folder` is nil.
    ///   - folder: the inbox: its descriptor is opened once for every fsync of the batch.
    static func stamp(
        _ names: [String],
        in folder: String?,
        lines: [String],
        maximumSize: Int,
        keepModificationTime: Bool = true,
        backdating: BackdatingPolicy? = nil,
        progress: StampingProgress? = nil
    ) -> BatchOutcome {
        var outcome = BatchOutcome()
        let directory = folder.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        defer { if directory >= 0 { close(directory) } }
        for (index, name) in names.enumerated() {
            do {
                let result = try EntryFile.stamp(
                    path: folder.map { $0 + "/" + name } ?? name, lines: lines, maximumSize: maximumSize,
                    keepModificationTime: keepModificationTime, backdating: backdating,
                    // The inbox's descriptor serves entries at its top; one in a folder fsyncs its own folder.
                    directoryFD: directory >= 0 && !name.contains("/") ? directory : nil)
                outcome.results.append((name, result))
                progress?.advance()
            } catch {
                outcome.failure = (name, error)
                outcome.unprocessed = Array(names[(index + 1)...])
                break
            }
        }
        return outcome
    }
}
