import Glibc

/// A failed system call: which one, on what, and errno's text.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32

    public init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        let reason = String(validatingCString: strerror(self.code)) ?? "errno \(self.code)"
        return "\(self.operation) \(self.path): \(reason)"
    }
}
