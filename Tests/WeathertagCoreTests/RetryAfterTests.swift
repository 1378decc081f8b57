import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// `Retry-After` (RFC 9110 §10.2.3) as services send it: seconds, or an HTTP date.
@Suite struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_795_340_460)

    @Test func secondsAndDates() {
        #expect(RetryAfter.parse("120", now: Self.now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: Self.now) == .zero)
        #expect(RetryAfter.parse(httpDate(Self.now.addingTimeInterval(90)), now: Self.now) == .seconds(90))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == nil, "past")
        #expect(RetryAfter.parse("99999999999", now: Self.now) == RetryAfter.longest)
        for bad in [nil, "", "-5", "soon", "1.5", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 32 Nov 2026 08:49:37 GMT"] {
            #expect(RetryAfter.parse(bad, now: Self.now) == nil, "\(bad ?? "nil")")
        }
        // A 429 with it waits that long, not the usual minute.
        let error = WeatherError.status(429, from: "Open-Meteo", retryAfter: .seconds(90))
        #expect(error?.minimumRetryDelay == .seconds(90), "longer than a minute when it says so")
        #expect(WeatherError.status(429, from: "Open-Meteo")?.minimumRetryDelay == .seconds(60))
    }
}
