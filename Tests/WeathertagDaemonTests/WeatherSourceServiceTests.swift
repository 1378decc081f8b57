import Foundation
import Logging
import NIOPosix
import Synchronization
import Testing
import WeathertagCore
import WeathertagTestSupport

@testable import WeathertagDaemon

/// The weather service over several sources, the command source, Open-Meteo's history and the GeoNames index, with
/// a test clock and in-process doubles.
@Suite("Weather sources: order, gates, commands, history in bulk, GeoNames")
final class WeatherSourceServiceTests {
    let directory: TemporaryDirectory
    let clock = ManualClock(Fixtures.observedAt)

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    func service(
        _ sources: [any WeatherSource],
        sections: String = #""privacy": {"request_decimals": 2}, "weather": {"providers": [{"type": "open-meteo"}]}"#
    )
        async throws -> WeatherService
    {
        let factory = try ServiceFactory.forTesting(
            in: self.directory, sections, http: RecordingHTTPClient(body: "{}"), now: self.clock.now)
        return await factory.weatherService(
            chain: LocationChain(providers: [StaticLocationProvider(Fixtures.position)], now: self.clock.now),
            sources: sources)
    }

    @Test func theFirstSourceThatAnswersStampsAndAShutGateIsPassedOver() async throws {
        let failing = StaticWeatherSource(
            failing: WeatherError(kind: .serverError(status: 503), message: "HTTP 503"), type: "open-meteo")
        let backup = StaticWeatherSource(Fixtures.weather, type: "met-norway")
        let service = try await self.service([failing, backup])
        let tag = try await service.currentTag(maximumAge: .seconds(3600))
        #expect(tag.weather.source == "met-norway")
        #expect(failing.requests.count == 1 && backup.requests.count == 1)
        // Both were asked with two decimals.
        #expect(failing.requests[0].description == "37.57,126.98" && backup.requests[0] == failing.requests[0])

        // The cache answers within its TTL; after it, the failing source's gate is still shut (its backoff), so
        // only the backup is asked.
        self.clock.advance(by: 0.5)
        _ = try await service.currentTag(maximumAge: .seconds(3600))
        #expect(backup.requests.count == 1, "cached")
        self.clock.advance(by: 700)
        _ = try await service.currentTag(maximumAge: .seconds(3600))
        #expect(failing.requests.count == 2, "its backoff (at most 2 s) is long over")
    }

    @Test func whenEverySourceFailsTheFirstOnesErrorIsSaidAndStaleWeatherServes() async throws {
        let first = StaticWeatherSource(failing: WeatherError(kind: .unreachable, message: "first down"), type: "a")
        let second = StaticWeatherSource(failing: WeatherError(kind: .unreachable, message: "second down"), type: "b")
        let service = try await self.service([first, second])
        await #expect { try await service.currentTag(maximumAge: .seconds(3600)) } throws: {
            ($0 as? WeatherError)?.message == "first down"
        }
        let delay = await service.nextAttemptDelay
        #expect(delay != nil, "every gate is shut: the inbox is told when to ask again")
    }

    @Test func aCommandSourceGetsThePrivatePositionAndItsAnswerBecomesWeather() async throws {
        try self.directory.write(
            "station",
            """
            #!/bin/sh
            echo "$@" > "$(dirname "$0")/args"
            printf '{"temperature": "warm", "symbol_code": "fog", "humidity": 91, "observed_at": "2026-11-22T09:00:00Z"}'

            """)
        chmod(self.directory.file("station"), 0o755)
        let settings = CommandWeatherSource.Settings(
            argv: [self.directory.file("station"), "{latitude}", "{longitude}", "{units}", "{lang}"],
            // Generous: this is not about time (the late program below is), and a loaded CI machine once took over 5 s.
            timeout: .seconds(60), units: .metric, lang: "ko")
        let source = CommandWeatherSource(settings: settings, now: self.clock.now)
        let request = PrivacyPolicy(stampCoordinates: .rounded, decimals: 3, requestDecimals: 2, zones: [])
            .requestPosition(Fixtures.position)
        await #expect { try await source.currentWeather(at: request) } throws: {
            "\($0)".contains("printed no numeric temperature")
        }
        #expect(try String(contentsOfFile: self.directory.file("args"), encoding: .utf8) == "37.57 126.98 metric ko\n")

        try self.directory.write(
            "station",
            """
            #!/bin/sh
            printf '{"temperature": 3.5, "symbol_code": "fog", "humidity": 91, "observed_at": "2026-11-22T09:00:00Z"}'

            """)
        let weather = try await source.currentWeather(at: request)
        #expect(weather.condition == "Fog" && weather.description == "안개" && weather.temperature == 3.5)
        #expect(
            weather.humidity == 91 && weather.sunrise != nil
                && weather.observedAt == Date(timeIntervalSince1970: 1_795_338_000))

        // The place's zone, when the program names it: each local time in the offset of its own instant.
        try self.directory.write(
            "station",
            """
            #!/bin/sh
            printf '{"temperature": 3.5, "wmo_code": 3, "timezone": "Asia/Seoul", "observed_at": "2019-07-01T05:00:00Z"}'

            """)
        let seoul = try await source.currentWeather(at: request)
        #expect(seoul.zone == "Asia/Seoul" && seoul.utcOffset(at: seoul.observedAt) == 32_400)

        // Late: killed, and said so.
        try self.directory.write("station", "#!/bin/sh\nexec sleep 30\n")
        let late = CommandWeatherSource(
            settings: .init(
                argv: [self.directory.file("station")], timeout: .milliseconds(300), units: .metric, lang: "en"),
            now: self.clock.now)
        await #expect { try await late.currentWeather(at: request) } throws: {
            "\($0)".contains("did not answer within")
        }
    }

    static func at(_ date: Date) -> EntryTime {
        EntryTime(date: date, dayOnly: false, source: .given, timeZone: .utc)
    }

    static let metAnswer = """
        {"properties": {"timeseries": [{"time": "2026-11-22T09:00:00Z", "data": {
          "instant": {"details": {"air_temperature": 2.5, "relative_humidity": 70.0, "wind_speed": 3.0}},
          "next_1_hours": {"summary": {"symbol_code": "cloudy"}}}}]}}
        """

    @Test func metNorwaysAnswerIsKeptUntilItExpiresThenAskedForIfModified() async throws {
        let clock = self.clock
        let answered = Mutex(0)
        let http = RecordingHTTPClient { request in
            let headers = [
                "last-modified": "Tue, 24 Nov 2026 10:00:00 GMT",
                // Expires ten minutes after the test clock's start.
                "expires": "Sun, 22 Nov 2026 09:51:00 GMT",
            ]
            if request.headers.contains("If-Modified-Since: Tue, 24 Nov 2026 10:00:00 GMT") {
                return HTTPResponse(status: 304, headers: headers, body: [])
            }
            answered.withLock { $0 += 1 }
            return HTTPResponse(status: 200, headers: headers, body: Array(Self.metAnswer.utf8))
        }
        var service = METNorwaySection()
        service.contact = "me@example.org"
        let source = METNorwaySource(
            settings: .init(service: service, units: .metric, lang: "en"), http: http, countCall: {}, now: clock.now)
        let request = Fixtures.request(59.9139, 10.7522)
        let first = try await source.currentWeather(at: request)
        #expect(
            http.requests.count == 1 && http.requests[0].headers == ["User-Agent: weathertag/0.1.0 (me@example.org)"])
        _ = try await source.currentWeather(at: request)
        #expect(http.requests.count == 1, "not expired: no request")
        self.clock.advance(by: 660)
        let again = try await source.currentWeather(at: request)
        #expect(http.requests.count == 2 && answered.withLock { $0 } == 1, "asked again, and the 304 reuses it")
        #expect(again == first)
    }

    /// A year of hours for any place and span, as Open-Meteo's archive answers (temperature: the hour of the day).
    static func archive(_ request: HTTPRequest) -> HTTPResponse {
        func value(_ name: String) -> String {
            request.url.split(separator: "&").first { $0.hasPrefix(name + "=") }.map {
                String($0.dropFirst(name.count + 1))
            } ?? ""
        }
        let formatter = ISO8601DateFormatter()
        let start = formatter.date(from: value("start_date") + "T00:00:00Z")?.timeIntervalSince1970 ?? 0
        let end = (formatter.date(from: value("end_date") + "T00:00:00Z")?.timeIntervalSince1970 ?? 0) + 86_400
        let hours = Array(stride(from: Int(start), to: Int(end), by: 3600))
        let temperatures = hours.map { "\(Double(($0 / 3600) % 24))" }.joined(separator: ",")
        let codes = hours.map { _ in "3" }.joined(separator: ",")
        let body = """
            {"utc_offset_seconds": 0, "hourly": {"time": [\(hours.map(String.init).joined(separator: ","))],
             "temperature_2m": [\(temperatures)], "weather_code": [\(codes)]}}
            """
        return HTTPResponse(status: 200, body: Array(body.utf8))
    }

    func history(store: any HistoryStore, http: RecordingHTTPClient, perDay: Int = 100_000) throws -> HistoryService {
        let factory = try ServiceFactory.forTesting(
            in: self.directory,
            #""history": {"enabled": true, "max_calls_per_day": \#(perDay)}, "privacy": {"request_decimals": 2}"#,
            http: http, now: self.clock.now)
        return try #require(factory.historyService(store: store))
    }

    @Test func aYearOfAPlaceIsAskedOnceHoweverManyEntriesWaitForIt() async throws {
        let http = RecordingHTTPClient { Self.archive($0) }
        let store = InMemoryHistoryStore()
        let history = try self.history(store: store, http: http)
        // Forty entries of one place in 2019, asked all at once.
        let answers = await withTaskGroup(of: HistoryService.Answer.self) { group in
            for day in 0..<40 {
                let moment = Date(timeIntervalSince1970: 1_546_344_000 + Double(day) * 86_400 + Double(day % 24) * 3600)
                let request = HistoryRequest(time: Self.at(moment), position: Fixtures.position)
                group.addTask { await history.tag(for: request) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var temperatures: Set<Double> = []
        for answer in answers {
            guard case .tag(let tag) = answer else {
                Issue.record("\(answer)")
                continue
            }
            #expect(
                tag.kind == .historical && tag.weather.source == "open-meteo" && tag.weather.description == "overcast")
            temperatures.insert(tag.weather.temperature)
        }
        #expect(temperatures.count == 24, "each entry its own hour")
        #expect(http.requests.count == 1, "one request for the year")
        #expect(
            http.requests[0].url.contains("/v1/archive?latitude=37.57000&longitude=126.98000&start_date=2018-12-31"))
        let requests = await history.snapshot().requests
        #expect(requests == 1)
    }

    @Test func theBudgetHoldsAcrossARestartOfTheService() async throws {
        let http = RecordingHTTPClient { Self.archive($0) }
        let store = InMemoryHistoryStore()
        // Room for one year's request (about 37 weighted calls) a day, not two.
        var history = try self.history(store: store, http: http, perDay: 50)
        let first = HistoryRequest(
            time: Self.at(Date(timeIntervalSince1970: 1_546_344_000)), position: Fixtures.position)
        guard case .tag = await history.tag(for: first) else {
            Issue.record("the first year is fetched")
            return
        }
        history = try self.history(store: store, http: http, perDay: 50)
        let other = HistoryRequest(
            time: Self.at(Date(timeIntervalSince1970: 1_420_113_600)), position: Fixtures.position)
        guard case .failed(.later(let wait, let error)) = await history.tag(for: other) else {
            Issue.record("the second year waits")
            return
        }
        #expect(wait > .seconds(86_000) && "\(error)".contains("Open-Meteo's free limits"))
        #expect(http.requests.count == 1)
        // What was kept is still read without a request.
        guard case .tag = await history.tag(for: first) else {
            Issue.record("the kept year answers")
            return
        }
        #expect(http.requests.count == 1)
    }

    static let year2019 = HistoryRequest(
        time: WeatherSourceServiceTests.at(Date(timeIntervalSince1970: 1_546_344_000)), position: Fixtures.position)

    /// An outage is one backoff for the source, not one per waiting entry: eight entries asking at once while the
    /// archive answers 500 make one request, every one waits for the same moment, nothing is asked before it, no
    /// budget is spent on failures, and the first answer after the outage ends it.
    @Test func anOutageIsOneBackoffAndItsEndIsTheFirstAnswer() async throws {
        let down = Mutex(true)
        let http = RecordingHTTPClient { request in
            down.withLock { $0 } ? HTTPResponse(status: 500, body: Array("oops".utf8)) : Self.archive(request)
        }
        let store = InMemoryHistoryStore()
        let history = try self.history(store: store, http: http)
        let waits = await withTaskGroup(of: Duration?.self) { group in
            for day in 0..<8 {
                let moment = Date(timeIntervalSince1970: 1_546_344_000 + Double(day) * 86_400)
                let request = HistoryRequest(time: Self.at(moment), position: Fixtures.position)
                group.addTask {
                    guard case .failed(.later(let wait, _)) = await history.tag(for: request) else { return nil }
                    return wait
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(http.requests.count == 1, "one request for the outage, not one per entry")
        let first = try #require(waits.compactMap { $0 }.max())
        #expect(waits.allSatisfy { $0 != nil && first - $0! < .seconds(1) }, "all wait for the same moment: \(waits)")
        #expect(first <= .seconds(3), "the first backoff is short: \(first)")
        // Asked again before the gate opens: no request.
        _ = await history.tag(for: Self.year2019)
        #expect(http.requests.count == 1)
        self.clock.advance(by: first.seconds + 0.01)
        guard case .failed(.later(let second, _)) = await history.tag(for: Self.year2019) else {
            Issue.record("still down")
            return
        }
        #expect(http.requests.count == 2 && second > first && second <= .seconds(8), "one step of backoff: \(second)")
        #expect(
            await store.spends(source: "open-meteo", since: .distantPast).isEmpty, "a failed request spends nothing")
        let left = try #require(await history.snapshot().budgetLeft)
        #expect(left == 100_000, "nothing spent (the day's limit this test sets)")
        // The outage ends: the next attempt answers, and what waits is stamped from the kept year.
        down.withLock { $0 = false }
        self.clock.advance(by: second.seconds + 0.01)
        guard case .tag = await history.tag(for: Self.year2019) else {
            Issue.record("answered after the outage")
            return
        }
        #expect(await store.spends(source: "open-meteo", since: .distantPast).count == 1)
    }

    /// `Retry-After` is the service's word for how long: obeyed, whatever the backoff would say.
    @Test(arguments: ["90", "HTTP-date"])
    func retryAfterIsObeyed(header: String) async throws {
        let clock = self.clock
        let value =
            header == "90"
            ? "90" : httpDate(clock.now().addingTimeInterval(90))
        let http = RecordingHTTPClient { _ in
            HTTPResponse(
                status: 429, headers: ["retry-after": value],
                body: Array(#"{"error": true, "reason": "Minutely API request limit exceeded"}"#.utf8))
        }
        let history = try self.history(store: InMemoryHistoryStore(), http: http)
        guard case .failed(.later(let wait, let error)) = await history.tag(for: Self.year2019) else {
            Issue.record("waits")
            return
        }
        #expect(wait >= .seconds(89) && wait <= .seconds(91), "\(wait)")
        #expect("\(error)".contains("Minutely API request limit exceeded"))
        self.clock.advance(by: 60)
        _ = await history.tag(for: Self.year2019)
        #expect(http.requests.count == 1, "not before the service said")
        self.clock.advance(by: 31)
        _ = await history.tag(for: Self.year2019)
        #expect(http.requests.count == 2)
    }

    /// A 400 is Open-Meteo's word on that request: final for the entry, with its reason, and not retried.
    @Test func aFourHundredIsFinalWithTheServicesReason() async throws {
        let http = RecordingHTTPClient(
            status: 400, body: #"{"error": true, "reason": "Parameter 'start_date' is out of allowed range"}"#)
        let history = try self.history(store: InMemoryHistoryStore(), http: http)
        guard case .failed(.unavailable(.refused(let reason))) = await history.tag(for: Self.year2019) else {
            Issue.record("final")
            return
        }
        #expect(reason.contains("out of allowed range"), "\(reason)")
        // The source is not shut for the others.
        _ = await history.tag(for: Self.year2019)
        #expect(http.requests.count == 2)
        #expect(await history.snapshot().budgetLeft == 100_000, "nothing spent")
    }

    /// The archive begins on 1940-01-01: a 1940 entry asks from that day (the margin day before it would be a 400),
    /// an earlier one is refused without a request.
    @Test func theArchivesFirstDay() async throws {
        let http = RecordingHTTPClient { Self.archive($0) }
        let history = try self.history(store: InMemoryHistoryStore(), http: http)
        let june1940 = HistoryRequest(
            time: Self.at(Date(timeIntervalSince1970: -933_465_600)), position: Fixtures.position)
        guard case .tag = await history.tag(for: june1940) else {
            Issue.record("1940 answers")
            return
        }
        #expect(http.requests.first?.url.contains("start_date=1940-01-01&end_date=1941-01-01") == true)
        let before = HistoryRequest(
            time: Self.at(Date(timeIntervalSince1970: -946_800_000)), position: Fixtures.position)
        guard case .failed(.unavailable(.refused(let reason))) = await history.tag(for: before) else {
            Issue.record("1939 is refused")
            return
        }
        #expect(reason.contains("1940-01-01") && http.requests.count == 1)
    }

    /// A year answer with null hours: its entries wait, explained, and the gap's day is asked again later; nothing
    /// is invented meanwhile.
    @Test func aGapIsAskedAgainLaterNeverFilledIn() async throws {
        let gapHour = 1_546_344_000 / 3600 + 24 * 10
        let filled = Mutex(false)
        let http = RecordingHTTPClient { request in
            var answer = Self.archive(request)
            guard !filled.withLock({ $0 }) else { return answer }
            // Null temperatures for the gap's hour.
            var text = String(decoding: answer.body, as: UTF8.self)
            let times = text.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",")
            if let index = times.firstIndex(of: Substring(String(gapHour * 3600))) {
                var temperatures = text.split(separator: "[")[2].split(separator: "]")[0].split(separator: ",").map(
                    String.init)
                temperatures[index] = "null"
                let old = String(text.split(separator: "[")[2].split(separator: "]")[0])
                text = text.replacingOccurrences(of: old, with: temperatures.joined(separator: ","))
            }
            answer.body = Array(text.utf8)
            return answer
        }
        let history = try self.history(store: InMemoryHistoryStore(), http: http)
        let entry = HistoryRequest(
            time: Self.at(Date(timeIntervalSince1970: Double(gapHour) * 3600)), position: Fixtures.position)
        guard case .failed(.later(let wait, let error)) = await history.tag(for: entry) else {
            Issue.record("the gap is not filled in")
            return
        }
        #expect(wait >= .seconds(6 * 3600 - 1) && "\(error)".contains("gap"), "\(wait) \(error)")
        // Other hours of the year are there.
        guard case .tag = await history.tag(for: Self.year2019) else {
            Issue.record("the rest of the year answers")
            return
        }
        _ = await history.tag(for: entry)
        #expect(http.requests.count == 1, "not asked again at once")
        filled.withLock { $0 = true }
        self.clock.advance(by: 6 * 3600)
        guard case .tag(let tag) = await history.tag(for: entry) else {
            Issue.record("asked again after the wait, the day answers")
            return
        }
        #expect(http.requests.count == 2 && http.requests[1].url.contains("start_date=2019-01-10&end_date=2019-01-12"))
        #expect(tag.weather.temperature == Double(gapHour % 24))
    }

    /// What earlier runs spent is in the first `status`, before any request.
    @Test func theBudgetSpentIsReadAtStart() async throws {
        let store = InMemoryHistoryStore()
        await store.record(
            CallBudget.Spend(at: self.clock.now().addingTimeInterval(-600), weight: 37.2), source: "open-meteo")
        let history = try self.history(store: store, http: RecordingHTTPClient { Self.archive($0) })
        let left = try #require(await history.snapshot().budgetLeft)
        #expect(abs(left - (100_000 - 37.2)) < 0.01, "\(left)")
    }

    /// GeoNames files are read in megabyte chunks: a name whose letters straddle a chunk's edge stays whole, a line
    /// past the bound (a file with no line ends) is skipped instead of held, and CRLF ends are taken off.
    @Test func geoNamesLinesAreReadWithinBoundsAndWhole() throws {
        let path = self.directory.file("cities.txt")
        // "Zürich" placed so that its two-byte "ü" falls across the first megabyte's edge.
        // 1 MiB - 2 bytes of short lines: 10,485 of 100 bytes, then one of 74.
        let filler =
            String(repeating: String(repeating: "x", count: 99) + "\n", count: 10_485)
            + String(repeating: "x", count: 73) + "\n"
        let overlong = String(repeating: "y", count: 100 << 10) + "\n"
        try Data((filler + "Zürich\r\n" + overlong + "Genève").utf8).write(to: URL(fileURLWithPath: path))
        var lines: [String] = []
        try GeoNamesIndex.lines(of: path) { lines.append(String($0)) }
        #expect(lines.count == 10_488, "\(lines.count)")
        #expect(lines.suffix(2) == ["Zürich", "Genève"], "\(lines.suffix(3).map(\.count))")
    }

    @Test func geoNamesNamesTheNearestPlaceAndIsRebuiltWhenItsFileChanges() async throws {
        let folder = try self.directory.makeDirectory("geonames")
        func write(_ places: [(Int, String, Double, Double, String, String)]) throws {
            let lines = places.map { id, name, latitude, longitude, country, admin in
                "\(id)\t\(name)\t\(name)\t\t\(latitude)\t\(longitude)\tP\tPPL\t\(country)\t\t\(admin)\t\t\t\t1000\t\t0\tUTC\t2024-01-01"
            }
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: folder + "/cities500.txt"))
        }
        try Data("CH.GE\tGeneva\tGeneva\t1\nKR.11\tSeoul\tSeoul\t2\n".utf8).write(
            to: URL(fileURLWithPath: folder + "/admin1CodesASCII.txt"))
        try write([
            (1, "Genève", 46.20222, 6.14569, "CH", "GE"), (2, "Carouge", 46.18096, 6.13921, "CH", "GE"),
            (3, "Seoul", 37.566, 126.9784, "KR", "11"),
        ])
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let state = self.directory.file("state")
        var index = try GeoNamesIndex.open(stateDirectory: state, geonamesDirectory: folder, logger: logger)
        #expect(index.places == 3 && index.source.hasSuffix("cities500.txt"))
        let carouge = await index.place(near: 46.185, 6.14)
        #expect(carouge == PlaceName(name: "Carouge", region: "Geneva", country: "CH", zone: "UTC"))
        let seoul = await index.place(near: 37.0, 127.5)
        // Found by widening the box; 77 km out, beyond a town's reach, it is named by its region.
        #expect(seoul?.name == "Seoul" && seoul?.region == "Seoul", "\(String(describing: seoul))")
        let nowhere = await index.place(near: -33.9, 18.4)
        #expect(nowhere == nil, "nothing within about 500 km")
        // A new file: built again.
        try write([(4, "Lausanne", 46.516, 6.633, "CH", "VD")])
        index = try GeoNamesIndex.open(stateDirectory: state, geonamesDirectory: folder, logger: logger)
        let lausanne = await index.place(near: 46.52, 6.63)
        #expect(index.places == 1 && lausanne?.name == "Lausanne")
    }

    /// `alternateNamesV2.txt` beside the cities: each place keeps one name per language (a short name before a
    /// preferred one), names of places not indexed are skipped, and a region named for a far position carries
    /// none of its town's. A new names file builds the index again.
    @Test func geoNamesNamesAPlaceInTheReadersLanguage() async throws {
        let folder = try self.directory.makeDirectory("geonames-names")
        let seoul =
            "1835848\tSeoul\tSeoul\t\t37.566\t126.9784\tP\tPPLC\tKR\t\t11\t\t\t\t10349312\t\t38\tAsia/Seoul\t2024-01-01"
        try Data((seoul + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/cities15000.txt"))
        try Data("KR.11\tSeoul\tSeoul\t1835847\n".utf8).write(
            to: URL(fileURLWithPath: folder + "/admin1CodesASCII.txt"))
        func names(_ lines: [String]) throws {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: folder + "/alternateNamesV2.txt"))
        }
        try names([
            "1\t1835848\tko\t서울특별시\t1\t\t\t\t\t", "2\t1835848\tko\t서울\t\t1\t\t\t\t",
            "3\t1835848\tko\t한성\t\t\t\t1\t\t", "4\t1835848\tfr\tSéoul\t\t\t\t\t\t",
            "5\t1835848\tfr\tSeoul-si\t\t\t\t\t\t", "6\t1835848\tlink\thttps://ko.wikipedia.org/\t\t\t\t\t\t",
            "7\t2643743\tko\t런던\t\t1\t\t\t\t",
        ])
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let state = self.directory.file("state-names")
        var index = try GeoNamesIndex.open(stateDirectory: state, geonamesDirectory: folder, logger: logger)
        let near = try #require(await index.place(near: 37.57, 126.98))
        #expect(near.localNames == ["ko": "서울", "fr": "Séoul"], "\(near.localNames)")
        #expect(near.name(in: "ko") == "서울" && near.name(in: "ko_KR") == "서울" && near.name(in: "fr") == "Séoul")
        #expect(near.name(in: "de") == "Seoul" && near.name(in: "en") == "Seoul")
        let far = try #require(await index.place(near: 37.0, 127.5))
        #expect(far.localNames.isEmpty && far.name(in: "fr") == "Seoul", "the region, in no other language: \(far)")
        try names(["1\t1835848\tja\tソウル\t\t\t\t\t\t"])
        index = try GeoNamesIndex.open(stateDirectory: state, geonamesDirectory: folder, logger: logger)
        #expect(await index.place(near: 37.57, 126.98)?.localNames == ["ja": "ソウル"])
    }
}
