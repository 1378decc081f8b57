import ArgumentParser
import FoundationEssentials
import WeathertagCore

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show the running daemon's state: entries, weather, cache, the weather services' calls and providers.",
        discussion: """
            Reads the daemon's /v1/status. --json prints that document as it is, for scripts.

            Exit status: 0, 69 when the daemon cannot be reached.
            """
    )

    @OptionGroup var connection: DaemonConnection

    @Flag(help: "Print the daemon's JSON document.")
    var json = false

    func run() async throws {
        let socketPath: String
        do {
            socketPath = try self.connection.socketPath(ProcessInfo.processInfo.environment)
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        let response: HTTPResponse
        let document: StatusDocument
        do {
            response = try await DaemonConnection.get("/v1/status", socketPath: socketPath)
            document = try DaemonConnection.decode(StatusDocument.self, response)
        } catch {
            printError(DaemonConnection.unreachable(error, socketPath: socketPath))
            throw ExitCode(ExitStatus.unavailable)
        }
        if self.json {
            print(String(decoding: response.body, as: UTF8.self), terminator: "")
        } else {
            print(Self.render(document, now: Date()), terminator: "")
        }
    }

    /// The status document as a few aligned lines.
    static func render(_ status: StatusDocument, now: Date) -> String {
        let ago = { (iso: String?) in Self.ago(iso, now: now) }
        var lines: [(String, String)] = []
        let uptime = Self.duration(status.uptimeSeconds)
        let entries = status.entries
        lines.append(("inbox", "\(status.inbox) (up \(uptime), listed \(ago(entries.lastScanAt)))"))
        lines.append(
            (
                "entries",
                "\(entries.stamped) stamped · \(entries.restored) restored · \(entries.waiting) waiting · \(entries.skipped) left alone · "
                    + "\(entries.backdated) back-dated · \(entries.alreadyStamped) already stamped"
            ))
        lines += Self.laneLines(status)
        if let weather = status.weather, let tag = try? WeatherTag(weather), let line = try? TagFormatter().format(tag)
        {
            lines.append(("weather", line + (tag.stale ? " (stale)" : "") + ", from \(tag.position.source)"))
        } else {
            lines.append(("weather", "none yet"))
        }
        let cache = status.cache
        lines.append(
            (
                "cache",
                "\(cache.places) place(s), last fetched \(ago(cache.lastFetchedAt)); \(cache.hits) hits, "
                    + "\(cache.misses) misses"
            ))
        lines.append(("calls", Self.calls(status)))
        if let history = status.history {
            var text =
                "\(history.waiting) back-dated entr\(history.waiting == 1 ? "y" : "ies") waiting; "
                + "\(history.requests) request(s) to \(history.source)"
            if let left = history.budgetLeft {
                text += "; budget left \(left == left.rounded() ? String(Int(left)) : String(cFormat: "%.1f", left))"
            }
            lines.append(("history", text))
        }
        if let timeline = status.timeline {
            var text = "\(timeline.path): written \(ago(timeline.writtenAt))"
            if let entries = timeline.entries { text += ", \(entries) entr\(entries == 1 ? "y" : "ies")" }
            if timeline.stale { text += "; the diary changed since, written again soon" }
            if let error = timeline.lastError { text += "; the last write failed: \(error)" }
            lines.append(("timeline", text))
        }
        lines += Self.providerLines(status, now: now)
        if let error = status.lastError {
            lines.append(("last error", "\(error) (\(ago(status.lastErrorAt)))"))
        }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { label, text in
            label + String(repeating: " ", count: width - label.count) + "  " + text + "\n"
        }.joined()
    }

    /// `12 min ago`, or `never`.
    private static func ago(_ iso: String?, now: Date) -> String {
        guard let iso, let date = Date(iso8601: iso) else { return "never" }
        return Self.duration(now.timeIntervalSince(date)) + " ago"
    }

    /// Each lane's count, the latest entries of each, and the sync tools' conflict copies.
    private static func laneLines(_ status: StatusDocument) -> [(String, String)] {
        var lines: [(String, String)] = []
        if let lanes = status.lanes {
            // In the words every view has for them (`LanesDocument.lines`).
            for (index, line) in lanes.lines.enumerated() { lines.append((index == 0 ? "lanes" : "", line)) }
        }
        if let conflicts = status.conflicts, !conflicts.isEmpty {
            let count = conflicts.count
            lines.append(("conflict", "\(count) sync conflict\(count == 1 ? "" : "s"), left as they are"))
            for conflict in conflicts {
                lines.append(("", "\(conflict.path) (\(conflict.tool)): \(conflict.remedy)"))
            }
        }
        return lines
    }

    /// The weather services' calls, by source when there are several, and the last error.
    private static func calls(_ status: StatusDocument) -> String {
        // A daemon before `services` said the same totals as `openweather`.
        let services = status.services ?? status.openweather
        var calls = "\(services.callsToday) calls today, \(services.calls) since start"
        let bySource = (services.bySource ?? [:]).sorted { $0.key < $1.key }
        if bySource.count > 1 {
            calls += " (" + bySource.map { "\($0.key) \($0.value.callsToday) today" }.joined(separator: ", ") + ")"
        } else if let only = bySource.first {
            calls += " (\(only.key))"
        }
        if let error = services.lastError { calls += "; last error: \(error)" }
        if let next = services.nextAttemptAt { calls += "; next attempt at \(next)" }
        return calls
    }

    /// A line per location provider: tried or not, its last fix as privacy lets it be shown, its failures.
    private static func providerLines(_ status: StatusDocument, now: Date) -> [(String, String)] {
        status.providers.enumerated().map { index, provider in
            // A provider the chain never reached (one before it answered) has not failed: it is not tried yet.
            let mark = provider.attempts == 0 && provider.lastError == nil ? "·" : provider.ok ? "✓" : "✗"
            var text = "\(mark) \(provider.type)"
            if provider.attempts == 0, provider.lastError == nil, provider.lastPosition == nil { text += " not tried" }
            if let position = provider.lastPosition {
                if let latitude = position.latitude, let longitude = position.longitude {
                    text += String(cFormat: " last fix %.4f, %.4f", latitude, longitude)
                } else {
                    text += " last fix in \(position.name ?? "a private place")"
                }
                if let accuracy = position.accuracyM { text += " (±\(Int(accuracy)) m)" }
                text += ", \(Self.ago(provider.lastSuccessAt, now: now))"
            }
            if !provider.ok, let error = provider.lastError {
                text += "; \(provider.failures) of \(provider.attempts) failed: \(error)"
            }
            if let until = provider.skippedUntil { text += "; passed over until \(until)" }
            return (index == 0 ? "providers" : "", text)
        }
    }

    /// `45 s`, `12 min`, `3 h 05 min`, `2 d 4 h`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds))
        switch total {
        case ..<60: return "\(total) s"
        case ..<3600: return "\(total / 60) min"
        case ..<86400: return String(cFormat: "%d h %02d min", total / 3600, total % 3600 / 60)
        default: return "\(total / 86400) d \(total % 86400 / 3600) h"
        }
    }
}
