import Foundation
import Glibc

/// A program the tests start and stop: stand-ins, gpsd, the weathertag binary.
///
/// Started with `posix_spawn`, an empty signal mask and default signal dispositions: the test runner's threads
/// block most signals, and a child inheriting that mask would ignore SIGTERM.
///
/// Why not swift-subprocess, which the daemon's command provider uses: it ties a process's life to the scope of
/// `run { execution in … }` and reaps the process itself. The tests hold their processes across a test's body and
/// act on them at moments of their choosing (read the first line, SIGTERM, SIGKILL at a random instant, poll for
/// the exit status while the daemon is stamping): with swift-subprocess each would need an unstructured task per
/// child, or every harness restructured into nested scopes, and the exit status would only be known once that
/// scope ends.
package final class ChildProcess: @unchecked Sendable {
    package let pid: pid_t
    package let stderrPath: String
    private let stdoutFD: Int32
    private var exitStatus: Int32?

    package init(_ argv: [String], environment: [String: String]? = nil, stderrPath: String) throws {
        self.stderrPath = stderrPath
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw POSIXError(.EMFILE) }
        self.stdoutFD = pipeFDs[0]
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        // Nothing else: Foundation's `Data.write` opens without close-on-exec, and a child started by another test
        // at that moment would hold the file open for writing for its whole life (a daemon then sees an entry
        // "open for writing" and waits for a close that comes only when that child exits).
        _ = addCloseFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment.map(Self.keepingTheClock) ?? Self.inEnglish(ProcessInfo.processInfo.environment)
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        close(pipeFDs[1])
        guard result == 0 else {
            close(pipeFDs[0])
            throw TimeoutError(description: "cannot start \(argv[0]): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit {
        close(self.stdoutFD)
    }

    /// The test run's environment, its messages in the code's English whatever language the person running the suite
    /// reads (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES` and `LANG` choose weathertag's words): the suite's expectations are
    /// English, and a test of another language gives its environment.
    static func inEnglish(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        for variable in ["LANGUAGE", "LC_ALL"] { environment[variable] = nil }
        environment["LC_MESSAGES"] = "C.UTF-8"
        return environment
    }

    /// `environment` with the test run's clock carried over: a suite run on a chosen date and in a chosen zone
    /// (`make test-dates`, tools/test-clock.c) starts its daemons, commands and stand-ins on that date and in
    /// that zone too, even those given an environment of their own. A `TZ` the test gives wins.
    static func keepingTheClock(_ environment: [String: String]) -> [String: String] {
        let clock = ProcessInfo.processInfo.environment.filter { key, value in
            key == "TEST_CLOCK_OFFSET" || key == "TZ" || (key == "LD_PRELOAD" && value.contains("test-clock"))
        }
        return environment.merging(clock) { given, _ in given }
    }

    /// The first line the program prints, parsed as JSON (the stand-ins print `{"port": N}`).
    package func firstLineJSON() throws -> [String: Any] {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(self.stdoutFD, &byte, 1) == 1 {
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        guard !bytes.isEmpty else { throw TimeoutError(description: "no output: \(self.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] ?? [:]
    }

    /// Everything read from stdout until the program closes it.
    package func readStdout() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(self.stdoutFD, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    package var stderr: String {
        (try? String(contentsOfFile: self.stderrPath, encoding: .utf8)) ?? ""
    }

    package var isRunning: Bool {
        self.reap() == nil
    }

    /// The exit status once it has exited (128 + signal for a signal death), else nil.
    private func reap() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(self.pid, &status, WNOHANG) == self.pid else { return nil }
        let signal = status & 0x7F
        self.exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        return self.exitStatus
    }

    package func signal(_ signal: Int32) {
        if self.isRunning { kill(self.pid, signal) }
    }

    /// Waits for the exit and returns its status.
    @discardableResult
    package func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        try await poll("exit of pid \(self.pid)", timeout: timeout) { self.reap() }
    }

    /// SIGTERM, then SIGKILL if it will not go.
    package func stop() async {
        self.signal(SIGTERM)
        if (try? await self.waitForExit(timeout: .seconds(5))) == nil {
            self.signal(SIGKILL)
            _ = try? await self.waitForExit(timeout: .seconds(5))
        }
    }

    /// Runs a program to completion: (status, stdout, stderr).
    package static func run(
        _ argv: [String],
        environment: [String: String]? = nil,
        in directory: TemporaryDirectory
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(
            argv,
            environment: environment,
            stderrPath: directory.file("stderr-\(UInt32.random(in: 0...UInt32.max)).log")
        )
        let output = child.readStdout()
        let status = try await child.waitForExit()
        return (status, output, child.stderr)
    }
}

/// Finds a program on $PATH or in the sbin folders.
package func which(_ name: String) -> String? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/sbin:/usr/local/sbin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+): Swift's Glibc module does not declare it (it is a
/// GNU extension), and this target stays free of C shims.
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
