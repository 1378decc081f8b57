import Glibc
import WeathertagCore

/// A failed system call: which one, on what, and errno's text.
public struct SystemError: RecurringFailure, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32

    public init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The call and errno, without the path: a temp file's name is new at each attempt.
    public var recurrenceKey: String { "\(self.operation) \(self.code)" }

    public var description: String {
        let reason = String(validatingCString: strerror(self.code)) ?? "errno \(self.code)"
        return "\(self.operation) \(self.path): \(reason)"
    }
}
