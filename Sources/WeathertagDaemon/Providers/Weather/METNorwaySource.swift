import FoundationEssentials
import Synchronization
import WeathertagCore

/// MET Norway's locationforecast (`met-norway`): no key, but their terms ask for a User-Agent that names the
/// application and a contact (`met_norway.contact`, required), at most 4 decimals, and respect for `Expires`: an
/// answer is reused until it expires, and then asked for again with `If-Modified-Since` (a 304 reuses it once more).
package struct METNorwaySource: WeatherSource {
    package let type = "met-norway"
    package let settings: Settings
    private let http: any HTTPClient
    private let countCall: @Sendable () -> Void
    private let now: @Sendable () -> Date
    private let kept = KeptAnswers()

    final class KeptAnswers: Sendable {
        let answers = Mutex<[String: Kept]>([:])
    }

    /// An answer and what MET said of its freshness.
    struct Kept {
        var response: HTTPResponse
        var lastModified: String?
        var expires: Date?
    }

    package init(
        settings: Settings, http: any HTTPClient, countCall: @escaping @Sendable () -> Void,
        now: @escaping @Sendable () -> Date
    ) {
        self.settings = settings
        self.http = http
        self.countCall = countCall
        self.now = now
    }

    /// MET caps a whole application at 20 requests a second; one machine's diary needs a few an hour.
    package var maximumCallsPerMinute: Int { 30 }

    package func currentWeather(at position: RequestPosition) async throws(WeatherError) -> Weather {
        let url = METNorwayAPI.url(baseURL: self.settings.service.baseURL, at: position)
        let response = try await self.answer(url)
        return try METNorwayAPI.decode(response, at: position, units: self.settings.units, lang: self.settings.lang)
    }

    /// The kept answer while it has not expired, else a conditional request.
    private func answer(_ url: String) async throws(WeatherError) -> HTTPResponse {
        let kept = self.kept.answers.withLock { $0[url] }
        if let kept, let expires = kept.expires, self.now() < expires { return kept.response }
        var headers = [
            "User-Agent: "
                + METNorwayAPI.userAgent(
                    version: WeathertagVersion.current, contact: self.settings.service.contact ?? "")
        ]
        if let modified = kept?.lastModified { headers.append("If-Modified-Since: \(modified)") }
        self.countCall()
        let response: HTTPResponse
        do {
            response = try await self.http.get(
                HTTPRequest(url: url, timeout: self.settings.service.timeout, headers: headers))
        } catch {
            throw WeatherError(kind: .unreachable, message: "MET Norway unreachable: \(error)", cause: error)
        }
        let expires = response.headers["expires"].flatMap(Self.httpDate)
        if response.status == 304, var kept {
            kept.expires = expires
            self.kept.answers.withLock { $0[url] = kept }
            return kept.response
        }
        if response.status == 200 || response.status == 203 {
            let fresh = Kept(response: response, lastModified: response.headers["last-modified"], expires: expires)
            self.kept.answers.withLock { $0[url] = fresh }
        }
        return response
    }

    /// `Tue, 24 Nov 2026 10:30:00 GMT` (RFC 9110's IMF-fixdate).
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int(fields[1]), let month = months.firstIndex(of: String(fields[2])), let year = Int(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        return Zone.utc.date(
            from: DateComponents(
                year: year, month: month + 1, day: day, hour: clock[0], minute: clock[1], second: clock[2]))
    }
}

extension METNorwaySource {
    /// `{"type": "met-norway", "timeout_seconds": 10}`; the address and the contact are in `met_norway`.
    package struct Settings: Sendable {
        package var service: METNorwaySection
        package var units: Units
        package var lang: String
    }
}

extension WeatherSourcePlugin {
    package static var metNorway: WeatherSourcePlugin {
        WeatherSourcePlugin(
            type: "met-norway", name: "MET Norway",
            answers: [
                AnswerReader("MET Norway's locationforecast") { bytes in
                    _ = try? METNorwayAPI.decode(
                        HTTPResponse(status: 200, body: bytes), at: AnswerReader.position, units: .metric, lang: "en")
                }
            ],
            keys: [
                .seconds("timeout_seconds", maximum: 120)
            ], sections: [METNorwaySection.self]
        ) { (config, context) throws(ConfigurationError) in
            var service = context.sections[METNorwaySection.self]
            guard service.contact != nil else {
                throw ConfigurationError(
                    field: "met_norway.contact",
                    message: "is required with \(config.fieldPath("type")) met-norway: MET Norway's terms ask for a "
                        + "way to reach you (an e-mail address or a web site), sent in the User-Agent")
            }
            if let timeout = try config.seconds("timeout_seconds", maximum: 120) { service.timeout = timeout }
            return METNorwaySource.Settings(
                service: service, units: context.units, lang: context.lang)
        } make: { settings, context in
            METNorwaySource(settings: settings, http: context.http, countCall: context.countCall, now: context.now)
        }
    }
}

/// MET Norway's locationforecast (`met_norway`): no key, but an identifying User-Agent with a contact.
package struct METNorwaySection: ConfigurationSection {
    package static let name = "met_norway"
    package static let description: String? =
        "MET Norway's locationforecast (no key; data CC BY 4.0): the met-norway source."
    package static let declaredKeys: [ConfigKey] = [
        .url("base_url", default: "https://api.met.no"),
        .string(
            "contact", minLength: 1, maxLength: 200,
            "An e-mail address or web site MET Norway can reach you at, sent in the User-Agent as their terms ask; required to use met-norway."
        ),
        .seconds("timeout_seconds", maximum: 120, default: 10),
    ]

    package var baseURL = "https://api.met.no"
    /// An e-mail address or a web site their operators can reach the user at; required to use the source.
    package var contact: String?
    package var timeout: Duration = .seconds(10)

    package init() {}

    package init(
        _ object: ConfigObject, context: SectionContext, warnings: inout [String]
    ) throws(ConfigurationError) {
        if let url = try object.url("base_url") { self.baseURL = url }
        if let contact = try object.nonEmptyString("contact") {
            // It goes into a header: one printable line.
            guard contact.count <= 200, contact.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
            else {
                throw ConfigurationError(
                    field: "met_norway.contact",
                    message: "must be an e-mail address or a web address in plain ASCII on one line")
            }
            self.contact = contact
        }
        if let timeout = try object.seconds("timeout_seconds", maximum: 120) { self.timeout = timeout }
    }
}
