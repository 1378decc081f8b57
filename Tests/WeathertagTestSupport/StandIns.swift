import Foundation
import Glibc

/// `tools/openweather-standin.py` on 127.0.0.1:0: OpenWeather, its icons and the IP services' shapes.
package final class WeatherStandIn: Sendable {
    static let python = which("python3") ?? "/usr/bin/python3"
    package static let apiKey = "test-key-0123456789"
    let child: ChildProcess
    package let port: Int

    package init(in directory: TemporaryDirectory) throws {
        self.child = try ChildProcess(
            [Self.python, Fixtures.repositoryRoot + "/tools/openweather-standin.py", "--key", Self.apiKey],
            stderrPath: directory.file("standin.log")
        )
        self.port = try self.child.firstLineJSON()["port"] as? Int ?? 0
    }

    package var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// Changes how it answers, e.g. `{"weather": {"mode": "503"}}`.
    package func control(_ json: String) throws {
        _ = try RawHTTP.request(.tcp(port: self.port), "POST", "/_control", body: json)
    }

    /// Requests seen per endpoint: `weather`, `icon`, `ip-api`, `ipinfo`.
    package func calls(_ endpoint: String) throws -> Int {
        try RawHTTP.request(.tcp(port: self.port), "GET", "/_stats").json[endpoint] as? Int ?? 0
    }

    /// Current weather's (or with `"/_geo"`, the geocoder's; `"/_air"`, air pollution's) queries so far, the
    /// coordinates as they were sent
    /// (`"46.20000"`).
    package func weatherQueries(_ endpoint: String = "/_weather") throws -> [(latitude: String, longitude: String)] {
        let body = try RawHTTP.request(.tcp(port: self.port), "GET", endpoint).body
        let list = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]] ?? []
        return list.map { (($0["lat"] as? String) ?? "", ($0["lon"] as? String) ?? "") }
    }

    /// The timemachine's queries so far, in order: `(latitude, longitude, dt)`.
    package func timemachineQueries() throws -> [(latitude: Double, longitude: Double, dt: Int)] {
        let body = try RawHTTP.request(.tcp(port: self.port), "GET", "/_timemachine").body
        let list = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]] ?? []
        return list.map {
            (($0["lat"] as? Double) ?? .nan, ($0["lon"] as? Double) ?? .nan, ($0["dt"] as? Int) ?? 0)
        }
    }

    /// A keyless service's queries so far, as sent (`open-meteo`, `open-meteo-archive`, `open-meteo-air`,
    /// `met-norway`; MET's with `user_agent` and `if_modified_since`).
    package func keylessQueries(_ service: String) throws -> [[String: String]] {
        let body = try RawHTTP.request(.tcp(port: self.port), "GET", "/_queries/" + service).body
        return (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: String]] ?? []
    }

    package func stop() async {
        await self.child.stop()
    }
}

/// A real gpsd, fed NMEA over TCP by `tools/nmea-feeder.py`, listening on a free loopback port.
package final class GPSDStandIn: @unchecked Sendable {
    static let python = WeatherStandIn.python
    let feeder: ChildProcess
    let feederPort: Int
    let directory: TemporaryDirectory
    let controlFile: String
    var gpsd: ChildProcess
    package let port: Int

    /// - Parameter feed: what the feeder sends at first (see `setFeed`).
    package init(
        latitude: Double,
        longitude: Double,
        feed: String = "fix",
        in directory: TemporaryDirectory
    ) async throws {
        self.controlFile = directory.file("feeder-mode-\(UInt16.random(in: 0...UInt16.max))")
        try feed.write(toFile: self.controlFile, atomically: true, encoding: .utf8)
        self.feeder = try ChildProcess(
            [
                "/usr/bin/env", "python3", Fixtures.repositoryRoot + "/tools/nmea-feeder.py", "--lat", "\(latitude)",
                "--lon", "\(longitude)", "--control", self.controlFile,
            ],
            stderrPath: directory.file("feeder.log")
        )
        self.feederPort = try self.feeder.firstLineJSON()["port"] as? Int ?? 0
        self.directory = directory
        self.port = RawHTTP.freePort()
        self.gpsd = try await Self.startGPSD(port: self.port, feederPort: self.feederPort, in: directory)
    }

    private static func startGPSD(
        port: Int, feederPort: Int, in directory: TemporaryDirectory
    ) async throws
        -> ChildProcess
    {
        guard let gpsdPath = which("gpsd") else { throw TimeoutError(description: "gpsd is not installed") }
        let gpsd = try ChildProcess(
            [gpsdPath, "-N", "-n", "-S", String(port), "tcp://127.0.0.1:\(feederPort)"],
            stderrPath: directory.file("gpsd-\(UInt16.random(in: 0...UInt16.max)).log")
        )
        // Ready when it accepts connections.
        try await poll("gpsd on port \(port)") { () -> Bool? in
            guard let fd = try? RawHTTP.connect(.tcp(port: port)) else { return nil }
            close(fd)
            return true
        }
        return gpsd
    }

    /// What the NMEA feeder sends from now on: `fix`, `nofix`, `nan` (a 3D fix without coordinates) or `silent`.
    package func setFeed(_ mode: String) throws {
        try mode.write(toFile: self.controlFile, atomically: true, encoding: .utf8)
    }

    /// Stops gpsd (SIGTERM) and leaves the feeder running.
    package func stopGPSD() async {
        await self.gpsd.stop()
    }

    /// Starts gpsd again on the same port.
    package func restartGPSD() async throws {
        self.gpsd = try await Self.startGPSD(port: self.port, feederPort: self.feederPort, in: self.directory)
    }

    package func stop() async {
        await self.gpsd.stop()
        await self.feeder.stop()
    }
}

/// `tools/location-standin.py` on 127.0.0.1:0: an OwnTracks Recorder and a Home Assistant, answering from the same
/// points, with their credentials checked.
package final class LocationStandIn: Sendable {
    package static let ownTracksAuth = "diarist:recorder-secret-81"
    package static let homeAssistantToken = "ha-secret-token-2f9c"
    let child: ChildProcess
    package let port: Int

    package init(in directory: TemporaryDirectory) throws {
        self.child = try ChildProcess(
            [
                WeatherStandIn.python, Fixtures.repositoryRoot + "/tools/location-standin.py", "--owntracks-auth",
                Self.ownTracksAuth, "--ha-token", Self.homeAssistantToken,
            ],
            stderrPath: directory.file("location-standin.log")
        )
        self.port = try self.child.firstLineJSON()["port"] as? Int ?? 0
    }

    package var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// The points both services answer from: `(latitude, longitude, Unix seconds, accuracy)`.
    package func setPoints(_ points: [(Double, Double, Int, Double?)]) throws {
        let list = points.map { point -> [String: Any] in
            var item: [String: Any] = ["lat": point.0, "lon": point.1, "tst": point.2]
            if let accuracy = point.3 { item["acc"] = accuracy }
            return item
        }
        let body = try JSONSerialization.data(withJSONObject: ["points": list])
        _ = try RawHTTP.request(.tcp(port: self.port), "POST", "/_control", body: String(decoding: body, as: UTF8.self))
    }

    /// How `service` (`owntracks`, `homeassistant`) answers from now on: `ok`, `401`, `500`, `empty`, `garbage`.
    package func setMode(_ service: String, _ mode: String) throws {
        _ = try RawHTTP.request(
            .tcp(port: self.port), "POST", "/_control", body: #"{"\#(service)": {"mode": "\#(mode)"}}"#)
    }

    /// The requests seen: service, path, query, and whether the right credentials came with them.
    package func requests() throws -> [[String: Any]] {
        let body = try RawHTTP.request(.tcp(port: self.port), "GET", "/_requests").body
        return (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]] ?? []
    }

    package func stop() async {
        await self.child.stop()
    }
}
