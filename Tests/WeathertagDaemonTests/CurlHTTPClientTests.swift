import Foundation
import Glibc
import NIOCore
import NIOPosix
import Synchronization
import Testing
import WeathertagCore
import WeathertagHTTP
import WeathertagTestSupport

/// libcurl's transfers block a thread while they wait for the network. They wait on the client's own threads: a
/// service that answers slowly, or never, holds none of the process's thread pool, which stamps entries, reads the
/// index and answers the socket's pages.
@Suite("the HTTP client")
struct CurlHTTPClientTests {
    /// As many transfers as the process's pool has threads, to a server that takes each connection and never
    /// answers: work given to the pool meanwhile runs while they wait. (On the pool, it waited until they ended: here,
    /// until a watchdog closed their connections after 60 s.) The bounds are long: with the rest of the suite beside
    /// it, the tasks that start the transfers waited 20 s and more for a cooperative thread.
    @Test func aServiceThatNeverAnswersHoldsNoThreadOfTheProcesssPool() async throws {
        let server = try SilentServer()
        defer { server.close() }
        // NIOThreadPool.singleton's threads, as the daemon runs it; the client given as many.
        let threads = NIOSingletons.blockingPoolThreadCountSuggestion
        let client = CurlHTTPClient(threads: threads)
        let request = HTTPRequest(url: "http://127.0.0.1:\(server.port)/data/2.5/weather", timeout: .seconds(300))
        let transfers = (0..<threads).map { _ in Task { try? await client.get(request) } }
        // Each transfer connected (and sent its request, which nobody reads); they end when their connections close.
        let connections = try await server.accept(threads)
        let closing = Closing(connections)
        let watchdog = Task {
            guard (try? await Task.sleep(for: .seconds(60))) != nil else { return }
            closing.close(byWatchdog: true)
        }
        let ranWhileTheyWaited = try await NIOThreadPool.singleton.runIfActive { !closing.byWatchdog }
        watchdog.cancel()
        closing.close(byWatchdog: false)
        for transfer in transfers { _ = await transfer.value }
        #expect(ranWhileTheyWaited, "the pool's work waited for the transfers to end")
    }
}

/// The accepted connections, closed once: by the test, or by its watchdog.
private final class Closing: Sendable {
    private let connections: [Int32]
    private let closed = Atomic<Int>(0)  // 0: open; 1: closed by the test; 2: by the watchdog

    init(_ connections: [Int32]) { self.connections = connections }

    var byWatchdog: Bool { self.closed.load(ordering: .acquiring) == 2 }

    func close(byWatchdog: Bool) {
        guard
            self.closed.compareExchange(expected: 0, desired: byWatchdog ? 2 : 1, ordering: .acquiringAndReleasing)
                .exchanged
        else { return }
        for connection in self.connections { Glibc.close(connection) }
    }
}

/// A loopback TCP server that accepts connections and never answers.
private struct SilentServer {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                fcntl(descriptor, F_SETFL, O_NONBLOCK) == 0 && bind(descriptor, pointer, length) == 0
                    && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits for `count` connections; their descriptors. Polled, never blocking a thread of Swift's cooperative
    /// pool: the transfers that connect start on it, and a blocking `accept` on both its threads (two cores, the
    /// suite's other tests beside) waited for them forever.
    func accept(_ count: Int) async throws -> [Int32] {
        var connections: [Int32] = []
        while connections.count < count {
            connections.append(
                try await poll("a connection", timeout: .seconds(120)) { () -> Int32? in
                    let connection = Glibc.accept(self.descriptor, nil, nil)
                    return connection >= 0 ? connection : nil
                })
        }
        return connections
    }

    func close() { Glibc.close(self.descriptor) }
}
