import Foundation
import Logging
import Testing
import WeathertagCore
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
            try StateDatabase.open(directory: self.directory.file("state"), inbox: "/diary", logger: Self.quiet),
        ]
    }

    @Test func answersAreKeptByCellAndHourAndCallsByDay() async throws {
        for store in try self.stores() {
            let kind = "\(type(of: store))"
            #expect(await store.answer(cell: "46.20,6.14", hour: 10) == nil, "\(kind)")
            await store.keep([1, 2, 3], cell: "46.20,6.14", hour: 10)
            #expect(await store.answer(cell: "46.20,6.14", hour: 10) == [1, 2, 3], "\(kind)")
            #expect(await store.answer(cell: "46.20,6.14", hour: 11) == nil, "\(kind)")
            #expect(await store.answer(cell: "46.21,6.14", hour: 10) == nil, "\(kind)")

            #expect(await store.calls(day: "2026-11-24") == 0, "\(kind)")
            await store.countCall(day: "2026-11-24")
            await store.countCall(day: "2026-11-24")
            #expect(await store.calls(day: "2026-11-24") == 2, "\(kind)")
            // A new day starts at zero and the old one's count goes.
            await store.countCall(day: "2026-11-25")
            #expect(await store.calls(day: "2026-11-25") == 1, "\(kind)")
            #expect(await store.calls(day: "2026-11-24") == 0, "\(kind)")
        }
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
        #expect(await store.answer(cell: "46.20,6.14", hour: 432_420) != nil)
        #expect(await store.calls(day: HistoryBudget.day(of: Date(), calendar: .current)) == 1)
    }

    @Test func theDaysBudgetCountsWhatAnEarlierProcessSpent() async throws {
        let http = RecordingHTTPClient(body: Self.answer)
        let store = InMemoryHistoryStore()
        await store.countCall(day: HistoryBudget.day(of: Date(), calendar: .current))
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
