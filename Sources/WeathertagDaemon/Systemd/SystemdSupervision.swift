import FoundationEssentials
import Glibc
import Logging
import NIOCore
import ServiceLifecycle
import WeathertagCore

/// Keeps systemd informed while the daemon runs: `STATUS=` with a one-line summary whenever it changes, and, under
/// `WatchdogSec=`, `WATCHDOG=1` at half the interval, sent only while the daemon's loops are healthy:
///
/// - the stamping loop has finished an entry within the interval whenever it has work in hand (a batch stuck in a
///   hung filesystem stops the pings);
/// - every event loop of the socket runs a task (a wedged event loop stops this service itself);
/// - this service's own task runs (a starved Swift concurrency pool stops it too).
///
/// systemd then restarts the daemon once an interval passes without a ping.
struct SystemdSupervision: Service, CustomStringConvertible {
    let notifier: SystemdNotifier
    let watchdog: Duration?
    let progress: StampingProgress
    let statistics: DaemonStatistics
    let router: CurrentRouter
    let eventLoops: any EventLoopGroup
    let logger: Logger

    var description: String { "SystemdSupervision" }

    /// `WATCHDOG_USEC` when the watchdog is on for this process (`WATCHDOG_PID` unset or ours), else nil.
    static func watchdogInterval(_ environment: [String: String]) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], pid_t(pid) != getpid() { return nil }
        return .microseconds(microseconds)
    }

    func run() async throws {
        guard self.notifier.socketPath != nil else { return }
        // A graceful shutdown cancels the loop, so its sleep does not hold the shutdown up.
        await cancelWhenGracefulShutdown { await self.supervise() }
    }

    private func supervise() async {
        // Often enough for the pings and for a status line that changes by the second while stamping is stuck.
        let tick = self.watchdog.map { min($0 / 4, .seconds(1)) } ?? .seconds(1)
        var lastStatus = ""
        var lastPing = ContinuousClock.now - .seconds(3600)
        var withheld = false
        while !Task.isCancelled {
            var status = Self.statusLine(
                tag: await self.router.value.weather.snapshot.lastTag,
                counters: self.statistics.snapshot,
                now: Date()
            )
            // Stuck: work in hand and no entry finished for a watchdog interval (30 s without a watchdog).
            let stalled = self.progress.stalledFor.flatMap { $0 >= (self.watchdog ?? .seconds(30)) ? $0 : nil }
            if let stalled { status = "stamping stuck for \(Int(stalled.seconds)) s · " + status }
            if status != lastStatus {
                self.notifier.notify("STATUS=\(status)")
                lastStatus = status
            }
            if let watchdog, ContinuousClock.now - lastPing >= watchdog / 2 - tick / 4 {
                if let stalled {
                    if !withheld {
                        self.logger.error(
                            "stamping makes no progress; withholding the watchdog ping",
                            metadata: ["stalled_seconds": "\(Int(stalled.seconds))"]
                        )
                        withheld = true
                    }
                } else {
                    // Every event loop answers, or this awaits forever and no ping goes out.
                    for loop in self.eventLoops.makeIterator() { try? await loop.submit {}.get() }
                    if withheld {
                        self.logger.notice("stamping makes progress again; watchdog pings resume")
                        withheld = false
                    }
                    self.notifier.notify("WATCHDOG=1")
                    lastPing = .now
                }
            }
            try? await Task.sleep(for: tick)
        }
    }

    /// `fixed · 12.3°C broken clouds, 4 min old · 0 waiting, 12 stamped`.
    static func statusLine(tag: WeatherTag?, counters: DaemonStatistics.Counters, now: Date) -> String {
        let weather: String
        if let tag, let formatter = try? TagFormatter(template: "{source} · {temperature} {description}") {
            let age = Int(max(0, now.timeIntervalSince(tag.fetchedAt)) / 60)
            weather = formatter.format(tag) + (tag.stale ? ", stale" : "") + ", \(age) min old"
        } else {
            weather = "no weather yet"
        }
        var line = "\(weather) · \(counters.entriesWaiting) waiting, \(counters.entriesStamped) stamped"
        if let error = counters.lastError, let at = counters.lastErrorAt, now.timeIntervalSince(at) < 300 {
            line += " · last error: \(error.prefix(120))"
        }
        return line
    }
}
