import FoundationEssentials
import WeathertagCore

/// Where a Home Assistant device tracker (`device_tracker.phone`, a `person.`) is and was: now from
/// `GET /api/states/{entity}` (`attributes.latitude`, `longitude`, `gps_accuracy`; `last_updated`), the past from
/// `GET /api/history/period/{start}?filter_entity_id={entity}&end_time=…` over `max_gap_seconds` each side of the
/// moment, interpolated as a track is. Every request carries the long-lived access token as a bearer token, from
/// `token_file` or systemd's credential `homeassistant-token`.
package struct HomeAssistantLocationProvider: LocationProvider {
    package let type = "homeassistant"
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

    package var details: [String: String] { ["url": self.settings.url, "entity": self.settings.entity] }

    package func locate() async throws -> Position {
        let body = try await self.get("/api/states/" + Self.escape(self.settings.entity))
        guard let state = HomeAssistantAPI.state(body) else {
            throw LocationError(source: self.type, message: "Home Assistant answered something other than a JSON state")
        }
        guard let point = state.point else {
            throw LocationError(
                source: self.type,
                message: "\(self.settings.entity) has no latitude and longitude (is it a GPS tracker?)")
        }
        guard let fix = TrackFix.now(point, at: self.now(), maximumAge: self.settings.maximumFixAge) else {
            throw LocationError(
                source: self.type,
                message:
                    "\(self.settings.entity) was last updated \(point.time.iso8601), more than \(Int(self.settings.maximumFixAge.seconds)) s ago"
            )
        }
        return fix.position(source: self.type)
    }

    /// Its positions are where the author was (`BorrowedPlace`).
    package var followsTheAuthor: Bool { true }

    package func locate(at time: Date) async throws -> Position? {
        let window = ServiceHistory.window(around: time, maximumGap: self.settings.maximumGap)
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "filter_entity_id", value: self.settings.entity),
            URLQueryItem(name: "end_time", value: window.to.iso8601),
        ]
        let body = try await self.get(
            "/api/history/period/" + Self.escape(window.from.iso8601) + "?" + (components.percentEncodedQuery ?? ""))
        // A list per entity, each a list of states; an empty list when nothing was recorded then.
        guard let points = HomeAssistantAPI.history(body) else {
            throw LocationError(
                source: self.type, message: "Home Assistant's history answered something other than a JSON list")
        }
        return ServiceHistory.fix(at: time, in: points, maximumGap: self.settings.maximumGap)?.position(
            source: self.type)
    }

    private func get(_ path: String) async throws -> [UInt8] {
        let response: HTTPResponse
        do {
            response = try await self.http.get(
                HTTPRequest(
                    url: self.settings.url + path, timeout: self.timeout,
                    headers: [self.settings.token.authorizationHeader, "Accept: application/json"]))
        } catch {
            throw LocationError(source: self.type, message: "Home Assistant is unreachable: \(error)", cause: error)
        }
        switch response.status {
        case 200: return response.body
        case 401, 403:
            throw LocationError(
                source: self.type,
                message:
                    "Home Assistant refused the token (HTTP \(response.status)): make a new long-lived access token")
        case 404:
            throw LocationError(source: self.type, message: "Home Assistant has no entity \(self.settings.entity)")
        default: throw LocationError(source: self.type, message: "Home Assistant answered HTTP \(response.status)")
        }
    }

    private static func escape(_ part: String) -> String {
        // A path segment: unreserved characters and the sub-delimiters but `+`, `/` and `:` stay as they are.
        percentEncoded(part, keeping: "-._~!$&'()*,;=@")
    }
}

extension HomeAssistantLocationProvider {
    /// `{"type": "homeassistant", "url": "http://homeassistant.local:8123", "entity": "device_tracker.phone",
    /// "token_file": "/etc/weathertag/homeassistant-token"}`
    package struct Settings: Sendable {
        package var url: String
        package var entity: String
        package var token: ServiceToken
        package var maximumGap: Duration
        package var maximumFixAge: Duration
        package var timeout: Duration
    }
}

extension LocationProviderPlugin {
    package static var homeassistant: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "homeassistant", name: "Home Assistant", needsKey: true,
            answers: [
                AnswerReader("Home Assistant's state") { bytes in _ = HomeAssistantAPI.state(bytes)?.point },
                AnswerReader("Home Assistant's history") { bytes in _ = HomeAssistantAPI.history(bytes) },
            ],
            keys: [
                .url("url", required: true, "Home Assistant (its /api/states and /api/history/period)."),
                .string(
                    "entity", required: true, pattern: "^[^/]+\\.[^/]+$",
                    "The tracker's entity id: device_tracker.phone, person.me."),
                .string(
                    "token_file", minLength: 1,
                    "A file holding a long-lived access token; $CREDENTIALS_DIRECTORY/homeassistant-token (systemd LoadCredential=) comes first."
                ),
                .seconds("max_gap_seconds", maximum: 86400, default: 600),
                .seconds("max_fix_age_seconds", maximum: 86400, default: 900),
                .seconds("timeout_seconds", maximum: 300, default: 5),
            ]
        ) { (config, context) throws(ConfigurationError) in
            guard let url = try config.url("url") else { throw config.missing("url") }
            guard let entity = try config.nonEmptyString("entity") else { throw config.missing("entity") }
            guard entity.contains("."), !entity.contains("/") else {
                throw ConfigurationError(
                    field: config.fieldPath("entity"),
                    message: "\"\(entity)\" is not an entity id such as device_tracker.phone")
            }
            guard let token = try config.token("token_file", credential: "homeassistant-token", context: context) else {
                throw ConfigurationError(
                    field: config.fieldPath("token_file"),
                    message: "Home Assistant needs a long-lived access token: name a file holding it, or under systemd "
                        + "use LoadCredential=homeassistant-token:/etc/weathertag/homeassistant-token")
            }
            return HomeAssistantLocationProvider.Settings(
                url: url, entity: entity, token: token,
                maximumGap: try config.seconds("max_gap_seconds", maximum: 86_400) ?? .seconds(600),
                maximumFixAge: try config.seconds("max_fix_age_seconds", maximum: 86_400) ?? .seconds(900),
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(5))
        } make: { settings, context in
            HomeAssistantLocationProvider(settings: settings, http: context.http, now: context.now)
        }
    }
}
