import Glibc
import WeathertagCore

/// Stamps files anywhere, one at a time, with the inbox's safety (`EntryFile`: read lease, temp file, exchange,
/// a last look, fsyncs): what `weathertag stamp` uses.
public enum FileStamper {
    public enum Outcome: Error, Sendable, Equatable {
        case stamped
        case alreadyStamped
        /// Left as it is, and why (not text, front matter it must not edit, read-only, a link ...).
        case leftAlone(String)
        /// Someone has it open for writing.
        case inUse
        case vanished
        /// Reading or writing failed (a full disk, no permission to the folder).
        case failed(String)
    }

    public static func stamp(_ path: String, lines: [String], maximumSize: Int = 16 << 20) -> Outcome {
        // A file that changes under us is tried again at once a few times, as the daemon does on its next event.
        for _ in 0..<5 {
            do {
                switch try EntryFile.stamp(path: path, lines: lines, maximumSize: maximumSize) {
                case .stamped: return .stamped
                case .alreadyStamped: return .alreadyStamped
                case .skipped(let reason, _): return .leftAlone(reason)
                case .inUse: return .inUse
                case .vanished: return .vanished
                case .changedWhileStamping: continue
                }
            } catch {
                return .failed("\(error)")
            }
        }
        return .leftAlone("it kept changing while being stamped")
    }

    /// The front matter a stamp would give the file (from its opening `---` to its closing line), without
    /// writing anything; or the outcome that means there is nothing to write.
    public static func preview(_ path: String, lines: [String], maximumSize: Int = 16 << 20) -> Result<String, Outcome>
    {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            return .failure(errno == ENOENT ? .vanished : .failed(String(cString: strerror(errno))))
        }
        defer { close(fd) }
        let original: [UInt8]
        do {
            original = try FileIO.readAll(fd, path: path, limit: maximumSize)
        } catch {
            return .failure(.failed("\(error)"))
        }
        switch FrontMatterStamper.stamp(original, lines: lines) {
        case .alreadyStamped: return .failure(.alreadyStamped)
        case .skipped(let reason): return .failure(.leftAlone(reason.description))
        case .stamped(let content):
            // By bytes: in a Swift String "\r\n" is one character, and splitting at "\n" would not see CRLF lines.
            var end = 0
            var lines = 0
            while end < content.count {
                let next = (content[end...].firstIndex(of: 0x0A) ?? content.count - 1) + 1
                var line = content[end..<next]
                while let last = line.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { line = line.dropLast() }
                end = next
                lines += 1
                if lines > 1, line.elementsEqual("---".utf8) || line.elementsEqual("...".utf8) { break }
            }
            return .success(String(decoding: content[..<end], as: UTF8.self))
        }
    }
}
