import Foundation
import Logging
import Testing
import WeathertagCore
import WeathertagSQLite
import WeathertagTestSupport

@testable import WeathertagDaemon

/// History's store: the same contract from the state database and from the in-memory store, and the history
/// service over it (one call per place and hour, the day's budget counted across processes).
@Suite("the history store")
final class HistoryStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        self.directory = try TemporaryDirectory()
    }

    deinit {
        self.directory.remove()
    }

    static let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    func stores() throws -> [any HistoryStore] {
        [
            InMemoryHistoryStore(),
            try StateDatabase.open(directory: self.directory.file("state"), inbox: "/diary", logger: Self.quiet)
                .history,
        ]
    }

    @Test func hoursAreKeptBySourceCellAndSpanAndSpendsBySource() async throws {
        for store in try self.stores() {
            let kind = "\(type(of: store))"
            #expect(await store.hours(source: "open-meteo", cell: "46.20,6.14", hour: 10) == nil, "\(kind)")
            await store.keep(hours: [1, 2, 3], source: "open-meteo", cell: "46.20,6.14", span: 5...20)
            await store.keep(hours: [4], source: "openweather", cell: "46.20,6.14", span: 10...10)
            #expect(await store.hours(source: "open-meteo", cell: "46.20,6.14", hour: 10) == [1, 2, 3], "\(kind)")
            #expect(await store.hours(source: "openweather", cell: "46.20,6.14", hour: 10) == [4], "\(kind)")
            #expect(await store.hours(source: "open-meteo", cell: "46.20,6.14", hour: 21) == nil, "\(kind)")
            #expect(await store.hours(source: "open-meteo", cell: "46.21,6.14", hour: 10) == nil, "\(kind)")
            #expect(await store.spans(source: "open-meteo", cell: "46.20,6.14") == [5...20], "\(kind)")
            // The later span answers for an hour two hold.
            await store.keep(hours: [5], source: "open-meteo", cell: "46.20,6.14", span: 8...30)
            #expect(await store.hours(source: "open-meteo", cell: "46.20,6.14", hour: 10) == [5], "\(kind)")

            let now = Date(timeIntervalSince1970: 1_795_000_000)
            await store.record(
                CallBudget.Spend(at: now.addingTimeInterval(-31 * 86_400), weight: 9), source: "open-meteo")
            await store.record(CallBudget.Spend(at: now, weight: 36.7), source: "open-meteo")
            await store.record(CallBudget.Spend(at: now, weight: 1), source: "openweather")
            #expect(
                await store.spends(source: "open-meteo", since: .distantPast) == [.init(at: now, weight: 36.7)],
                "\(kind): a month's spends are kept, older ones dropped")
            #expect(await store.spends(source: "openweather", since: .distantPast).count == 1, "\(kind)")
        }
    }

    /// A database of the time before every source kept its history alike (migration v4): Open-Meteo's years, each
    /// timemachine answer and the day's timemachine calls come over, and the old tables go.
    @Test func historyKeptBeforeMovesOver() async throws {
        let state = self.directory.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/grdb-state.sqlite").path
        try FileManager.default.copyItem(atPath: fixture, toPath: state + "/state.sqlite")
        do {
            let old = try DatabasePool(path: state + "/state.sqlite")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO history_period VALUES ('46.20,6.14', 5, 20, x'01');
                        INSERT INTO open_meteo_spend VALUES (1795000000, 36.7);
                        INSERT INTO history VALUES ('46.20,6.14', 432420, x'7b7d');
                        INSERT INTO meta VALUES ('history_calls:2026-11-24', '3');
                        """)
            }
        }
        let store = try StateDatabase.open(directory: state, inbox: "/diary", logger: Self.quiet).history
        #expect(await store.hours(source: "open-meteo", cell: "46.20,6.14", hour: 6) == [1])
        #expect(
            await store.spends(source: "open-meteo", since: .distantPast) == [
                .init(at: Date(timeIntervalSince1970: 1_795_000_000), weight: 36.7)
            ])
        let kept = try #require(await store.hours(source: "openweather", cell: "46.20,6.14", hour: 432_420))
        #expect(TimemachineHour(encoded: kept) == TimemachineHour(hour: 432_420, body: Array("{}".utf8)))
        #expect(await store.spends(source: "openweather", since: .distantPast).count == 3)
    }

    static let answer = #"""
        {"lat": 46.2, "lon": 6.14, "timezone": "Europe/Zurich", "timezone_offset": 3600,
         "data": [{"dt": 1556712000, "temp": 8.5, "feels_like": 7, "pressure": 1009, "humidity": 88,
                   "wind_speed": 5.1, "weather": [{"id": 500, "main": "Rain", "description": "light rain",
                   "icon": "10d"}]}]}
        """#

    func service(
        store: any HistoryStore, http: RecordingHTTPClient, maximumPerDay: Int = 900
    ) throws -> HistoryService? {
        try ServiceFactory.forTesting(
            in: self.directory,
            """
            "location": {"providers": [{"type": "fixed", "latitude": 46.204412, "longitude": 6.143211}]},
            "history": {"enabled": true, "source": "openweather", "max_calls_per_day": \(maximumPerDay)}
            """, http: http
        ).historyService(store: store)
    }

    static func request(hoursAfter hours: Double) -> HistoryRequest {
        HistoryRequest(
            time: EntryTime(
                date: Date(timeIntervalSince1970: 1_556_712_000 + hours * 3600), dayOnly: false, source: .given,
                timeZone: .utc),
            position: nil)
    }

    @Test func onePlaceAndHourIsAskedOnceWithTwoDecimals() async throws {
        let http = RecordingHTTPClient(body: Self.answer)
        let store = InMemoryHistoryStore()
        let history = try #require(try self.service(store: store, http: http))
        for _ in 0..<3 {
            guard case .tag(let tag) = await history.tag(for: Self.request(hoursAfter: 0.5)) else {
                Issue.record("no tag")
                return
            }
            #expect(tag.kind == .historical && tag.weather.description == "light rain")
        }
        #expect(http.requests.count == 1)
        #expect(http.requests.first?.url.contains("lat=46.20000&lon=6.14000") == true, "privacy's two decimals")
        #expect(await store.hours(source: "openweather", cell: "46.20,6.14", hour: 432_420) != nil)
        #expect(await store.spends(source: "openweather", since: .distantPast).count == 1)
    }

    @Test func theDaysBudgetCountsWhatAnEarlierProcessSpent() async throws {
        let http = RecordingHTTPClient(body: Self.answer)
        let store = InMemoryHistoryStore()
        await store.record(CallBudget.Spend(at: Date().addingTimeInterval(-3600), weight: 1), source: "openweather")
        let history = try #require(try self.service(store: store, http: http, maximumPerDay: 2))
        guard case .tag = await history.tag(for: Self.request(hoursAfter: 0)) else {
            Issue.record("the second call of the day is allowed")
            return
        }
        guard case .failed(.later(_, let error)) = await history.tag(for: Self.request(hoursAfter: 5)) else {
            Issue.record("the third call of the day waits")
            return
        }
        #expect((error as? WeatherError)?.message.contains("history.max_calls_per_day") == true)
        #expect(http.requests.count == 1)
    }
}
