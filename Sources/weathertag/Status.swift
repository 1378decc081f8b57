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
            print(Self.render(document, now: Date(), words: Runtime.words), terminator: "")
        }
    }

    /// The status document as a few aligned lines, in the reader's language.
    static func render(_ status: StatusDocument, now: Date, words: Messages = Runtime.words) -> String {
        let ago = { (iso: String?) in Self.ago(iso, now: now, words) }
        var lines: [(String, String)] = []
        let uptime = Self.duration(status.uptimeSeconds, words)
        let entries = status.entries
        lines.append(
            (
                words.tr("inbox", context: "status"),
                words.tr(
                    "{inbox} (up {uptime}, listed {ago})",
                    ["inbox": status.inbox, "uptime": uptime, "ago": ago(entries.lastScanAt)])
            ))
        lines.append(
            (
                words.tr("entries", context: "status"),
                words.list([
                    words.tr("{count} stamped", plural: "{count} stamped", count: entries.stamped),
                    words.tr("{count} restored", plural: "{count} restored", count: entries.restored),
                    words.tr("{count} waiting", plural: "{count} waiting", count: entries.waiting),
                    words.tr("{count} left alone", plural: "{count} left alone", count: entries.skipped),
                    words.tr("{count} back-dated", plural: "{count} back-dated", count: entries.backdated),
                    words.tr(
                        "{count} already stamped", plural: "{count} already stamped", count: entries.alreadyStamped),
                ])
            ))
        lines += Self.laneLines(status, words)
        let weatherLabel = words.tr("weather", context: "status")
        if let weather = status.weather, let tag = try? WeatherTag(weather), let line = try? TagFormatter().format(tag)
        {
            lines.append(
                (
                    weatherLabel,
                    tag.stale
                        ? words.tr(
                            "{weather} (stale), from {source}", ["weather": line, "source": tag.position.source])
                        : words.tr("{weather}, from {source}", ["weather": line, "source": tag.position.source])
                ))
        } else {
            lines.append((weatherLabel, words.tr("none yet", context: "weather")))
        }
        let cache = status.cache
        lines.append(
            (
                words.tr("cache", context: "status"),
                words.tr(
                    "{count} place, last fetched {ago}; {hits} hits, {misses} misses",
                    plural: "{count} places, last fetched {ago}; {hits} hits, {misses} misses", count: cache.places,
                    ["ago": ago(cache.lastFetchedAt), "hits": String(cache.hits), "misses": String(cache.misses)])
            ))
        lines.append((words.tr("calls", context: "status"), Self.calls(status, words)))
        if let history = status.history {
            var text = words.tr(
                "{count} back-dated entry waiting; {requests} requests to {source}",
                plural: "{count} back-dated entries waiting; {requests} requests to {source}", count: history.waiting,
                ["requests": String(history.requests), "source": history.source])
            if let left = history.budgetLeft {
                let budget = left == left.rounded() ? String(Int(left)) : String(cFormat: "%.1f", left)
                text += words.tr("; budget left {budget}", ["budget": budget])
            }
            lines.append((words.tr("history", context: "status"), text))
        }
        if let timeline = status.timeline {
            var text = words.tr("{path}: written {ago}", ["path": timeline.path, "ago": ago(timeline.writtenAt)])
            if let entries = timeline.entries {
                text += words.tr(", {count} entry", plural: ", {count} entries", count: entries)
            }
            if timeline.stale { text += words.tr("; the diary changed since, written again soon") }
            if let error = timeline.lastError { text += words.tr("; the last write failed: {error}", ["error": error]) }
            lines.append((words.tr("timeline", context: "status"), text))
        }
        lines += Self.providerLines(status, now: now, words)
        if let error = status.lastError {
            lines.append(
                (
                    words.tr("last error", context: "status"),
                    words.tr("{error} ({ago})", ["error": error, "ago": ago(status.lastErrorAt)])
                ))
        }
        let width = lines.map { DiaryFormatting.width($0.0) }.max() ?? 0
        return lines.map { label, text in
            label + String(repeating: " ", count: width - DiaryFormatting.width(label)) + "  " + text + "\n"
        }.joined()
    }

    /// `12 min ago`, or `never`.
    private static func ago(_ iso: String?, now: Date, _ words: Messages) -> String {
        guard let iso, let date = Date(iso8601: iso) else { return words.tr("never") }
        return words.tr("{duration} ago", ["duration": Self.duration(now.timeIntervalSince(date), words)])
    }

    /// Each lane's count, the latest entries of each, and the sync tools' conflict copies.
    private static func laneLines(_ status: StatusDocument, _ words: Messages) -> [(String, String)] {
        var lines: [(String, String)] = []
        if let lanes = status.lanes {
            // In the words every view has for them (`LanesDocument.lines`).
            let label = words.tr("lanes", context: "status")
            for (index, line) in lanes.lines(words).enumerated() { lines.append((index == 0 ? label : "", line)) }
        }
        if let conflicts = status.conflicts, !conflicts.isEmpty {
            let count = conflicts.count
            lines.append(
                (
                    words.tr("conflict", context: "status"),
                    words.tr(
                        "{count} sync conflict, left as it is", plural: "{count} sync conflicts, left as they are",
                        count: count)
                ))
            for conflict in conflicts {
                lines.append(("", "\(conflict.path) (\(conflict.tool)): \(conflict.remedy)"))
            }
        }
        return lines
    }

    /// The weather services' calls, by source when there are several, and the last error.
    private static func calls(_ status: StatusDocument, _ words: Messages) -> String {
        // A daemon before `services` said the same totals as `openweather`.
        let services = status.services ?? status.openweather
        var calls = words.tr(
            "{count} call today, {total} since start", plural: "{count} calls today, {total} since start",
            count: services.callsToday, ["total": String(services.calls)])
        let bySource = (services.bySource ?? [:]).sorted { $0.key < $1.key }
        if bySource.count > 1 {
            let each = bySource.map {
                words.tr("{source} {count} today", ["source": $0.key, "count": String($0.value.callsToday)])
            }
            calls += " (" + each.joined(separator: words.tr(", ", context: "list")) + ")"
        } else if let only = bySource.first {
            calls += " (\(only.key))"
        }
        if let error = services.lastError { calls += words.tr("; last error: {error}", ["error": error]) }
        if let next = services.nextAttemptAt { calls += words.tr("; next attempt at {time}", ["time": next]) }
        return calls
    }

    /// A line per location provider: tried or not, its last fix as privacy lets it be shown, its failures.
    private static func providerLines(_ status: StatusDocument, now: Date, _ words: Messages) -> [(String, String)] {
        let label = words.tr("providers", context: "status")
        return status.providers.enumerated().map { index, provider in
            // A provider the chain never reached (one before it answered) has not failed: it is not tried yet.
            let mark = provider.attempts == 0 && provider.lastError == nil ? "·" : provider.ok ? "✓" : "✗"
            var text = "\(mark) \(provider.type)"
            if provider.attempts == 0, provider.lastError == nil, provider.lastPosition == nil {
                text += " " + words.tr("not tried")
            }
            if let position = provider.lastPosition {
                if let latitude = position.latitude, let longitude = position.longitude {
                    text +=
                        " "
                        + words.tr(
                            "last fix {latitude}, {longitude}",
                            [
                                "latitude": String(cFormat: "%.4f", latitude),
                                "longitude": String(cFormat: "%.4f", longitude),
                            ])
                } else {
                    text +=
                        " "
                        + (position.name.map { words.tr("last fix in {place}", ["place": $0]) }
                            ?? words.tr("last fix in a private place"))
                }
                if let accuracy = position.accuracyM { text += " (±\(Int(accuracy)) m)" }
                text += ", \(Self.ago(provider.lastSuccessAt, now: now, words))"
            }
            if !provider.ok, let error = provider.lastError {
                text += words.tr(
                    "; {failures} of {count} failed: {error}", plural: "; {failures} of {count} failed: {error}",
                    count: provider.attempts, ["failures": String(provider.failures), "error": error])
            }
            if let until = provider.skippedUntil { text += words.tr("; passed over until {time}", ["time": until]) }
            return (index == 0 ? label : "", text)
        }
    }

    /// `45 s`, `12 min`, `3 h 05 min`, `2 d 4 h`.
    static func duration(_ seconds: Double, _ words: Messages = .english) -> String {
        let total = Int(max(0, seconds))
        switch total {
        case ..<60: return words.tr("{seconds} s", ["seconds": String(total)])
        case ..<3600: return words.tr("{minutes} min", ["minutes": String(total / 60)])
        case ..<86400:
            return words.tr(
                "{hours} h {minutes} min",
                ["hours": String(total / 3600), "minutes": String(cFormat: "%02d", total % 3600 / 60)])
        default:
            return words.tr(
                "{days} d {hours} h", ["days": String(total / 86400), "hours": String(total % 86400 / 3600)])
        }
    }
}
