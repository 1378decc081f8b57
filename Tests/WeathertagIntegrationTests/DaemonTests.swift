import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The built binary against a real gpsd, a loopback OpenWeather stand-in, a real inbox and a real Unix socket.
@Suite("weathertag serve, end to end", .serialized)
struct DaemonTests {
    @Test func stampsEntriesWithGPSDPositionAndOneWeatherCall() async throws {
        try await withHarness { harness in
            let gpsdPort = try await harness.startGPSD(latitude: 48.8566, longitude: 2.3522)
            try harness.writeConfig(
                providers: """
                    [{"type": "gpsd", "host": "127.0.0.1", "port": \(gpsdPort), "timeout_seconds": 10},
                     \(harness.ipProvider),
                     {"type": "fixed", "latitude": 1, "longitude": 2}]
                    """
            )
            // Present before start: found by the start-up scan.
            try harness.directory.write("inbox/before.md", "Written while the daemon was down.\n")
            let daemon = try await harness.startDaemon()

            let bodies = [
                "renamed-1.md": "# Market day\n\nBought apples.\n",
                "renamed-2.md": "---\ntitle: \"Second\"  # keep me\n---\nText\n",
                "renamed-3.md": "Third, no trailing newline",
                "inplace-1.md": "In place one\r\nwith CRLF\r\n",
                "inplace-2.md": "---\ntags: [a, b]\n---\n\nIn place two\n",
            ]
            for (name, body) in bodies.sorted(by: { $0.key < $1.key }) {
                if name.hasPrefix("renamed") {
                    try harness.dropByRename(name, body)
                } else {
                    try harness.dropInPlace(name, body)
                }
            }
            for name in bodies.keys.sorted() + ["before.md"] {
                let weather = try await harness.waitForStamp(name)
                let location = try #require(weather["location"] as? [String: Any])
                #expect(location["latitude"] as? Double == 48.857, "\(name)")
                #expect(location["longitude"] as? Double == 2.352, "\(name)")
                #expect(location["source"] as? String == "gpsd", "\(name)")
                #expect(location["accuracy_m"] is Int, "\(name): gpsd's error estimate")
                #expect(weather["temperature"] as? Double == 12.3)
                #expect(weather["description"] as? String == "broken clouds")
                #expect(weather["icon"] as? String == "04d")
                let icon = try #require(weather["icon_file"] as? String)
                #expect(FileManager.default.fileExists(atPath: icon))
            }
            // The author's bytes are all still there.
            #expect(harness.read("renamed-1.md").hasSuffix("---\n# Market day\n\nBought apples.\n"))
            #expect(harness.read("renamed-3.md").hasSuffix("---\nThird, no trailing newline"))
            #expect(harness.read("renamed-2.md").hasPrefix("---\ntitle: \"Second\"  # keep me\nweather:\n"))
            #expect(harness.read("inplace-1.md").hasSuffix("    source: gpsd\r\n---\r\nIn place one\r\nwith CRLF\r\n"))

            // Six entries and the status query: one OpenWeather call, one icon download. A stamp is in its file
            // before it is remembered and counted (durable first, then told): the count is waited for.
            try await poll("six entries counted as stamped") { () -> Bool? in
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["stamped"] as? Int == 6 ? true : nil
            }
            #expect(try harness.standIn.calls("weather") == 1)
            #expect(try harness.standIn.calls("icon") == 1)
            #expect(!daemon.log.contains(WeatherStandIn.apiKey), "the key must never be logged")
            #expect(try await daemon.stop() == 0)
            #expect(!FileManager.default.fileExists(atPath: harness.socketPath), "socket removed at exit")
            #expect(daemon.notifications.contains { $0.contains("STOPPING=1") })
        }
    }

    /// Our own writes must not bring an entry back: each entry of a burst is read once, and nothing is counted as
    /// "already stamped" (the close of our temp file after the exchange used to report `IN_CLOSE_WRITE` under
    /// the entry's name).
    @Test func aBurstIsStampedReadingEachEntryOnce() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            let daemon = try await harness.startDaemon()
            // Entries dropped before the first scan lists the inbox are found twice, by the scan and by inotify:
            // that second read is right, and not what this test counts.
            try await poll("the first scan") {
                try daemon.get("/v1/status").json["entries"].flatMap {
                    ($0 as? [String: Any])?["last_scan_at"] as? String
                }
            }
            let count = 300
            for index in 0..<count {
                try harness.dropByRename(String(format: "burst-%03d.md", index), "Entry \(index)\n")
            }
            func entries() throws -> [String: Any] {
                try #require(try daemon.get("/v1/status").json["entries"] as? [String: Any])
            }
            try await poll("the burst stamped") { try entries()["stamped"] as? Int == count ? true : nil }
            // Events queue in order: once an entry dropped after the burst is stamped and nothing waits (queued or
            // in flight), every event our own writes caused has been handled.
            try harness.dropByRename("after.md", "After the burst\n")
            _ = try await harness.waitForStamp("after.md")
            try await poll("nothing waiting") { try entries()["waiting"] as? Int == 0 ? true : nil }
            let counters = try entries()
            #expect(counters["stamped"] as? Int == count + 1)
            // (Seen once in a full run under load, not reproduced alone: the log says which way the entry came back.)
            let why = daemon.log.split(separator: "\n").filter { line in
                ["changed while", "rescan", "overflow", "left as it is"].contains { line.contains($0) }
            }
            #expect(counters["already_stamped"] as? Int == 0, "\(why.suffix(20))")
            #expect(try harness.standIn.calls("weather") == 1)
            for index in [0, count / 2, count - 1] {
                #expect(harness.read(String(format: "burst-%03d.md", index)).hasSuffix("---\nEntry \(index)\n"))
            }
        }
    }

    /// A burst under systemd's default open-file limit (1,024 soft, a larger hard one): each batch holds one chunk's
    /// entries and copies open at most (an exchanged entry stays open until its chunk's folder is synced), so the
    /// burst is stamped without "too many open files" and without raising the limit. Before, a long batch held every
    /// entry it exchanged until its end: three in flight ran out of descriptors, a batch failed, was logged as an
    /// error, and paused the writes for a backoff (the descriptors, sampled, peaked at 1,054).
    @Test func aBurstUnderSystemdsDefaultOpenFileLimitRunsOutOfNothing() async throws {
        guard let prlimit = which("prlimit") else { throw TimeoutError(description: "prlimit (util-linux) is needed") }
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 1, "longitude": 2}]"#)
            // (The hard limit as it is: raising it takes a privilege.)
            let daemon = try await harness.startDaemon(launcher: [prlimit, "--nofile=1024:"])
            let limits = try String(contentsOfFile: "/proc/\(daemon.child.pid)/limits", encoding: .utf8)
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            let fields = line.split(separator: " ").dropFirst(3).prefix(2).compactMap {
                $0 == "unlimited" ? Int.max : Int($0)
            }
            try #require(fields.count == 2, "\(line)")
            #expect(fields[0] == 1024, "nothing to raise: \(line)")
            // Staged beside the inbox and renamed in at once, as a diary moved in: the queue is long, and the
            // batches are the long queue's size.
            let count = 5_000
            let staging = try harness.directory.makeDirectory("staging")
            let names = (0..<count).map { String(format: "moved-%04d.md", $0) }
            for name in names { try Data("Entry \(name)\n".utf8).write(to: URL(fileURLWithPath: staging + "/" + name)) }
            for name in names { rename(staging + "/" + name, harness.entryPath(name)) }
            // The descriptors it holds, looked at between the looks at its status (a look may miss the peak, never
            // add to it): three batches of a chunk's 32 entries and copies, 64 connections and a reserve of 96 at most
            // (`DescriptorBudget`).
            var peak = 0
            try await poll("the burst stamped", timeout: .seconds(120)) {
                let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.child.pid)/fd")
                peak = max(peak, open?.count ?? 0)
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["stamped"] as? Int == count ? true : nil
            }
            #expect(peak > 0 && peak <= 3 * 2 * 32 + 64 + 96, "\(peak) descriptors open")
            #expect(!daemon.log.contains("Too many open files"))
            for name in [names[0], names[count / 2], names[count - 1]] {
                #expect(harness.read(name).hasSuffix("---\nEntry \(name)\n"))
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func fallsBackFromGPSDToIPToFixed() async throws {
        try await withHarness { harness in
            let deadGPSD = RawHTTP.freePort()
            let providers = """
                [{"type": "gpsd", "port": \(deadGPSD), "timeout_seconds": 1},
                 \(harness.ipProvider),
                 {"type": "fixed", "latitude": -33.8688, "longitude": 151.2093, "name": "Sydney"}]
                """
            try harness.writeConfig(providers: providers)
            var daemon = try await harness.startDaemon()
            var location = try daemon.get("/v1/location").json
            #expect(location["source"] as? String == "ip")
            #expect(location["latitude"] as? Double == 37.567)
            try harness.dropInPlace("via-ip.md", "entry\n")
            let viaIP = try await harness.waitForStamp("via-ip.md")
            #expect((viaIP["location"] as? [String: Any])?["source"] as? String == "ip")
            let status = try daemon.get("/v1/status").json
            let gpsd = try #require((status["providers"] as? [[String: Any]])?.first)
            #expect(gpsd["connected"] as? String == "false")
            #expect((gpsd["last_error"] as? String)?.contains("gpsd") == true)
            #expect(try await daemon.stop() == 0)

            // IP geolocation failing too: the fixed place.
            try harness.standIn.control(#"{"ip": {"mode": "500"}}"#)
            daemon = try await harness.startDaemon()
            location = try daemon.get("/v1/location").json
            #expect(location["source"] as? String == "fixed")
            #expect(location["name"] as? String == "Sydney")
            try harness.dropByRename("via-fixed.md", "entry\n")
            let viaFixed = try await harness.waitForStamp("via-fixed.md")
            #expect((viaFixed["location"] as? [String: Any])?["latitude"] as? Double == -33.869)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func reconnectsWhenGPSDComesBack() async throws {
        try await withHarness { harness in
            let gpsdPort = try await harness.startGPSD(latitude: 59.3293, longitude: 18.0686)
            try harness.writeConfig(
                providers: """
                    [{"type": "gpsd", "port": \(gpsdPort), "timeout_seconds": 10, "max_fix_age_seconds": 2},
                     {"type": "fixed", "latitude": 1, "longitude": 2}]
                    """
            )
            let daemon = try await harness.startDaemon()
            #expect(try daemon.get("/v1/location").json["source"] as? String == "gpsd")

            let gpsd = try #require(harness.gpsd)
            await gpsd.stopGPSD()
            try await poll("the fallback to the fixed place") { () -> Bool? in
                try daemon.get("/v1/location").json["source"] as? String == "fixed" ? true : nil
            }
            try await gpsd.restartGPSD()
            let back = try await poll("gpsd again", timeout: .seconds(40)) { () -> [String: Any]? in
                let location = try daemon.get("/v1/location").json
                return location["source"] as? String == "gpsd" ? location : nil
            }
            #expect(back["latitude"] as? Double == 59.329)
            let provider = try #require((try daemon.get("/v1/status").json["providers"] as? [[String: Any]])?.first)
            #expect(Int(provider["reconnects"] as? String ?? "0") ?? 0 >= 1)
            #expect(provider["connected"] as? String == "true")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func cacheSurvivesARestart() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978}]"#)
            var daemon = try await harness.startDaemon()
            let first = try daemon.get("/v1/tag")
            #expect(first.status == 200)
            #expect(try await daemon.stop() == 0)
            #expect(FileManager.default.fileExists(atPath: harness.cache + "/weather.json"))

            daemon = try await harness.startDaemon()
            let second = try daemon.get("/v1/tag")
            #expect(second.status == 200)
            #expect(second.json["fetched_at"] as? String == first.json["fetched_at"] as? String)
            try harness.dropInPlace("after-restart.md", "entry\n")
            _ = try await harness.waitForStamp("after-restart.md")
            #expect(try harness.standIn.calls("weather") == 1, "the restart reused the cached weather")
            #expect(try harness.standIn.calls("icon") == 1, "the icon is downloaded once, ever")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func socketAPI() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: #"[{"type": "fixed", "latitude": 37.5665, "longitude": 126.978, "name": "Seoul"}]"#
            )
            let daemon = try await harness.startDaemon()

            var info = stat()
            #expect(lstat(harness.socketPath, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660, "socket mode")

            let tag = try daemon.get("/v1/tag")
            #expect(tag.status == 200)
            #expect(tag.headers["content-type"] == "application/json")
            let json = tag.json
            for key in [
                "condition", "description", "code", "icon", "icon_file", "temperature", "feels_like", "humidity",
                "pressure", "wind_speed", "units", "observed_at", "place", "location", "stale", "fetched_at",
            ] {
                #expect(json[key] != nil, "/v1/tag lacks \(key)")
            }
            #expect(json["stale"] as? Bool == false)
            #expect(json["temperature"] as? Double == 12.3)
            #expect(!tag.body.contains(WeatherStandIn.apiKey))

            let text = try daemon.get("/v1/tag?format=text")
            #expect(text.status == 200)
            #expect(text.body == "☁️ 12.3°C broken clouds · Seoul\n")

            let location = try daemon.get("/v1/location").json
            #expect(location["source"] as? String == "fixed" && location["latitude"] as? Double == 37.567)

            let status = try daemon.get("/v1/status").json
            // One for the weather, one for the place's name (the geocoder counts against the same ceiling).
            #expect((status["openweather"] as? [String: Any])?["calls"] as? Int == 2)
            #expect((status["cache"] as? [String: Any])?["places"] as? Int == 1)
            #expect((status["providers"] as? [[String: Any]])?.first?["type"] as? String == "fixed")

            let missing = try daemon.get("/v2/nothing")
            #expect(missing.status == 404)
            #expect(missing.json["error"] is String)

            // The client command, three ways.
            let binary = DaemonProcess.binary
            let line = try await ChildProcess.run(
                [binary, "tag", "--socket", harness.socketPath], in: harness.directory)
            #expect(line.status == 0)
            #expect(line.stdout == "☁️ 12.3°C broken clouds · Seoul\n")
            let viaConfig = try await ChildProcess.run(
                [binary, "tag", "--config", harness.directory.file("config.json"), "--json"],
                in: harness.directory
            )
            #expect(viaConfig.status == 0)
            let parsed = try JSONSerialization.jsonObject(with: Data(viaConfig.stdout.utf8)) as? [String: Any]
            #expect(parsed?["icon"] as? String == "04d")
            let templated = try await ChildProcess.run(
                [binary, "tag", "--socket", harness.socketPath, "--format", "{temp}|{place}|{icon_code}"],
                in: harness.directory
            )
            #expect(templated.stdout == "12.3|Seoul|04d\n")
            // waybar's custom module: one JSON line.
            let waybar = try await ChildProcess.run(
                [binary, "tag", "--socket", harness.socketPath, "--waybar"], in: harness.directory)
            #expect(waybar.status == 0)
            #expect(waybar.stdout.split(separator: "\n").count == 1)
            let module = try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any]
            #expect(module?["text"] as? String == "☁️ 12.3°C broken clouds · Seoul")
            #expect(module?["alt"] as? String == "ok")
            // Day or night as the sun at the place is now (the stand-in's sunrise and sunset are the real sun's).
            let daylight = try #require(parsed?["daylight"] as? Bool)
            #expect(module?["class"] as? [String] == ["ok", "clouds", daylight ? "day" : "night"])
            #expect((module?["tooltip"] as? String)?.contains("broken clouds, 12.3°C") == true)
            // `weathertag status`, readable and as JSON.
            let readable = try await ChildProcess.run(
                [binary, "status", "--socket", harness.socketPath], in: harness.directory)
            #expect(readable.status == 0)
            let shown = readable.stdout
            #expect(shown.contains("weather    ☁️ 12.3°C broken clouds · Seoul, from fixed"), "\(shown)")
            #expect(shown.contains("calls      2 calls today, 2 since start"), "\(shown)")
            #expect(shown.contains("providers  ✓ fixed last fix"), "\(shown)")
            #expect(shown.contains("0 waiting"))
            #expect(shown.contains(", listed ") && !shown.contains("listed never"), "the first scan, long done")
            let statusJSON = try await ChildProcess.run(
                [binary, "status", "--socket", harness.socketPath, "--json"], in: harness.directory)
            let document = try JSONSerialization.jsonObject(with: Data(statusJSON.stdout.utf8)) as? [String: Any]
            #expect((document?["openweather"] as? [String: Any])?["calls_today"] as? Int == 2)
            #expect((document?["weather"] as? [String: Any])?["description"] as? String == "broken clouds")
            #expect(try harness.standIn.calls("weather") == 1)

            // A daemon that hangs (SIGSTOP) does not hang the bar: --timeout (2 s by default), then the fallback.
            daemon.child.signal(SIGSTOP)
            let hung = try ChildProcess(
                [binary, "tag", "--socket", harness.socketPath, "--waybar", "--timeout", "0.3"],
                stderrPath: harness.directory.file("hung.log"))
            let hungOutput = hung.readStdout()
            let hungStatus = try await hung.waitForExit(timeout: .seconds(10))
            daemon.child.signal(SIGCONT)
            #expect(hungStatus == 0 && hungOutput.contains(#""unavailable""#), "\(hungOutput)")
            #expect(try await daemon.stop() == 0)

            let down = try await ChildProcess.run(
                [binary, "tag", "--socket", harness.socketPath], in: harness.directory)
            #expect(down.status == 69)
            #expect(down.stderr.contains("cannot reach the daemon"))
            #expect(down.stderr.contains("nothing answers on \(harness.socketPath)"), "\(down.stderr)")
            #expect(!down.stderr.contains("port 80"), "libcurl's words about TCP: \(down.stderr)")
            // The bar still gets a module it draws (text not empty, exit 0: waybar hides anything else), saying why.
            let downWaybar = try await ChildProcess.run(
                [binary, "tag", "--socket", harness.socketPath, "--waybar"], in: harness.directory)
            #expect(downWaybar.status == 0)
            let unavailable = try JSONSerialization.jsonObject(with: Data(downWaybar.stdout.utf8)) as? [String: Any]
            #expect(unavailable?["alt"] as? String == "unavailable" && unavailable?["text"] as? String == "n/a")
            #expect((unavailable?["tooltip"] as? String)?.contains("cannot reach the daemon") == true)
            #expect(downWaybar.stderr.contains("cannot reach the daemon"))
            // Other bars (polybar, tmux, i3blocks): a short placeholder on stdout, the reason on stderr only.
            let downPlain = try await ChildProcess.run(
                [binary, "tag", "--socket", harness.socketPath, "--fallback", "–"], in: harness.directory)
            #expect(downPlain.status == 0 && downPlain.stdout == "–\n" && downPlain.stderr.contains("cannot reach"))
        }
    }

    @Test func concurrentQueriesShareOneCall() async throws {
        try await withHarness { harness in
            // A slow OpenWeather, so all queries arrive while the first call is still in flight.
            try harness.standIn.control(#"{"weather": {"delay": 0.5}}"#)
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 35.6762, "longitude": 139.6503}]"#)
            let daemon = try await harness.startDaemon()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try RawHTTP.request(.unix(path: harness.socketPath), "GET", "/v1/tag").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 8))
            #expect(try harness.standIn.calls("weather") == 1)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func staleWeatherIsServedAndMarkedWhenARefreshFails() async throws {
        try await withHarness { harness in
            // Entries take weather at most a second old.
            try harness.writeConfig(
                providers: #"[{"type": "fixed", "latitude": 10, "longitude": 20}]"#,
                extra: #", "stamp": {"max_age_seconds": 1}"#
            )
            // A one-second TTL, so the cached weather expires while OpenWeather is failing.
            let config = try String(contentsOfFile: harness.directory.file("config.json"), encoding: .utf8)
            try harness.directory.write(
                "config.json", config.replacingOccurrences(of: "\"ttl_seconds\": 600", with: "\"ttl_seconds\": 1"))
            let daemon = try await harness.startDaemon()
            #expect(try daemon.get("/v1/tag").json["stale"] as? Bool == false)
            try harness.standIn.control(#"{"weather": {"mode": "500"}}"#)
            let stale = try await poll("a stale answer", timeout: .seconds(10)) { () -> [String: Any]? in
                let json = try daemon.get("/v1/tag").json
                return json["stale"] as? Bool == true ? json : nil
            }
            #expect(stale["temperature"] as? Double == 12.3)
            #expect((stale["age_seconds"] as? Int ?? 0) >= 1)
            let waybar = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--socket", harness.socketPath, "--waybar"], in: harness.directory)
            let module = try JSONSerialization.jsonObject(with: Data(waybar.stdout.utf8)) as? [String: Any]
            #expect(module?["alt"] as? String == "stale")
            #expect((module?["class"] as? [String])?.first == "stale")
            // Weather older than stamp.max_age_seconds is never stamped: the entry waits.
            try harness.dropInPlace("not-with-stale.md", "entry\n")
            try await poll("the entry to wait") { () -> Bool? in
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["waiting"] as? Int == 1 ? true : nil
            }
            #expect(harness.read("not-with-stale.md") == "entry\n")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// A second `serve` on a socket the first answers on leaves it alone and exits 73, which the units list in
    /// `RestartPreventExitStatus=`: systemd does not start it again and again.
    @Test func aSecondDaemonOnTheSameSocketExits73() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 10, "longitude": 20}]"#)
            let daemon = try await harness.startDaemon()
            let second = try await ChildProcess.run(
                [DaemonProcess.binary, "serve", "--config", harness.directory.file("config.json")],
                in: harness.directory)
            #expect(second.status == 73, "\(second.stderr)")
            #expect(second.stderr.contains("another weathertag is already listening on \(harness.socketPath)"))
            #expect(try daemon.get("/v1/tag").status == 200, "the first one still answers")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func permissionsStaleSocketsSIGINTAndJournalPrefixes() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 10, "longitude": 20}]"#)
            // A socket file left behind by a crash: bound, never unlinked, nobody listening.
            let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let bound = withUnixAddress(harness.socketPath) { bind(stale, $0, $1) }
            close(stale)
            #expect(bound == 0 && FileManager.default.fileExists(atPath: harness.socketPath))

            // stderr is "the journal": $JOURNAL_STREAM names its device and inode.
            let (log, journalStream) = try harness.journalStream("journal.log")
            // No journald socket to write to: lines on stderr, with priorities.
            let daemon = try await harness.startDaemon(
                environment: [
                    "JOURNAL_STREAM": journalStream,
                    "WEATHERTAG_JOURNAL_SOCKET": harness.directory.file("no-journald.sock"),
                ],
                stderrPath: log
            )
            #expect(try daemon.get("/v1/tag").status == 200)

            // The mode is set before the entry appears: set after, the daemon may have stamped it already.
            try harness.dropByRename("private.md", "secret diary\n", permissions: 0o640)
            _ = try await harness.waitForStamp("private.md")
            var stamped = stat()
            #expect(stat(harness.entryPath("private.md"), &stamped) == 0)
            #expect(stamped.st_mode & 0o7777 == 0o640, "the entry keeps its permissions")

            #expect(try await daemon.stop(signal: SIGINT) == 0)
            let lines = daemon.log.split(separator: "\n")
            #expect(!lines.isEmpty)
            #expect(lines.allSatisfy { $0.hasPrefix("<") }, "journald priority prefixes: \(lines.prefix(3))")
            #expect(lines.contains { $0.hasPrefix("<6>ready") })
        }
    }

    /// Under journald, entries go to its native socket with swift-log metadata as fields of their own.
    @Test func logsReachJournaldWithStructuredFields() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 10, "longitude": 20}]"#)
            let journal = try DatagramSocket(path: harness.directory.file("journal.sock"))
            let (log, journalStream) = try harness.journalStream("stderr.log")
            let daemon = try await harness.startDaemon(
                environment: [
                    "JOURNAL_STREAM": journalStream, "WEATHERTAG_JOURNAL_SOCKET": journal.path,
                ],
                stderrPath: log
            )
            try harness.dropInPlace("fields.md", "An entry\n")
            // Read as journald would, all along (the daemon never waits for a full socket; it writes to stderr).
            let stamped = try await poll("the stamp's journal entry") { () -> String? in
                journal.received().first { $0.contains("MESSAGE=stamped") }
            }
            #expect(harness.read("fields.md").hasSuffix("---\nAn entry\n"))
            let fields = Dictionary(
                stamped.split(separator: "\n").compactMap { line -> (String, String)? in
                    guard let equals = line.firstIndex(of: "=") else { return nil }
                    return (String(line[..<equals]), String(line[line.index(after: equals)...]))
                },
                uniquingKeysWith: { $1 })
            #expect(fields["PRIORITY"] == "6")
            #expect(fields["SYSLOG_IDENTIFIER"] == "weathertag")
            #expect(fields["WEATHERTAG_ENTRY"] == "fields.md")
            #expect(fields["WEATHERTAG_SOURCE"] == "fixed")
            #expect(fields["MESSAGE"]?.hasPrefix("stamped entry=fields.md") == true)
            #expect(try await daemon.stop() == 0)
            let everything = journal.received().joined(separator: "\n")
            #expect(everything.contains("MESSAGE=ready"))
            #expect(!everything.contains(WeatherStandIn.apiKey), "the key must never be logged")
            // All of it went to journald; stderr stayed empty.
            #expect(daemon.log.isEmpty, "\(daemon.log.prefix(300))")
        }
    }

    @Test func entriesWaitUntouchedWhileThereIsNoWeather() async throws {
        try await withHarness { harness in
            try harness.standIn.control(#"{"weather": {"mode": "503"}}"#)
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 10, "longitude": 20}]"#)
            let daemon = try await harness.startDaemon()

            let original = "---\ntitle: waiting\n---\nStill mine.\n"
            try harness.dropInPlace("waits.md", original)
            try await poll("the entry to be counted as waiting") { () -> Bool? in
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["waiting"] as? Int == 1 ? true : nil
            }
            #expect(harness.read("waits.md") == original)
            let tag = try daemon.get("/v1/tag")
            #expect(tag.status == 503)
            #expect((tag.json["error"] as? String)?.contains("HTTP 503") == true)
            let client = try await ChildProcess.run(
                [DaemonProcess.binary, "tag", "--socket", harness.socketPath],
                in: harness.directory
            )
            #expect(client.status == 75, "no weather yet is a temporary failure")
            #expect(client.stderr.contains("no weather yet"))

            try harness.standIn.control(#"{"weather": {"mode": "ok"}}"#)
            // Asked again when the outage's backoff ends, which a loaded machine makes longer (it doubles per failure).
            let weather = try await harness.waitForStamp("waits.md", timeout: .seconds(150))
            #expect(weather["condition"] as? String == "Clouds")
            #expect(harness.read("waits.md").hasSuffix("---\nStill mine.\n"))
            #expect(!daemon.log.contains(WeatherStandIn.apiKey), "the key must never be logged")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func filesItMustNotTouchAreLeftAlone() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: #"[{"type": "fixed", "latitude": 10, "longitude": 20}]"#)
            let outside = harness.directory.file("outside.md")
            try harness.directory.write("outside.md", "not in the inbox\n")
            let daemon = try await harness.startDaemon()

            let untouched = [
                "unterminated.md": "---\ntitle: never closed\n",
                "toml.md": "+++\ntitle = 'x'\n+++\n",
                "notes.txt": "not markdown\n",
                ".hidden.md": "hidden\n",
                "draft.md~": "backup\n",
            ]
            for (name, body) in untouched { try harness.dropInPlace(name, body) }
            // A symlink moved in (IN_MOVED_TO), as a sync tool or `mv` would bring it.
            try FileManager.default.createSymbolicLink(
                atPath: harness.directory.file("link.md"), withDestinationPath: outside)
            #expect(rename(harness.directory.file("link.md"), harness.entryPath("link.md")) == 0)
            try harness.dropInPlace("zz-good.md", "fine\n")
            _ = try await harness.waitForStamp("zz-good.md")
            // Batches run side by side: wait until the three candidates are accounted for, not for the last one.
            try await poll("three entries left alone") {
                let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                return entries?["skipped"] as? Int == 3 && entries?["waiting"] as? Int == 0 ? true : nil
            }
            for (name, body) in untouched {
                #expect(harness.read(name) == body, "\(name) was changed")
            }
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == "not in the inbox\n")
            // The link itself is left: not followed, not replaced by a stamped copy.
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: harness.entryPath("link.md"))
            #expect(link == outside)
            #expect(daemon.log.contains("it is a symbolic link"), "refused at open (O_NOFOLLOW), not by luck later")
            #expect(daemon.log.contains("entry left as it is"))
            #expect(daemon.log.contains("unterminated.md"))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: harness.inbox).filter {
                $0.contains("weathertag-tmp")
            }
            #expect(leftovers.isEmpty)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func commandProviderIsAPlugin() async throws {
        try await withHarness { harness in
            try harness.directory.write(
                "where-am-i",
                "#!/bin/sh\necho run >> \"$0.runs\"\n"
                    + "echo '{\"latitude\": 64.1466, \"longitude\": -21.9426, \"accuracy_m\": 25, \"name\": \"Reykjavik\"}'\n"
            )
            try harness.directory.write("too-slow", "#!/bin/sh\nexec sleep 30\n")
            for script in ["where-am-i", "too-slow"] {
                chmod(harness.directory.file(script), 0o755)
            }
            try harness.writeConfig(
                providers: """
                    [{"type": "command", "argv": ["./too-slow"], "timeout_seconds": 0.5},
                     {"type": "command", "argv": ["\(harness.directory.file("where-am-i"))", "--json"]}]
                    """
            )
            let daemon = try await harness.startDaemon()
            let location = try daemon.get("/v1/location").json
            #expect(location["source"] as? String == "command")
            #expect(location["latitude"] as? Double == 64.147)
            #expect(location["accuracy_m"] as? Int == 25)
            let status = try daemon.get("/v1/status").json
            let slow = try #require((status["providers"] as? [[String: Any]])?.first)
            #expect((slow["last_error"] as? String)?.contains("no position within") == true)
            // A status bar asking again and again does not run the program each time (cache_seconds, 60 s).
            for _ in 0..<5 { #expect(try daemon.get("/v1/location").status == 200) }
            let runs = try String(contentsOfFile: harness.directory.file("where-am-i.runs"), encoding: .utf8)
            #expect(runs.split(separator: "\n").count == 1)
            #expect(try await daemon.stop() == 0)
        }
    }
}

@Suite("weathertag serve and check: configuration", .serialized)
struct CommandLineTests {
    @Test func aBadConfigurationNamesTheFieldAndTouchesNothing() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: #"[{"type": "ip"}, {"type": "teleport"}]"#)
            let result = try await ChildProcess.run(
                [DaemonProcess.binary, "serve", "--config", config], in: harness.directory)
            #expect(result.status == 78)
            #expect(
                result.stderr.contains(
                    #"location.providers[1].type: unknown provider "teleport"; known: gpsd, ip, command, fixed"#
                )
            )
            #expect(!FileManager.default.fileExists(atPath: harness.socketPath))
            #expect(!FileManager.default.fileExists(atPath: harness.cache))

            try harness.directory.write("broken.json", "{\n  \"inbox\": {\"path\": \"inbox\"},,\n}\n")
            let broken = try await ChildProcess.run(
                [DaemonProcess.binary, "serve", "--config", harness.directory.file("broken.json")],
                in: harness.directory
            )
            #expect(broken.status == 78)
            #expect(broken.stderr.contains("invalid JSON at line 2, column 30"))

            // No key is fine (Open-Meteo needs none) until something asks for OpenWeather.
            try harness.directory.write(
                "nokey.json", #"{"inbox": {"path": "inbox"}, "weather": {"providers": [{"type": "openweather"}]}}"#)
            let noKey = try await ChildProcess.run(
                [DaemonProcess.binary, "serve", "--config", harness.directory.file("nokey.json")],
                environment: ["PATH": "/usr/bin:/bin", "HOME": harness.directory.path],
                in: harness.directory
            )
            #expect(noKey.status == 78)
            #expect(
                noKey.stderr.contains(
                    "openweather.api_key: no OpenWeather API key, and weather.providers[0].type openweather needs one"))
        }
    }

    /// `serve --config FILE [--log-level LEVEL]` is read without ArgumentParser (`ServeCommandLine`); every other
    /// line still goes through it, with its answers and exit codes.
    @Test func serveReadsItsOwnLineAndLeavesTheRestToArgumentParser() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: #"[{"type": "teleport"}]"#)
            for line in [["serve", "--config=\(config)"], ["serve", "-c", config, "--log-level", "error"]] {
                let result = try await ChildProcess.run([DaemonProcess.binary] + line, in: harness.directory)
                #expect(result.status == 78, "\(line)")
                #expect(result.stderr.contains(#"location.providers[0].type: unknown provider "teleport""#), "\(line)")
            }
            let badLevel = try await ChildProcess.run(
                [DaemonProcess.binary, "serve", "--config", config, "--log-level", "loud"], in: harness.directory)
            #expect(badLevel.status == 64)
            #expect(badLevel.stderr.contains("'loud'"))
            #expect(badLevel.stderr.contains("--log-level"))
            let help = try await ChildProcess.run([DaemonProcess.binary, "serve", "--help"], in: harness.directory)
            #expect(help.status == 0)
            #expect(help.stdout.contains("--config"))
            #expect(help.stdout.contains("Run the daemon in the foreground"))
            let missing = try await ChildProcess.run(
                [DaemonProcess.binary, "serve", "--config"], in: harness.directory)
            #expect(missing.status == 64)
            #expect(missing.stderr.contains("--config"))
            #expect(!FileManager.default.fileExists(atPath: harness.socketPath))
        }
    }

    @Test func checkProbesProvidersAndTheKey() async throws {
        try await withHarness { harness in
            let gpsdPort = try await harness.startGPSD(latitude: 51.5074, longitude: -0.1278)
            let providers = """
                [{"type": "gpsd", "port": \(gpsdPort), "timeout_seconds": 10}, \(harness.ipProvider),
                 {"type": "fixed", "latitude": 1, "longitude": 2}]
                """
            var config = try harness.writeConfig(providers: providers)
            let good = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", config], in: harness.directory)
            #expect(good.status == 0, "\(good.stdout)")
            #expect(good.stdout.contains("ok   location.providers[0] gpsd: 51.50740, -0.12780"))
            #expect(good.stdout.contains("ok   location.providers[1] ip (IP geolocation): 37.56650, 126.97800"))
            #expect(good.stdout.contains("ok   openweather: key accepted"))
            // The exact position is printed on the user's terminal, but OpenWeather is asked with no more than
            // privacy.request_decimals (2 by default), as the daemon asks it.
            #expect(good.stdout.contains("(asked for 51.51,-0.13, privacy.request_decimals 2)"), "\(good.stdout)")
            let queries = try harness.standIn.weatherQueries()
            #expect(!queries.isEmpty)
            for query in queries {
                #expect(
                    PrivacyIntegrationTests.decimals(query.latitude) <= 2
                        && PrivacyIntegrationTests.decimals(query.longitude) <= 2, "\(query)")
            }

            config = try harness.writeConfig(providers: providers, key: "wrong-key-abcdef")
            let bad = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", config], in: harness.directory)
            #expect(bad.status == 1)
            #expect(bad.stdout.contains("FAIL openweather: OpenWeather rejected the API key (HTTP 401"))
            #expect(!bad.stdout.contains("wrong-key-abcdef") && !bad.stderr.contains("wrong-key-abcdef"))
        }
    }
}
