import CLinux
import FoundationEssentials
import Glibc

/// Runs blocking work on a thread of its own (inotify's reads block) until it returns: never on the cooperative
/// pool, whose two threads the rest of the daemon shares.
///
/// A POSIX thread, not Foundation's `Thread` (Foundation's, not FoundationEssentials': see `Zone`).
func onThread(_ name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
        let work = Unmanaged.passRetained(ThreadWork(name: name) { done.resume(with: Result { try body() }) })
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let work = Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue()
                clinux_name_thread(work.name)
                work.body()
                return nil
            }, work.toOpaque())
        if started == 0 {
            pthread_detach(thread)
        } else {
            work.release()
            done.resume(throwing: POSIXErrorCode(rawValue: started).map { POSIXError($0) } ?? POSIXError(.EAGAIN))
        }
    }
}

private final class ThreadWork: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
