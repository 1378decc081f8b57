import Glibc
import WeathertagCore

/// A failed system call: which one, on what, and errno's text.
package struct SystemError: RecurringFailure, Sendable, Equatable, CustomStringConvertible {
    package var operation: String
    package var path: String
    package var code: Int32

    package init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The call and errno, without the path: a temp file's name is new at each attempt.
    package var recurrenceKey: String { "\(self.operation) \(self.code)" }

    package var description: String {
        let reason = String(validatingCString: strerror(self.code)) ?? "errno \(self.code)"
        return "\(self.operation) \(self.path): \(reason)"
    }
}
