import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

/// Where `entries`, `why` and `timeline` read the diary index: the running daemon (its answers know why an entry
/// waits this moment), else the state database itself, found through the configuration.
enum DiarySource {
    case daemon(socketPath: String, inbox: String)
    case database(DiaryIndex, inbox: String)

    var inbox: String {
        switch self {
        case .daemon(_, let inbox), .database(_, let inbox): return inbox
        }
    }

    /// The daemon when one answers on the socket; else the database of the configuration (`--config`, else the
    /// user's, else the system's). Fails with 69 when there is neither.
    static func open(_ connection: DaemonConnection) async throws -> DiarySource {
        let environment = ProcessInfo.processInfo.environment
        let socketPath = try? connection.socketPath(environment)
        if let socketPath, let response = try? await DaemonConnection.get("/v1/status", socketPath: socketPath),
            response.status == 200, let status = try? DaemonConnection.decode(StatusDocument.self, response)
        {
            return .daemon(socketPath: socketPath, inbox: status.inbox)
        }
        guard let path = connection.configurationFile() else {
            throw DiaryUnreadable(
                "no daemon answers\(socketPath.map { " on \($0)" } ?? "") and there is no configuration to find its "
                    + "state database with (give --config)", exitStatus: ExitStatus.unavailable)
        }
        let runtime = Runtime.quiet
        let configuration: Configuration
        do {
            configuration = try runtime.loadConfiguration(path)
        } catch {
            throw DiaryUnreadable("configuration error: \(error)", exitStatus: ExitStatus.configuration)
        }
        let file = configuration.state.directory + "/" + StateDatabase.fileName
        do {
            guard let index = try await runtime.factory(configuration).diaryIndex() else {
                throw DiaryUnreadable(
                    "no daemon answers and there is no diary index at \(file) yet (the daemon builds it: start it once)",
                    exitStatus: ExitStatus.unavailable)
            }
            return .database(index, inbox: configuration.inbox.path)
        } catch let unreadable as DiaryUnreadable {
            throw unreadable
        } catch {
            throw DiaryUnreadable("cannot open the diary index \(file): \(error)", exitStatus: ExitStatus.unavailable)
        }
    }

    /// The diary and every entry `filters` match (all of them without filters), for a page or a map of them.
    static func matching(
        _ filters: EntryFilters, _ connection: DaemonConnection
    ) async throws -> (DiarySource, [EntryDocument]) {
        let source = try await DiarySource.open(connection)
        var query = try filters.query()
        query.limit = EntryQuery.maximumLimit
        return (source, try await source.all(query, limit: nil))
    }

    /// A path given on the command line, absolute (from the working folder) and standardized.
    static func absolute(_ path: String) -> String {
        Paths.standardized(path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// A page of entries. A refused query fails with 64 and the daemon's words (the parameter named).
    func list(_ query: EntryQuery) async throws -> EntryListDocument {
        switch self {
        case .daemon(let socketPath, _):
            let target = "/v1/entries?" + query.parameters.map { "\($0)=\(Self.encoded($1))" }.joined(separator: "&")
            let response = try await Self.get(target, socketPath: socketPath)
            guard response.status == 200 else {
                throw DiaryUnreadable(
                    DaemonConnection.errorMessage(response),
                    exitStatus: response.status == 400 ? ExitStatus.usage : ExitStatus.unavailable)
            }
            return try DaemonConnection.decode(EntryListDocument.self, response)
        case .database(let index, _):
            return try await index.list(query)
        }
    }

    /// Every entry the query matches, page after page (at most `limit` when given).
    func all(_ query: EntryQuery, limit: Int?) async throws -> [EntryDocument] {
        try await query.all(limit: limit) { try await self.list($0) }
    }

    /// One entry by its path relative to the inbox; nil when the index does not have it.
    func entry(_ path: String) async throws -> EntryDocument? {
        switch self {
        case .daemon(let socketPath, _):
            let response = try await Self.get("/v1/entries/" + Self.encoded(path), socketPath: socketPath)
            if response.status == 404 { return nil }
            guard response.status == 200 else {
                throw DiaryUnreadable(DaemonConnection.errorMessage(response), exitStatus: ExitStatus.unavailable)
            }
            return try DaemonConnection.decode(EntryDocument.self, response)
        case .database(let index, _):
            return try await index.entry(path)
        }
    }

    private static func get(_ target: String, socketPath: String) async throws -> HTTPResponse {
        do {
            return try await DaemonConnection.get(target, socketPath: socketPath)
        } catch {
            throw DiaryUnreadable(
                DaemonConnection.unreachable(error, socketPath: socketPath), exitStatus: ExitStatus.unavailable)
        }
    }

    static func encoded(_ text: String) -> String {
        percentEncoded(text)
    }
}

/// Why the diary cannot be read, in words, with the exit status it means: `DiarySource` returns it, the command
/// prints it (`printed`).
struct DiaryUnreadable: Error, CustomStringConvertible {
    var description: String
    var exitStatus: Int32

    init(_ description: String, exitStatus: Int32) {
        (self.description, self.exitStatus) = (description, exitStatus)
    }

    /// Runs a command's body: a failure to read the diary is printed and exits with its status.
    static func printed<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let unreadable as DiaryUnreadable {
            printError(unreadable.description)
            throw ExitCode(unreadable.exitStatus)
        }
    }
}
