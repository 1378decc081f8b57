import Foundation
import WeathertagCore

/// Values shared by the tests.
package enum Fixtures {
    /// A fixed moment: 2026-11-22T09:41:00Z.
    package static let observedAt = Date(timeIntervalSince1970: 1_795_340_460)

    package static let weather = Weather(
        condition: "Clouds",
        description: "broken clouds",
        code: 803,
        icon: "04d",
        temperature: 12.3,
        feelsLike: 11.2,
        humidity: 71,
        pressure: 1013,
        windSpeed: 3.6,
        units: .metric,
        observedAt: observedAt,
        place: "Seoul"
    )

    package static let position = Position(
        latitude: 37.5665,
        longitude: 126.978,
        accuracyMeters: 17,
        source: "gpsd",
        takenAt: observedAt
    )

    /// A position as a request may carry it, made the only way there is: by a privacy policy (exact here: six
    /// decimals).
    package static func request(_ latitude: Double, _ longitude: Double) -> RequestPosition {
        PrivacyPolicy.exact.requestPosition(
            Position(latitude: latitude, longitude: longitude, source: "test", takenAt: Self.observedAt))
    }

    package static let tag = WeatherTag(
        weather: weather,
        position: position,
        iconFile: "/var/cache/weathertag/icons/04d@2x.png",
        fetchedAt: observedAt
    )

    /// The repository's root, found from this file's path.
    package static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}

/// An HTTP date (IMF-fixdate, RFC 9110 §5.6.7), as a service writes one in `Retry-After`.
package func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}
