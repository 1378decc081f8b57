import FoundationEssentials
import WeathertagCore

/// Where the phone is and was, from an OwnTracks Recorder's HTTP API: now from `GET /api/0/last?user=&device=`,
/// the past from `GET /api/0/locations?user=&device=&from=&to=` (a window of `max_gap_seconds` each side of the
/// moment, interpolated as a track is). Locations carry `lat`, `lon`, `tst` (Unix seconds) and `acc` (metres).
/// With `token_file`, each request carries it (`user:password` as HTTP basic auth, else as a bearer token).
package struct OwnTracksLocationProvider: LocationProvider {
    package let type = "owntracks"
    /// What the configuration says of it (the URL without a trailing slash).
    package let settings: Settings
    package var timeout: Duration { self.settings.timeout }
    private let http: any HTTPClient
    private let now: @Sendable () -> Date

    package init(settings: Settings, http: any HTTPClient, now: @escaping @Sendable () -> Date) {
        var settings = settings
        if settings.url.hasSuffix("/") { settings.url.removeLast() }
        self.settings = settings
        self.http = http
        self.now = now
    }

    package var details: [String: String] {
        ["url": self.settings.url, "user": self.settings.user, "device": self.settings.device]
    }

    package func locate() async throws -> Position {
        let body = try await self.get("/api/0/last", [("user", self.settings.user), ("device", self.settings.device)])
        guard let points = OwnTracksRecorderAPI.last(body) else {
            throw LocationError(
                source: self.type, message: "the Recorder's /api/0/last answered something other than a JSON list")
        }
        guard let latest = points.max(by: { $0.milliseconds < $1.milliseconds }) else {
            throw LocationError(
                source: self.type,
                message: "the Recorder has no location of \(self.settings.user)/\(self.settings.device)")
        }
        guard let fix = TrackFix.now(latest, at: self.now(), maximumAge: self.settings.maximumFixAge) else {
            throw LocationError(
                source: self.type,
                message:
                    "the latest location is from \(latest.time.iso8601), older than \(Int(self.settings.maximumFixAge.seconds)) s"
            )
        }
        return fix.position(source: self.type)
    }

    /// Its positions are where the author was (`BorrowedPlace`).
    package var followsTheAuthor: Bool { true }

    package func locate(at time: Date) async throws -> Position? {
        let window = ServiceHistory.window(around: time, maximumGap: self.settings.maximumGap)
        let body = try await self.get(
            "/api/0/locations",
            [
                ("user", self.settings.user), ("device", self.settings.device), ("from", window.from.iso8601),
                ("to", window.to.iso8601),
            ])
        guard let points = OwnTracksRecorderAPI.locations(body) else {
            throw LocationError(
                source: self.type,
                message: "the Recorder's /api/0/locations answered something other than JSON locations")
        }
        return ServiceHistory.fix(
            at: time, in: points, maximumGap: self.settings.maximumGap)?
            .position(source: self.type)
    }

    private func get(_ path: String, _ query: [(String, String)]) async throws -> [UInt8] {
        var components = URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        let url = self.settings.url + path + "?" + (components.percentEncodedQuery ?? "")
        let response: HTTPResponse
        do {
            response = try await self.http.get(
                HTTPRequest(
                    url: url, timeout: self.timeout, headers: self.settings.token.map { [$0.authorizationHeader] } ?? []
                )
            )
        } catch {
            throw LocationError(source: self.type, message: "the Recorder is unreachable: \(error)", cause: error)
        }
        switch response.status {
        case 200: return response.body
        case 401, 403:
            throw LocationError(
                source: self.type,
                message: "the Recorder refused the request (HTTP \(response.status)): check token_file")
        default: throw LocationError(source: self.type, message: "the Recorder answered HTTP \(response.status)")
        }
    }
}

extension OwnTracksLocationProvider {
    /// `{"type": "owntracks", "url": "http://recorder.lan:8083", "user": "me", "device": "phone",
    /// "token_file": "/etc/weathertag/owntracks-token"}`
    package struct Settings: Sendable {
        package var url: String
        package var user: String
        package var device: String
        package var token: ServiceToken?
        package var maximumGap: Duration
        package var maximumFixAge: Duration
        package var timeout: Duration
    }
}

extension LocationProviderPlugin {
    package static var owntracks: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "owntracks", name: "OwnTracks",
            answers: [
                AnswerReader("the OwnTracks Recorder's last locations") { bytes in _ = OwnTracksRecorderAPI.last(bytes)
                },
                AnswerReader("the OwnTracks Recorder's locations") { bytes in _ = OwnTracksRecorderAPI.locations(bytes)
                },
            ],
            keys: [
                .url("url", required: true, "The OwnTracks Recorder (its /api/0/last and /api/0/locations)."),
                .string("user", required: true, minLength: 1),
                .string("device", required: true, minLength: 1),
                .string(
                    "token_file", minLength: 1, "A file holding user:password (HTTP basic auth) or a bearer token."),
                .seconds("max_gap_seconds", maximum: 86400, default: 600),
                .seconds("max_fix_age_seconds", maximum: 86400, default: 900),
                .seconds("timeout_seconds", maximum: 300, default: 5),
            ]
        ) { (config, context) throws(ConfigurationError) in
            guard let url = try config.url("url") else { throw config.missing("url") }
            guard let user = try config.nonEmptyString("user") else { throw config.missing("user") }
            guard let device = try config.nonEmptyString("device") else { throw config.missing("device") }
            return OwnTracksLocationProvider.Settings(
                url: url, user: user, device: device,
                token: try config.token("token_file", context: context),
                maximumGap: try config.seconds("max_gap_seconds", maximum: 86_400) ?? .seconds(600),
                maximumFixAge: try config.seconds("max_fix_age_seconds", maximum: 86_400) ?? .seconds(900),
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(5))
        } make: { settings, context in
            OwnTracksLocationProvider(settings: settings, http: context.http, now: context.now)
        }
    }
}
