import Foundation
import Testing
import WeathertagTestSupport

/// The unit files, checked offline (PID 1 here is not systemd). `systemd-analyze verify` exits 0 even on unknown
/// keys, so its output is what counts. Only the binary's path is changed, to the one just built (verify checks
/// that ExecStart exists); man pages are checked by the install test, so verify runs with `--man=no`.
@Suite("systemd units")
struct SystemdUnitTests {
    static let units = [
        "weathertag.service", "weathertag.socket", "user/weathertag.service", "user/weathertag.socket",
        "weathertag-gpxlogger.service",
    ]

    private static func copyUnits(to directory: TemporaryDirectory) throws {
        _ = try directory.makeDirectory("user")
        for unit in Self.units {
            let text = try String(contentsOfFile: Fixtures.repositoryRoot + "/systemd/" + unit, encoding: .utf8)
            try directory.write(
                unit, text.replacingOccurrences(of: "/usr/local/bin/weathertag", with: DaemonProcess.binary))
        }
    }

    @Test func unitsPassSystemdAnalyzeVerify() async throws {
        let analyze = try #require(which("systemd-analyze"), "systemd-analyze is needed: apt-get install systemd")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.copyUnits(to: directory)
        let runtime = try directory.makeDirectory("runtime")
        for (scope, units) in [
            ("--system", ["weathertag.service", "weathertag.socket", "weathertag-gpxlogger.service"]),
            ("--user", ["user/weathertag.service", "user/weathertag.socket"]),
        ] {
            let result = try await ChildProcess.run(
                [analyze, "verify", "--man=no", scope] + units.map(directory.file),
                environment: ["XDG_RUNTIME_DIR": runtime, "PATH": "/usr/bin:/bin"],
                in: directory
            )
            #expect(result.status == 0, "\(scope): \(result.stderr)")
            #expect(!result.stderr.contains("weathertag."), "\(scope): \(result.stderr)")
            #expect(!result.stderr.contains("gpxlogger"), "\(scope): \(result.stderr)")
            #expect(!result.stdout.contains("weathertag."), "\(scope): \(result.stdout)")
        }
    }

    /// Exposure ≤ 1.5 ("OK"): `--threshold` takes tenths and makes the command fail above it.
    @Test func unitsAreHardened() async throws {
        let analyze = try #require(which("systemd-analyze"), "systemd-analyze is needed: apt-get install systemd")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.copyUnits(to: directory)
        let result = try await ChildProcess.run(
            [analyze, "security", "--offline=true", "--threshold=15", directory.file("weathertag.service")],
            in: directory
        )
        #expect(result.status == 0, "exposure above 1.5:\n\(result.stdout)")
        #expect(result.stdout.contains("Overall exposure level for weathertag.service: 1."))
        #expect(result.stdout.contains("OK"))

        // The user unit has what a user manager can apply (seccomp, not mount namespaces): 6.3 against 9.1 without.
        let user = try await ChildProcess.run(
            [
                analyze, "security", "--user", "--offline=true", "--threshold=65",
                directory.file("user/weathertag.service"),
            ],
            environment: ["XDG_RUNTIME_DIR": try directory.makeDirectory("runtime"), "PATH": "/usr/bin:/bin"],
            in: directory
        )
        #expect(user.status == 0, "user unit exposure above 6.5:\n\(user.stdout)")
    }

    @Test func unitsSayWhatTheDaemonDoes() throws {
        let service = try String(
            contentsOfFile: Fixtures.repositoryRoot + "/systemd/weathertag.service", encoding: .utf8)
        for directive in [
            "Type=notify", "ExecStart=/usr/local/bin/weathertag serve --config /etc/weathertag/config.json",
            "ExecReload=/bin/kill -HUP $MAINPID", "WatchdogSec=",
            "StateDirectory=weathertag", "CacheDirectory=weathertag", "RuntimeDirectory=weathertag",
            "RuntimeDirectoryPreserve=yes", "User=weathertag", "SupplementaryGroups=diary", "ReadWritePaths=-",
            "RestartPreventExitStatus=78 73",
        ] {
            #expect(service.contains(directive), "\(directive)")
        }
        // systemd 252 refuses to start a unit whose LoadCredential= file is missing (243/CREDENTIALS), and the
        // configuration the package installs needs no key: the key's credential is a drop-in, added with the key.
        #expect(!service.contains("\nLoadCredential="))
        let dropIn = try String(
            contentsOfFile: Fixtures.repositoryRoot + "/systemd/weathertag.service.d/openweather-api-key.conf",
            encoding: .utf8)
        #expect(dropIn.contains("[Service]\nLoadCredential=openweather-api-key:/etc/weathertag/api-key\n"))
        let socket = try String(contentsOfFile: Fixtures.repositoryRoot + "/systemd/weathertag.socket", encoding: .utf8)
        // The socket unit listens where the example configuration and the runtime folder put the socket.
        let example = try String(contentsOfFile: Fixtures.repositoryRoot + "/config.example.json", encoding: .utf8)
        #expect(socket.contains("ListenStream=/run/weathertag/weathertag.sock"))
        #expect(example.contains(#""path": "/run/weathertag/weathertag.sock""#))
        let user = try String(
            contentsOfFile: Fixtures.repositoryRoot + "/systemd/user/weathertag.service", encoding: .utf8)
        #expect(user.contains("--config %E/weathertag/config.json"))
        #expect(user.contains("WantedBy=default.target"))
        // The memory of stamps lives where systemd keeps a user's state: $STATE_DIRECTORY, the default's first choice.
        #expect(user.contains("StateDirectory=weathertag"))
    }
}
