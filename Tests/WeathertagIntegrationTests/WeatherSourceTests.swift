import Foundation
import Glibc
import Testing
import WeathertagTestSupport
import Yams

/// Weather without a paywall, against the loopback stand-in's Open-Meteo, MET Norway and OpenWeather: a keyless
/// default, every source giving the same block, the next source answering for a failing one, a ten-year diary's
/// history in tens of requests within a budget that holds across a restart, and place names with no request.
@Suite("Weather sources", .serialized)
struct WeatherSourceTests {
    static let geneva = #"[{"type": "fixed", "latitude": 46.2041, "longitude": 6.1432}]"#

    /// Keyless, in the diarist's language: `check` says where the words come from, the stamp's `description` is in
    /// Japanese while its `condition` stays the machine's; after a reload to a language without words, the next stamp
    /// is in English whole, from the cache too (the weather cached in Japanese is asked for again).
    @Test func theKeylessSourcesSpeakTheDiaristsLanguage() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(
                providers: Self.geneva, key: "", extra: #", "weather": {"lang": "ja"}"#)
            let check = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", config], environment: ["PATH": "/usr/bin:/bin"],
                in: harness.directory)
            #expect(check.status == 0, "\(check.stdout)")
            #expect(check.stdout.contains("ok   weather.lang: ja: the sources that send a code describe"))
            #expect(check.stdout.contains("ok   open-meteo: 曇り, 4.2°C"), "\(check.stdout)")

            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            try harness.dropByRename("today.md", "Today\n")
            let block = try await harness.waitForStamp("today.md")
            #expect(block["description"] as? String == "曇り" && block["condition"] as? String == "Clouds")
            let calls = try harness.standIn.calls("open-meteo")

            try harness.patchConfig(#""weather": {"lang": "ja"}"#, #""weather": {"lang": "th"}"#)
            daemon.child.signal(SIGHUP)
            try await poll("the reload") { daemon.log.contains("configuration reloaded") ? true : nil }
            let words = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", config], environment: ["PATH": "/usr/bin:/bin"],
                in: harness.directory)
            #expect(words.stdout.contains("warn weather.lang: th has no weather words here"), "\(words.stdout)")
            try harness.dropByRename("later.md", "Later\n")
            let later = try await harness.waitForStamp("later.md")
            #expect(later["description"] as? String == "overcast", "English whole, not the cached Japanese")
            #expect(try harness.standIn.calls("open-meteo") > calls, "asked again")
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func withoutAKeyOpenMeteoAnswersAndNothingAsksOpenWeather() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(
                providers: Self.geneva, key: "", extra: #", "air_quality": {"enabled": true}"#)
            let check = try await ChildProcess.run(
                [DaemonProcess.binary, "check", "--config", config], environment: ["PATH": "/usr/bin:/bin"],
                in: harness.directory)
            #expect(check.status == 0, "\(check.stdout)")
            #expect(check.stdout.contains("no weather.providers and no OpenWeather key, so Open-Meteo"))
            #expect(check.stdout.contains("ok   open-meteo: overcast, 4.2°C (asked for 46.2,6.14"), "\(check.stdout)")

            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            try harness.dropByRename("today.md", "Today\n")
            let block = try await harness.waitForStamp("today.md")
            #expect(block["weather_source"] as? String == "open-meteo")
            #expect(block["condition"] as? String == "Clouds" && block["description"] as? String == "overcast")
            #expect(block["icon"] as? String == "04d" && block["code"] as? Int == 804)
            #expect(block["temperature"] as? Double == 4.2 && block["humidity"] as? Int == 76)
            #expect(block["icon_file"] == nil, "OpenWeather's images only when OpenWeather is a source")
            let air = block["air"] as? [String: Any]
            #expect(air?["aqi"] as? Int == 34 && air?["label"] as? String == "fair")
            #expect(air?["scale"] as? String == "european" && air?["pm2_5"] as? Double == 8.1)
            let tag = try daemon.get("/v1/tag").json
            #expect(tag["weather_source"] as? String == "open-meteo")

            // What left the machine: two decimals to Open-Meteo, nothing to OpenWeather.
            let asked = try harness.standIn.keylessQueries("open-meteo")
            #expect(asked.allSatisfy { $0["latitude"] == "46.20000" && $0["longitude"] == "6.14000" }, "\(asked)")
            #expect(try harness.standIn.keylessQueries("open-meteo-air").first?["latitude"] == "46.20000")
            for endpoint in ["weather", "geo", "air", "icon"] {
                #expect(try harness.standIn.calls(endpoint) == 0, "\(endpoint)")
            }
            #expect(try await daemon.stop() == 0)
        }
    }

    /// The block of a configuration that has only ever known OpenWeather, field by field, as before there were
    /// sources to choose from.
    static let openWeatherBlock = [
        "condition", "description", "code", "icon", "icon_file", "temperature", "feels_like", "humidity", "pressure",
        "wind_speed", "wind_deg", "wind_direction", "clouds", "visibility", "units", "observed_at", "local_time",
        "sunrise", "sunset", "daylight", "moon_phase", "moon_illumination", "kind", "place", "region", "country",
        "location",
    ]

    @Test func anOpenWeatherConfigurationStampsAsItAlwaysDid() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.geneva)
            let daemon = try await harness.startDaemon()
            try harness.dropByRename("today.md", "Today\n")
            _ = try await harness.waitForStamp("today.md")
            let text = harness.read("today.md")
            let keys = text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let colon = line.firstIndex(of: ":") else {
                    return nil
                }
                return String(line[line.index(line.startIndex, offsetBy: 2)..<colon])
            }
            #expect(keys == Self.openWeatherBlock, "\(text)")
            #expect(try harness.standIn.calls("weather") == 1 && harness.standIn.calls("open-meteo") == 0)
            #expect(try daemon.get("/v1/tag").json["weather_source"] is NSNull)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func historyTurnedOnByAReloadAndStampAtTakeTheSamePath() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(providers: Self.geneva, key: "")
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            try harness.dropByRename("2019-05-01.md", "A spring day\n")
            try await poll("left alone as back-dated") {
                daemon.log.contains("the weather then needs history.enabled (Open-Meteo's archive") ? true : nil
            }
            #expect(!harness.read("2019-05-01.md").contains("weather:"))
            try harness.patchConfig(#""settle_seconds": 0}"#, #""settle_seconds": 0}, "history": {"enabled": true}"#)
            daemon.child.signal(SIGHUP)
            let spring = try await harness.waitForStamp("2019-05-01.md")
            #expect(spring["kind"] as? String == "historical" && spring["weather_source"] as? String == "open-meteo")
            let asked = try #require(try harness.standIn.keylessQueries("open-meteo-archive").first)
            #expect(asked["start_date"] == "2018-12-31" && asked["latitude"] == "46.20000")
            #expect(try await daemon.stop() == 0)

            // `stamp --at` outside the inbox: the same history, from what the daemon kept (no new request).
            let note = harness.directory.file("note.md")
            try Data("Written that day\n".utf8).write(to: URL(fileURLWithPath: note))
            let stamp = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--at", "2019-05-02 08:00", note],
                environment: ["PATH": "/usr/bin:/bin", "OPENWEATHER_API_KEY": ""], in: harness.directory)
            #expect(stamp.status == 0, "\(stamp.stderr)")
            let stamped = try String(contentsOfFile: note, encoding: .utf8)
            #expect(stamped.contains("  kind: historical\n  weather_source: open-meteo\n"), "\(stamped)")
            #expect(try harness.standIn.keylessQueries("open-meteo-archive").count == 1)
        }
    }

    /// History never waits on the present: with `/v1/forecast` answering 500 and the archive working, back-dated
    /// entries are stamped with their own hours while today's entry waits (explained), in the daemon and in `stamp`;
    /// today's is stamped once current weather comes back.
    @Test func historyNeverWaitsOnThePresent() async throws {
        try await withHarness { harness in
            let config = try harness.writeConfig(
                providers: Self.geneva, key: "", extra: #", "history": {"enabled": true}"#)
            try harness.standIn.control(#"{"open-meteo": {"mode": "500"}}"#)
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            let old = (1...5).map { "2024-01-0\($0).md" }
            for name in old { try harness.dropByRename(name, "A winter day\n") }
            try harness.dropByRename("today.md", "Today\n")
            for name in old {
                let block = try await harness.waitForStamp(name)
                #expect(block["kind"] as? String == "historical", "\(name)")
            }
            #expect(!harness.read("today.md").contains("weather:"))
            let why = try await ChildProcess.run(
                [DaemonProcess.binary, "why", harness.entryPath("today.md"), "--config", config],
                environment: ["PATH": "/usr/bin:/bin"], in: harness.directory)
            #expect(why.stdout.contains("waits for weather") && why.stdout.contains("HTTP 500"), "\(why.stdout)")
            try harness.standIn.control(#"{"open-meteo": {"mode": "ok"}}"#)
            let today = try await harness.waitForStamp("today.md", timeout: .seconds(120))
            #expect(today["kind"] as? String == "current")
            #expect(try await daemon.stop() == 0)

            // `stamp` with no daemon: the back-dated file asks history alone, today's says why it is not stamped
            // (the daemon's cached weather removed: stale weather within stamp.max_age_seconds would serve).
            try harness.standIn.control(#"{"open-meteo": {"mode": "500"}}"#)
            try FileManager.default.removeItem(atPath: harness.cache)
            let past = harness.directory.file("past.md")
            let now = harness.directory.file("now.md")
            try Data("Then\n".utf8).write(to: URL(fileURLWithPath: past))
            try Data("Now\n".utf8).write(to: URL(fileURLWithPath: now))
            let stamp = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, "--at", "2024-01-01T00:00+01:00", past],
                environment: ["PATH": "/usr/bin:/bin", "OPENWEATHER_API_KEY": ""], in: harness.directory)
            #expect(stamp.status == 0, "\(stamp.stderr)")
            #expect(try String(contentsOfFile: past, encoding: .utf8).contains("kind: historical"))
            #expect(stamp.stdout.contains("1 stamped") && stamp.stdout.contains("from Open-Meteo"), "\(stamp.stdout)")
            #expect(!stamp.stdout.contains("OpenWeather"), "\(stamp.stdout)")
            let current = try await ChildProcess.run(
                [DaemonProcess.binary, "stamp", "--config", config, now],
                environment: ["PATH": "/usr/bin:/bin", "OPENWEATHER_API_KEY": ""], in: harness.directory)
            #expect(current.status == 75 && current.stderr.contains("HTTP 500"), "\(current)")
            #expect(try String(contentsOfFile: now, encoding: .utf8) == "Now\n")
        }
    }

    /// The place's own clock: a Berlin entry of a summer afternoon and one of a winter night, asked of an archive
    /// that answers as Open-Meteo does (the place's zone by name, one offset for the year, no `is_day` here): each
    /// block's local times in the offset of its own instant, and the night's icon a night's, whatever the
    /// machine's zone.
    @Test func blocksKeepThePlacesOwnClock() async throws {
        try await withHarness { harness in
            try harness.writeConfig(providers: Self.geneva, key: "", extra: #", "history": {"enabled": true}"#)
            try harness.standIn.control(#"{"open-meteo-archive": {"no_is_day": true}}"#)
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": "", "TZ": "Asia/Seoul"])
            try harness.dropByRename(
                "summer.md", "---\ndate: 2019-07-01T14:00:00+02:00\nlocation: [52.52, 13.40]\n---\nA walk\n")
            try harness.dropByRename(
                "winter.md", "---\ndate: 2019-01-15T01:00:00+01:00\nlocation: [52.52, 13.40]\n---\nAwake\n")
            let summer = try await harness.waitForStamp("summer.md")
            let winter = try await harness.waitForStamp("winter.md")
            // As written (Yams would read them as dates).
            let summerText = harness.read("summer.md")
            let winterText = harness.read("winter.md")
            #expect(summerText.contains("\n  local_time: 2019-07-01T14:00:00+02:00\n"), "\(summerText)")
            #expect(summerText.contains("\n  sunrise: 2019-07-01T") && summerText.contains("+02:00\n  sunset:"))
            #expect(winterText.contains("\n  local_time: 2019-01-15T01:00:00+01:00\n"), "\(winterText)")
            #expect((winter["icon"] as? String)?.hasSuffix("n") == true, "a January night: \(winter)")
            #expect((summer["icon"] as? String)?.hasSuffix("d") == true, "a July afternoon: \(summer)")
            let asked = try harness.standIn.keylessQueries("open-meteo-archive")
            #expect(asked.allSatisfy { $0["timezone"] == "auto" && $0["timeformat"] == "unixtime" }, "\(asked)")
            #expect(try await daemon.stop() == 0)
        }
    }

    /// The block's fields every source fills, whoever answers.
    static let common: Set<String> = [
        "condition", "description", "code", "icon", "temperature", "feels_like", "humidity", "pressure",
        "wind_speed", "wind_deg", "wind_direction", "clouds", "units", "observed_at", "local_time", "sunrise",
        "sunset", "daylight", "moon_phase", "moon_illumination", "kind", "weather_source", "place", "country",
        "location",
    ]

    @Test func everySourceGivesTheSameBlock() async throws {
        try await withHarness { harness in
            let station = harness.directory.file("station")
            try harness.directory.write(
                "station",
                """
                #!/bin/sh
                echo "$1 $2 $3" > "$(dirname "$0")/asked"
                printf '{"temperature": 7.5, "wmo_code": 61, "feels_like": 5.1, "humidity": 81, "pressure": 1009, \
                "wind_speed": 4.2, "wind_deg": 225, "clouds": 88, "place": "Station %s,%s %s"}' "$1" "$2" "$3"

                """)
            chmod(station, 0o755)
            var blocks: [String: [String: Any]] = [:]
            for source in [
                #"{"type": "openweather"}"#, #"{"type": "open-meteo"}"#, #"{"type": "met-norway"}"#,
                #"{"type": "command", "argv": ["\#(station)", "{latitude}", "{longitude}", "{units}"]}"#,
            ] {
                let config = try harness.writeConfig(
                    providers: Self.geneva, extra: #", "weather": {"providers": [\#(source)]}"#)
                try? FileManager.default.removeItem(atPath: harness.cache)
                let note = harness.directory.file("note.md")
                try Data("A note\n".utf8).write(to: URL(fileURLWithPath: note))
                let stamp = try await ChildProcess.run(
                    [DaemonProcess.binary, "stamp", "--config", config, note], in: harness.directory)
                #expect(stamp.status == 0, "\(source): \(stamp.stderr)")
                let text = try String(contentsOfFile: note, encoding: .utf8)
                let yaml = text.split(separator: "---\n")[0]
                let block = try #require(try Yams.load(yaml: String(yaml)) as? [String: Any])["weather"]
                let weather = try #require(block as? [String: Any], "\(source)")
                blocks[weather["weather_source"] as? String ?? "?"] = weather
                #expect(
                    Self.common.isSubset(of: Set(weather.keys)), "\(source): \(Self.common.subtracting(weather.keys))")
            }
            #expect(Set(blocks.keys) == ["openweather", "open-meteo", "met-norway", "command"])
            // The geocoder's name (the stand-in's "Seoul") wins over every source's own.
            #expect(blocks.values.allSatisfy { $0["place"] as? String == "Seoul" })
            #expect(blocks["met-norway"]?["description"] as? String == "light rain showers")
            #expect(
                blocks["met-norway"]?["icon"] as? String == "09d" && blocks["met-norway"]?["rain_1h"] as? Double == 0.3)
            #expect(
                blocks["command"]?["description"] as? String == "light rain"
                    && blocks["command"]?["code"] as? Int == 500)
            // The command was given the position as privacy lets it leave, and the units.
            #expect(
                try String(contentsOfFile: harness.directory.file("asked"), encoding: .utf8) == "46.2 6.14 metric\n")
            let met = try #require(try harness.standIn.keylessQueries("met-norway").first)
            #expect(met["lat"] == "46.2" && met["lon"] == "6.14")
            #expect(met["user_agent"] == "weathertag/0.1.0 (diarist@example.org)")
        }
    }

    @Test func aFailingSourceIsPassedOverAndTheBlockNamesTheOneThatAnswered() async throws {
        try await withHarness { harness in
            try harness.writeConfig(
                providers: Self.geneva, key: "",
                extra: #", "weather": {"providers": [{"type": "open-meteo"}, {"type": "met-norway"}]}"#)
            try harness.standIn.control(#"{"open-meteo": {"mode": "503"}}"#)
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            try harness.dropByRename("first.md", "First\n")
            let first = try await harness.waitForStamp("first.md")
            #expect(first["weather_source"] as? String == "met-norway")
            #expect(first["description"] as? String == "light rain showers" && first["temperature"] as? Double == 6.7)
            #expect(daemon.log.contains("no weather from open-meteo"))
            #expect(try harness.standIn.calls("open-meteo") >= 1)
            // One request to MET Norway (WeatherSourceServiceTests covers its Expires and If-Modified-Since).
            #expect(try harness.standIn.calls("met-norway") == 1)
            // `/v1/status` counts each source's calls under its own name, as the stand-in received them.
            let services = try daemon.get("/v1/status").json["services"] as? [String: Any]
            let bySource = services?["by_source"] as? [String: [String: Any]]
            #expect(bySource?["met-norway"]?["calls"] as? Int == 1)
            #expect(bySource?["open-meteo"]?["calls"] as? Int == (try harness.standIn.calls("open-meteo")))
            #expect(bySource?["openweather"] == nil, "nothing asked OpenWeather")
            #expect(services?["calls"] as? Int == 1 + (try harness.standIn.calls("open-meteo")))
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func aTenYearDiaryInThreeTownsCostsTensOfRequestsWithinABudgetThatOutlivesARestart() async throws {
        try await withHarness { harness in
            let towns = [(46.2, 6.15), (47.37, 8.54), (37.57, 126.98)]
            try harness.writeConfig(
                providers: Self.geneva, key: "",
                extra: #", "history": {"enabled": true, "max_calls_per_day": 100000}"#)
            try harness.patchConfig(
                #""air_quality_url": "\#(harness.standIn.baseURL)"}"#,
                #""air_quality_url": "\#(harness.standIn.baseURL)", "max_calls_per_minute": 60000}"#)
            var daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            let first = Date(timeIntervalSince1970: 1_420_113_600)  // 2015-01-01T12:00:00Z
            let iso = ISO8601DateFormatter()
            var names: [String] = []
            for day in 0..<3650 {
                let moment = first.addingTimeInterval(Double(day) * 86_400)
                let (latitude, longitude) = towns[day % 3]
                let name = "diary-\(day).md"
                let text =
                    "---\ndate: \(iso.string(from: moment))\nlocation: [\(latitude), \(longitude)]\n---\nDay \(day)\n"
                try harness.dropByRename(name, text)
                names.append(name)
            }
            do {
                try await poll("every entry stamped", timeout: .seconds(300)) {
                    let entries = try daemon.get("/v1/status").json["entries"] as? [String: Any]
                    return (entries?["stamped"] as? Int ?? 0) >= 3650 ? true : nil
                }
            } catch {
                let lines = daemon.log.split(separator: "\n")
                print(
                    "daemon log:", error,
                    lines.filter { !$0.contains("stamped with the weather of its time") }.joined(separator: "\n"))
                throw error
            }
            let archive = try harness.standIn.keylessQueries("open-meteo-archive")
            #expect(archive.count <= 60, "\(archive.count) archive requests")
            #expect(archive.count == 30, "one per town and year")
            // Each entry has its own hour's weather: the stand-in's temperature is 8.5 + the UTC hour / 10.
            for day in [0, 1, 1234, 3649] {
                let block = try await harness.waitForStamp(names[day])
                #expect(block["kind"] as? String == "historical" && block["weather_source"] as? String == "open-meteo")
                #expect(block["temperature"] as? Double == 9.7, "noon UTC, day \(day)")
                #expect(block["description"] as? String == "light rain")
            }
            let history = try #require(try daemon.get("/v1/status").json["history"] as? [String: Any])
            #expect(history["source"] as? String == "open-meteo" && history["requests"] as? Int == 30)
            #expect(try await daemon.stop() == 0)

            // What was spent counts after a restart: a day's budget with room for two more years, not three.
            let spent = archive.reduce(0.0) { total, query in
                let start = iso.date(from: (query["start_date"] ?? "") + "T00:00:00Z") ?? .distantPast
                let end = iso.date(from: (query["end_date"] ?? "") + "T00:00:00Z") ?? .distantPast
                return total + 1.4 * (end.timeIntervalSince(start) / 86_400 + 1) / 14
            }
            try harness.patchConfig(
                #""max_calls_per_day": 100000"#, #""max_calls_per_day": \#(Int(spent + 2.5 * 36.8))"#)
            daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": ""])
            for (index, year) in [2005, 2006, 2007].enumerated() {
                try harness.dropByRename(
                    "old-\(year).md",
                    "---\ndate: \(year)-06-01T12:00:00Z\nlocation: [\(50 + index), 10]\n---\nOld\n")
            }
            let old = [2005, 2006, 2007].map { "old-\($0).md" }
            // Which two go first is the order the inbox reads them in; two do, and one waits.
            do {
                try await poll("two stamped and one held back") {
                    daemon.log.contains("Open-Meteo's free limits")
                        && old.filter { harness.read($0).contains("weather:") }.count == 2 ? true : nil
                }
            } catch {
                print("daemon log:", String(daemon.log.suffix(4000)))
                throw error
            }
            #expect(try harness.standIn.keylessQueries("open-meteo-archive").count == 32)
            let waiting = try #require(try daemon.get("/v1/status").json["history"] as? [String: Any])
            #expect(waiting["waiting"] as? Int == 1 && (waiting["budget_left"] as? Double ?? 99) < 36.8)
            #expect(try await daemon.stop() == 0)
        }
    }

    @Test func geoNamesNamesThePlaceWithNoRequest() async throws {
        try await withHarness { harness in
            let folder = try harness.directory.makeDirectory("geonames")
            let cities = [
                "2660646\tGenève\tGeneve\tGeneva,Genf\t46.20222\t6.14569\tP\tPPLA\tCH\t\tGE\t\t\t\t183981\t\t375\tEurope/Zurich\t2024-01-01",
                "2661552\tCarouge\tCarouge\t\t46.18096\t6.13921\tP\tPPL\tCH\t\tGE\t\t\t\t22000\t\t382\tEurope/Zurich\t2024-01-01",
                "2657896\tZürich\tZurich\t\t47.36667\t8.55\tP\tPPLA\tCH\t\tZH\t\t\t\t341730\t\t429\tEurope/Zurich\t2024-01-01",
                "1835848\tSeoul\tSeoul\t\t37.566\t126.9784\tP\tPPLC\tKR\t\t11\t\t\t\t10349312\t\t38\tAsia/Seoul\t2024-01-01",
            ]
            try Data((cities.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: folder + "/cities1000.txt"))
            try Data(
                "CH.GE\tGeneva\tGeneva\t2660645\nCH.ZH\tZurich\tZurich\t2657895\nKR.11\tSeoul\tSeoul\t1835847\n".utf8
            )
            .write(to: URL(fileURLWithPath: folder + "/admin1CodesASCII.txt"))
            try harness.writeConfig(
                providers: Self.geneva,
                extra: #", "geocoding": {"provider": "geonames", "geonames_directory": "\#(folder)"}"#)
            let daemon = try await harness.startDaemon(environment: ["TZ": "Asia/Seoul"])
            try harness.dropByRename("lake.md", "By the lake\n")
            let block = try await harness.waitForStamp("lake.md")
            #expect(block["place"] as? String == "Genève" && block["region"] as? String == "Geneva")
            #expect(block["country"] as? String == "CH")
            // The place's zone from GeoNames: Geneva's clock, not the machine's (Seoul) nor the stand-in's one offset
            // (Seoul's too).
            let zurich = (TimeZone(identifier: "Europe/Zurich")?.secondsFromGMT() ?? 0) / 3600
            let text = harness.read("lake.md")
            #expect(text.contains(String(format: "+%02d:00\n  sunrise:", zurich)), "\(text)")
            #expect(try harness.standIn.calls("geo") == 0, "no geocoder was asked")
            #expect(FileManager.default.fileExists(atPath: harness.state + "/geonames.sqlite"))
            #expect(try await daemon.stop() == 0)
        }
    }
}
