import FoundationEssentials
import Glibc
import Logging

/// One line per event on stderr. When `$JOURNAL_STREAM` says stderr is the journal, entries go to journald's native
/// socket instead, with the priority, the message and each metadata item as a field of its own
/// (`WEATHERTAG_ENTRY=…`); should that socket have no room for one (`JournalSocket.patience`), the line goes to
/// stderr starting with the syslog priority (`<3>`…`<7>`) journald understands and without a timestamp (journald
/// adds its own).
package struct StderrLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    private let label: String
    private let journal: Bool
    private let journalSocket: JournalSocket?

    /// - Parameter journalSocket: from `makeJournalSocket`, made once and shared by every logger.
    package init(label: String, level: Logger.Level, environment: [String: String], journalSocket: JournalSocket? = nil)
    {
        self.label = label
        self.logLevel = level
        self.journal = Self.stderrIsJournal(environment["JOURNAL_STREAM"])
        self.journalSocket = self.journal ? journalSocket : nil
    }

    /// journald's socket, when stderr is the journal (else nil: plain lines on stderr).
    package static func makeJournalSocket(environment: [String: String]) -> JournalSocket? {
        Self.stderrIsJournal(environment["JOURNAL_STREAM"]) ? JournalSocket(environment: environment) : nil
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let metadata = self.metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
        // The message with its metadata as `key=value`: the journal's MESSAGE and the line's text alike.
        let text = metadata.reduce(event.message.description) { $0 + " \($1.key)=\(Self.quoted("\($1.value)"))" }
        if let journalSocket = self.journalSocket {
            let fields =
                [("PRIORITY", "\(Self.priority(event.level))"), ("SYSLOG_IDENTIFIER", "weathertag"), ("MESSAGE", text)]
                + metadata.map { (JournalSocket.fieldName($0.key), "\($0.value)") }
            if journalSocket.send(fields) { return }
        }
        let prefix =
            self.journal
            ? "<\(Self.priority(event.level))>"
            : Date().formatted(.iso8601) + " " + event.level.rawValue.uppercased() + " "
        let line = prefix + text + "\n"
        // One write(2) per line, so lines from several threads never interleave.
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }

    private static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    private static func quoted(_ value: String) -> String {
        let plain = !value.isEmpty && value.allSatisfy { !$0.isWhitespace && $0 != "\"" && $0 != "=" }
        if plain { return value }
        return "\""
            + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            .replacing("\n", with: "\\n") + "\""
    }

    /// `$JOURNAL_STREAM` is `device:inode` of the journal's stream; compare it with stderr's.
    private static func stderrIsJournal(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
