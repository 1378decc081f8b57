import Foundation
import Glibc
import Testing

@testable import WeathertagDaemon

/// The command provider's way of running programs.
@Suite("Running a provider's program")
struct SubprocessTests {
    /// The child gets standard input, output and error, nothing else: libraries (libgps, Foundation's
    /// `Data.write`) open descriptors without close-on-exec, and a program must not hold them, which would keep a
    /// socket alive or a file open for writing for as long as it runs.
    @Test func theProgramInheritsNoOtherDescriptor() async throws {
        let stray = open("/dev/null", O_WRONLY)
        try #require(stray >= 3)
        defer { close(stray) }
        #expect(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0, "opened without close-on-exec")
        // /proc/self/fd of `ls` lists 0, 1, 2 and its own handle of that folder; inherited, the stray is a fifth.
        let output = try await ProviderProgram.run(
            ["/bin/ls", "/proc/self/fd"], limit: 4096, environment: ["PATH": "/usr/bin:/bin"])
        #expect(output.status == 0)
        let descriptors = String(decoding: output.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.count == 4 && descriptors.prefix(3) == [0, 1, 2], "\(descriptors)")
    }
}
