import Foundation

/// A test's own failure outside an expectation: a wait that ran out of time, a program or file it could not set up.
package struct TimeoutError: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}

/// Asks `body` every `interval` until it returns a value, and returns that; throws once `timeout` has passed. The
/// test waits for the event itself, with a deadline, never for a fixed time in the hope that it happened.
@discardableResult
package func poll<T>(
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
