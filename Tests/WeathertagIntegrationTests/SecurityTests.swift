import Foundation
import Glibc
import Testing
import WeathertagTestSupport

/// The fault suite, part 7: what the daemon gives away and to whom.
@Suite("Faults: security", .serialized)
struct SecurityTests {
    @Test func theCommandProviderRunsArgvWithoutAShellSecretsOrBlockedSignals() async throws {
        try await withHarness { harness in
            let dir = harness.directory
            // Records its arguments, environment and signal mask, starts a grandchild, and answers.
            try dir.write(
                "probe",
                """
                #!/bin/sh
                for argument in "$@"; do printf '%s\\n' "$argument"; done > "$0.args"
                env > "$0.env"
                grep -E '^Sig(Blk|Ign)' /proc/self/status > "$0.signals"
                echo '{"latitude": 64.1466, "longitude": -21.9426}'
                """
            )
            try dir.write("hangs", "#!/bin/sh\nsleep 300 &\necho $! > \"$0.pid\"\nwait\n")
            try dir.write("chatty", "#!/bin/sh\nhead -c 200000 /dev/zero | tr '\\\\0' x\n")
            try dir.write("fails", "#!/bin/sh\necho 'no GPS dongle plugged in' >&2\nexit 3\n")
            for script in ["probe", "hangs", "chatty", "fails"] { chmod(dir.file(script), 0o755) }
            try harness.writeConfig(
                providers: """
                    [{"type": "command", "argv": ["./hangs"], "timeout_seconds": 0.5},
                     {"type": "command", "argv": ["./chatty"]},
                     {"type": "command", "argv": ["./fails"]},
                     {"type": "command", "argv": ["./probe", "$(touch pwned)", "a b;c", "*"]}]
                    """
            )
            let daemon = try await harness.startDaemon(environment: ["OPENWEATHER_API_KEY": WeatherStandIn.apiKey])
            let location = try daemon.get("/v1/location").json
            #expect(location["latitude"] as? Double == 64.147)

            // argv reaches the program untouched: no shell expanded or split anything.
            #expect(try String(contentsOfFile: dir.file("probe.args"), encoding: .utf8) == "$(touch pwned)\na b;c\n*\n")
            #expect(!FileManager.default.fileExists(atPath: dir.file("pwned")))
            // No secrets in its environment, nothing blocked or ignored.
            let environment = try String(contentsOfFile: dir.file("probe.env"), encoding: .utf8)
            #expect(!environment.contains(WeatherStandIn.apiKey) && !environment.contains("NOTIFY_SOCKET"))
            let signals = try String(contentsOfFile: dir.file("probe.signals"), encoding: .utf8)
            // (Signals 32 and 33 are glibc's own and stay as glibc sets them; 1–31 are the ones that matter.)
            for line in signals.split(separator: "\n") {
                let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) ?? .max
                #expect(mask & 0x7FFF_FFFF == 0, "\(line)")
            }
            #expect(signals.contains("SigBlk:") && signals.contains("SigIgn:"))

            // The late program's grandchild was killed with it.
            let grandchild = try #require(
                pid_t(
                    try String(contentsOfFile: dir.file("hangs.pid"), encoding: .utf8).trimmingCharacters(
                        in: .whitespacesAndNewlines)))
            try await poll("the grandchild killed") { kill(grandchild, 0) != 0 && errno == ESRCH ? true : nil }

            let providers = try #require(try daemon.get("/v1/status").json["providers"] as? [[String: Any]])
            #expect((providers[1]["last_error"] as? String)?.contains("printed more than 64 KiB") == true)
            #expect(
                (providers[2]["last_error"] as? String)?.contains("exited with status 3: no GPS dongle plugged in")
                    == true)

            // The key appears in no answer.
            for path in ["/v1/tag", "/v1/tag?format=text", "/v1/location", "/v1/status", "/nope"] {
                #expect(!(try daemon.get(path).body.contains(WeatherStandIn.apiKey)), "\(path)")
            }
            #expect(!daemon.log.contains(WeatherStandIn.apiKey))
            #expect(try await daemon.stop() == 0)
        }
    }
}
