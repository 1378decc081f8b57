import CGPS
import Dispatch
import FoundationEssentials
import Logging
import Synchronization
import WeathertagCore

/// Positions from gpsd through libgps. `run()` keeps one connection open for the daemon's lifetime, reading reports on
/// a thread of its own, and reconnects with backoff when gpsd goes away; `locate()` returns the latest 2D/3D fix
/// with finite coordinates that is no older than `maximumFixAge`.
///
/// Without such a fix `locate()` fails at once (after a short grace period for the first fix of a new connection),
/// so the chain moves on without paying a timeout and comes back to gpsd the moment it has a fix again.
package final class GPSDLocationProvider: LocationProvider {
    package let type = "gpsd"
    package let host: String
    package let port: Int
    package let timeout: Duration
    package let maximumFixAge: Duration
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var latest: Position?
        var connected = false
        var connectedAt: Date?
        /// What gpsd reports when it is not a usable fix, for the error.
        var withoutFix: String?
        /// False until the first connection attempt has succeeded or failed: until then, callers wait.
        var attempted = false
        var lastError: String?
        var reconnects = 0
    }

    package init(
        host: String,
        port: Int,
        timeout: Duration,
        maximumFixAge: Duration,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.maximumFixAge = maximumFixAge
        self.logger = logger
        self.now = now
    }

    package var details: [String: String] {
        self.state.withLock { state in
            var details = ["gpsd": "\(self.host):\(self.port)", "connected": String(state.connected)]
            details["reconnects"] = String(state.reconnects)
            if let error = state.lastError { details["last_error"] = error }
            return details
        }
    }

    /// How long a new connection may take to deliver its first fix before `locate()` stops waiting for it.
    static let firstFixGrace: TimeInterval = 2

    package func locate() async throws -> Position {
        while true {
            let state = self.state.withLock { $0 }
            let now = self.now()
            if let latest = state.latest, now.timeIntervalSince(latest.takenAt) <= self.maximumFixAge.seconds {
                return latest
            }
            guard state.connected || !state.attempted else {
                throw LocationError(
                    source: self.type,
                    message: "not connected to gpsd at \(self.host):\(self.port)"
                        + (state.lastError.map { ": \($0)" } ?? "")
                )
            }
            if let connectedAt = state.connectedAt, now.timeIntervalSince(connectedAt) > Self.firstFixGrace {
                var message = state.withoutFix ?? "gpsd has sent no fix"
                if let latest = state.latest {
                    message += "; the last fix is \(Int(now.timeIntervalSince(latest.takenAt))) s old"
                }
                throw LocationError(source: self.type, message: message)
            }
            // Connecting, or just connected: wait for a first fix until the grace period or the chain's timeout.
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    package func run() async throws {
        var backoff = Backoff(base: .milliseconds(250), ceiling: .seconds(30))
        while !Task.isCancelled {
            let stop = StopFlag()
            do {
                try await withTaskCancellationHandler {
                    try await self.runSessionOnThread(stop: stop, onConnect: { backoff.reset() })
                } onCancel: {
                    stop.set()
                }
            } catch {
                let message = "\(error)"
                let first = self.state.withLock { state -> Bool in
                    defer { state.lastError = message }
                    return state.lastError != message
                }
                // Log a changed error once, not at every reconnect attempt.
                if first && !Task.isCancelled {
                    self.logger.warning("gpsd unavailable, will reconnect", metadata: ["error": "\(message)"])
                }
            }
            self.state.withLock {
                $0.connected = false
                $0.attempted = true
            }
            // Cancellation (shutdown) ends the loop quietly: it is how this service is meant to stop.
            guard (try? await Task.sleep(for: backoff.next())) != nil else { return }
            self.state.withLock { $0.reconnects += 1 }
        }
    }

    /// Runs one blocking libgps session on a dedicated thread and returns when it ends.
    private func runSessionOnThread(stop: StopFlag, onConnect: () -> Void) async throws {
        let connected = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Bool, any Error>) in
            // A queue of its own: the session blocks in libgps for as long as gpsd talks.
            DispatchQueue(label: "weathertag-gpsd").async {
                continuation.resume(with: Result { try self.blockingSession(stop: stop) })
            }
        }
        if connected { onConnect() }
    }

    /// Connects, then reads reports until gpsd goes away or `stop` is set. Returns whether it ever connected.
    private func blockingSession(stop: StopFlag) throws -> Bool {
        var errorCode: Int32 = 0
        guard let session = cgps_open(self.host, String(self.port), &errorCode) else {
            let reason = String(validatingCString: cgps_error_string(errorCode)) ?? "error \(errorCode)"
            throw LocationError(source: self.type, message: "cannot connect to \(self.host):\(self.port): \(reason)")
        }
        defer { cgps_close(session) }
        self.state.withLock {
            $0.connected = true
            $0.connectedAt = self.now()
            $0.attempted = true
            $0.lastError = nil
        }
        self.logger.info("connected to gpsd", metadata: ["gpsd": "\(self.host):\(self.port)"])
        while !stop.isSet {
            let waiting = cgps_waiting(session, 250_000)
            if waiting < 0 { throw LocationError(source: self.type, message: "lost the connection to gpsd") }
            if waiting == 0 { continue }
            var fix = cgps_fix()
            guard cgps_read(session, &fix) >= 0 else {
                throw LocationError(source: self.type, message: "gpsd closed the connection")
            }
            self.record(fix)
        }
        return true
    }

    private func record(_ fix: cgps_fix) {
        // gpsd 3.22: trust mode and LATLON_SET, not fix.status; NaN means unknown.
        guard fix.mode >= 2 else {
            self.state.withLock { $0.withoutFix = "gpsd has no fix (mode \(fix.mode))" }
            return
        }
        guard fix.has_position, fix.latitude.isFinite, fix.longitude.isFinite else {
            self.state.withLock { $0.withoutFix = "gpsd reports a fix without coordinates (NaN)" }
            return
        }
        // epx/epy when gpsd has them, else its combined horizontal estimate eph.
        let errors = [fix.epx, fix.epy].filter(\.isFinite)
        let position = Position(
            latitude: fix.latitude,
            longitude: fix.longitude,
            accuracyMeters: errors.max() ?? (fix.eph.isFinite ? fix.eph : nil),
            source: self.type,
            takenAt: self.now()
        )
        guard position.isValid else { return }
        self.state.withLock {
            $0.latest = position
            $0.withoutFix = nil
        }
    }
}

/// Tells a blocking session's thread to finish; checked between `gps_waiting` calls (at most 250 ms apart).
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { self.flag.load(ordering: .acquiring) }

    func set() { self.flag.store(true, ordering: .releasing) }
}
