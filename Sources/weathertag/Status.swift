import ArgumentParser
import Foundation
import WeathertagCore

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the running daemon's state: entries, weather, cache, OpenWeather calls and providers.",
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
        let document: JSONValue
        do {
            let response = try await DaemonConnection.get("/v1/status", socketPath: socketPath)
            document = try JSONParser.parse(response.body)
        } catch {
            printError("cannot reach the daemon at \(socketPath): \(error) (is `weathertag serve` running?)")
            throw ExitCode(ExitStatus.unavailable)
        }
        if self.json {
            print(document.serialized)
        } else {
            print(Self.render(document, now: Date()), terminator: "")
        }
    }

    /// The status document as a few aligned lines.
    static func render(_ status: JSONValue, now: Date) -> String {
        func number(_ value: JSONValue?, _ key: String) -> Int { Int(value?[key]?.numberValue ?? 0) }
        func ago(_ iso: String?) -> String {
            guard let iso, let date = Date(iso8601: iso) else { return "never" }
            return Self.duration(now.timeIntervalSince(date)) + " ago"
        }
        var lines: [(String, String)] = []
        let uptime = Self.duration(status["uptime_seconds"]?.numberValue ?? 0)
        let entries = status["entries"]
        let scanned = ago(entries?["last_scan_at"]?.stringValue)
        lines.append(("inbox", "\(status["inbox"]?.stringValue ?? "?") (up \(uptime), listed \(scanned))"))
        lines.append(
            (
                "entries",
                "\(number(entries, "stamped")) stamped · \(number(entries, "waiting")) waiting · "
                    + "\(number(entries, "skipped")) left alone · \(number(entries, "already_stamped")) already stamped"
            ))
        if let weather = status["weather"], let tag = try? WeatherTag(json: weather),
            let line = try? TagFormatter().format(tag)
        {
            lines.append(("weather", line + (tag.stale ? " (stale)" : "") + ", from \(tag.position.source)"))
        } else {
            lines.append(("weather", "none yet"))
        }
        let cache = status["cache"]
        lines.append(
            (
                "cache",
                "\(number(cache, "places")) place(s), last fetched \(ago(cache?["last_fetched_at"]?.stringValue)); "
                    + "\(number(cache, "hits")) hits, \(number(cache, "misses")) misses"
            ))
        let openWeather = status["openweather"]
        var calls = "\(number(openWeather, "calls_today")) calls today, \(number(openWeather, "calls")) since start"
        if let error = openWeather?["last_error"]?.stringValue { calls += "; last error: \(error)" }
        if let next = openWeather?["next_attempt_at"]?.stringValue { calls += "; next attempt at \(next)" }
        lines.append(("openweather", calls))
        if case .array(let providers) = status["providers"] ?? .null {
            for (index, provider) in providers.enumerated() {
                let ok = provider["ok"] == .bool(true)
                var text = "\(ok ? "✓" : "✗") \(provider["type"]?.stringValue ?? "?")"
                if let position = provider["last_position"], let latitude = position["latitude"]?.numberValue,
                    let longitude = position["longitude"]?.numberValue
                {
                    text += String(format: " last fix %.4f, %.4f", latitude, longitude)
                    if let accuracy = position["accuracy_m"]?.numberValue { text += " (±\(Int(accuracy)) m)" }
                    text += ", \(ago(provider["last_success_at"]?.stringValue))"
                }
                if !ok, let error = provider["last_error"]?.stringValue {
                    text += "; \(number(provider, "failures")) of \(number(provider, "attempts")) failed: \(error)"
                }
                if let until = provider["skipped_until"]?.stringValue { text += "; passed over until \(until)" }
                lines.append((index == 0 ? "providers" : "", text))
            }
        }
        if let error = status["last_error"]?.stringValue {
            lines.append(("last error", "\(error) (\(ago(status["last_error_at"]?.stringValue)))"))
        }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { label, text in
            label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + text + "\n"
        }.joined()
    }

    /// `45 s`, `12 min`, `3 h 05 min`, `2 d 4 h`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds))
        switch total {
        case ..<60: return "\(total) s"
        case ..<3600: return "\(total / 60) min"
        case ..<86400: return String(format: "%d h %02d min", total / 3600, total % 3600 / 60)
        default: return "\(total / 86400) d \(total % 86400 / 3600) h"
        }
    }
}
