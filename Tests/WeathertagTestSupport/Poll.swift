import Foundation

/// Waits for a condition by polling it until a deadline: no fixed sleeps.
public struct TimeoutError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

@discardableResult
public func poll<T>(
    _ what: String,
    timeout: Duration = .seconds(20),
    every interval: Duration = .milliseconds(20),
    _ body: () async throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if let value = try await body() { return value }
        guard clock.now < deadline else { throw TimeoutError(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: interval)
    }
}
