import Foundation

/// Runs blocking work on a thread of its own (inotify's reads block) until it returns: never on the cooperative
/// pool, whose two threads the rest of the daemon shares.
func onThread(_ name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
        let thread = Thread { done.resume(with: Result { try body() }) }
        thread.name = name
        thread.start()
    }
}
