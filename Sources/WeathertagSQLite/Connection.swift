import CSQLite
import Glibc

/// One SQLite connection. Used by one thread at a time: a `DatabasePool` hands it to one closure at a time.
package final class Database {
    let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    private var cacheByText: [ObjectIdentifier: Statement] = [:]

    init(path: String, readOnly: Bool, busyTimeout: Duration) throws {
        _ = Self.libraryConfigured
        var handle: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: .init(rawValue: status), message: message)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        // In microseconds, fractions of a second included (a timeout under a second was once taken as none).
        let (seconds, attoseconds) = busyTimeout.components
        let microseconds = Int(max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        sqlite3_busy_handler(handle, busyHandler, UnsafeMutableRawPointer(bitPattern: microseconds))
    }

    /// The library's process-wide settings, made once before its first connection opens it
    /// (`csqlite_config_without_memory_statistics`): nothing here reads SQLite's memory figures or sets its heap
    /// limits, which are all those statistics are for.
    package static let libraryConfigured: Bool = csqlite_config_without_memory_statistics() == SQLITE_OK

    private var closed = false

    deinit { self.close() }

    /// Finalizes its statements and closes. The last connection to close checkpoints the WAL into the database.
    func close() {
        guard !self.closed else { return }
        self.closed = true
        self.cache.removeAll()
        self.cacheByText.removeAll()
        sqlite3_close_v2(self.handle)
    }

    /// Runs `sql`, one statement or several; the arguments are taken by each statement's `?` in turn.
    package func execute(sql: String, arguments: StatementArguments = []) throws {
        var remaining = arguments.values[...]
        try sql.withCString { start in
            var cursor: UnsafePointer<CChar>? = start
            while let current = cursor, current.pointee != 0 {
                var pointer: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let status = sqlite3_prepare_v2(self.handle, current, -1, &pointer, &tail)
                guard status == SQLITE_OK else { throw self.error(status, sql: sql) }
                cursor = tail
                guard let pointer else { continue }  // only a comment or white space was left
                let statement = Statement(database: self, handle: pointer, sql: sql)
                let count = Int(sqlite3_bind_parameter_count(pointer))
                try statement.execute(arguments: StatementArguments(values: Array(remaining.prefix(count))))
                remaining = remaining.dropFirst(count)
            }
        }
    }

    /// A statement kept for this connection's life, prepared once.
    package func cachedStatement(sql: String) throws -> Statement {
        if let statement = self.cache[sql] { return statement }
        let statement = try self.makeStatement(sql: sql)
        self.cache[sql] = statement
        return statement
    }

    /// `cachedStatement(sql:)` for a statement made once (`StatementText`), found again by the text's identity: the
    /// cache by SQL hashes the whole text at every call, and a 1,500-character row upsert run for every entry of a
    /// rebuild hashed 4,000 instructions' worth each time.
    package func cachedStatement(_ text: StatementText) throws -> Statement {
        if let statement = self.cacheByText[ObjectIdentifier(text)] { return statement }
        let statement = try self.cachedStatement(sql: text.sql)
        self.cacheByText[ObjectIdentifier(text)] = statement
        return statement
    }

    /// A statement of one's own.
    package func makeStatement(sql: String) throws -> Statement {
        var pointer: OpaquePointer?
        let status = sqlite3_prepare_v3(self.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard status == SQLITE_OK, let pointer else { throw self.error(status, sql: sql) }
        return Statement(database: self, handle: pointer, sql: sql)
    }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(self.handle) }

    /// The rows this connection has inserted, updated or deleted since it opened (`sqlite3_total_changes`).
    package var totalChanges: Int { Int(sqlite3_total_changes(self.handle)) }

    func error(_ status: Int32, sql: String?) -> DatabaseError {
        DatabaseError(
            resultCode: .init(rawValue: status), message: String(cString: sqlite3_errmsg(self.handle)), sql: sql)
    }
}

extension StatementArguments {
    /// Values made already, in the statement's order.
    package init(values: [DatabaseValue]) {
        self = []
        self.values = values
    }
}

/// A prepared statement.
package final class Statement {
    // Unowned: the connection keeps its cached statements, and finalizes them all before it closes.
    private unowned let database: Database
    let handle: OpaquePointer
    let sql: String

    init(database: Database, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(self.handle) }

    /// Runs it to the end.
    package func execute(arguments: StatementArguments = []) throws {
        try self.rows(arguments: arguments) { _ in true }
    }

    /// Binds `arguments` and calls `body` with the statement at each row until it returns false.
    func rows(arguments: StatementArguments, _ body: (OpaquePointer) throws -> Bool) throws {
        sqlite3_reset(self.handle)
        defer { sqlite3_reset(self.handle) }
        // The last run's values stay bound until replaced: cleared only when these arguments do not replace them all
        // (clearing a row upsert's 35 parameters cost 1,650 instructions a row).
        if arguments.values.count < sqlite3_bind_parameter_count(self.handle) { sqlite3_clear_bindings(self.handle) }
        for (offset, value) in arguments.values.enumerated() { try self.bind(value, at: Int32(offset + 1)) }
        if !arguments.named.isEmpty {
            for index in 1...max(1, sqlite3_bind_parameter_count(self.handle)) {
                guard let name = sqlite3_bind_parameter_name(self.handle, index) else { continue }
                guard let value = arguments.named[String(String(cString: name).dropFirst())] else {
                    throw DatabaseError(
                        resultCode: .SQLITE_ERROR, message: "no argument for \(String(cString: name))", sql: self.sql)
                }
                try self.bind(value, at: index)
            }
        }
        while true {
            let status = sqlite3_step(self.handle)
            switch status {
            case SQLITE_ROW: guard try body(self.handle) else { return }
            case SQLITE_DONE: return
            default: throw self.database.error(status, sql: self.sql)
            }
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(self.handle, index)
        case .integer(let integer): status = sqlite3_bind_int64(self.handle, index, integer)
        case .real(let real): status = sqlite3_bind_double(self.handle, index, real)
        case .text(var text):
            // The text's own UTF-8, with its length (SQLite copies it): no NUL-terminated copy made first. An empty
            // one is bound from a literal, as a nil pointer would bind NULL.
            status = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return csqlite_bind_text(self.handle, index, "", 0)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    csqlite_bind_text(self.handle, index, $0, Int32(bytes.count))
                }
            }
        case .blob(let bytes):
            status = bytes.withUnsafeBytes {
                csqlite_bind_blob(self.handle, index, $0.baseAddress, Int32($0.count))
            }
        }
        guard status == SQLITE_OK else { throw self.database.error(status, sql: self.sql) }
    }

    /// The current row's columns.
    static func row(_ handle: OpaquePointer, names: inout [String]?) -> Row {
        let count = sqlite3_column_count(handle)
        let columns = names ?? (0..<count).map { String(cString: sqlite3_column_name(handle, $0)) }
        names = columns
        var values: [DatabaseValue] = []
        values.reserveCapacity(Int(count))
        for index in 0..<count { values.append(Self.value(handle, index)) }
        return Row(columns: columns, values: values)
    }

    static func value(_ handle: OpaquePointer, _ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

extension Row {
    package static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try Self.fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// The rows of `select` followed by ` IN (?, …)`, one `?` for each of `values`: its statement is prepared once
    /// for each count of values (a batch's size).
    package static func fetchAll(_ db: Database, select: String, in values: [String]) throws -> [Row] {
        try Self.fetchAll(
            db.cachedStatement(
                sql: select + " IN (" + Array(repeating: "?", count: values.count).joined(separator: ",") + ")"),
            arguments: StatementArguments(values))
    }

    package static func fetchAll(_ statement: Statement, arguments: StatementArguments = []) throws -> [Row] {
        var rows: [Row] = []
        var names: [String]?
        try statement.rows(arguments: arguments) { handle in
            rows.append(Statement.row(handle, names: &names))
            return true
        }
        return rows
    }

    package static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Row? {
        try Self.fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    package static func fetchOne(_ statement: Statement, arguments: StatementArguments = []) throws -> Row? {
        var row: Row?
        var names: [String]?
        try statement.rows(arguments: arguments) { handle in
            row = Statement.row(handle, names: &names)
            return false
        }
        return row
    }
}

extension DatabaseValueConvertible {
    /// The first column of the first row; nil when there is no row or it holds NULL.
    package static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        try Self.fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    package static func fetchOne(_ statement: Statement, arguments: StatementArguments = []) throws -> Self? {
        var value: Self?
        try statement.rows(arguments: arguments) { handle in
            value = Self.fromDatabaseValue(Statement.value(handle, 0))
            return false
        }
        return value
    }

    /// The first column of every row (rows holding NULL left out).
    package static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        var values: [Self] = []
        try db.makeStatement(sql: sql).rows(arguments: arguments) { handle in
            if let value = Self.fromDatabaseValue(Statement.value(handle, 0)) { values.append(value) }
            return true
        }
        return values
    }
}

/// How a connection waits for another's lock, up to its busy timeout (the context: the timeout in microseconds).
///
/// SQLite's own handler (`sqlite3_busy_timeout`) sleeps 1, 2, 5, 10, 15, 20 and 25 ms between tries, then more: a
/// lock held 3 ms (the last pages of a checkpoint beside the writer, `Checkpoints`) cost the writer 8, and a
/// 50,000-entry rebuild's writer spent 97 ms in `BEGIN` so. This one sleeps 100 µs, doubling up to 10 ms.
private let busyHandler: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, tries in
    let timeout = Int(bitPattern: context)
    let waited = BusyWait.waited(before: Int(tries))
    guard waited < timeout else { return 0 }
    usleep(UInt32(min(BusyWait.pause(Int(tries)), timeout - waited)))
    return 1
}

/// The pauses of `busyHandler`, in microseconds.
package enum BusyWait {
    package static let first = 100
    package static let longest = 10_000

    /// The pause after the `tries`-th failed try (0 first).
    package static func pause(_ tries: Int) -> Int {
        tries >= 7 ? Self.longest : min(Self.first << tries, Self.longest)
    }

    /// The pauses before the `tries`-th try, added up.
    package static func waited(before tries: Int) -> Int {
        // 100 · (2⁷ − 1) for the seven that double, then 10 ms each.
        let doubling = min(tries, 7)
        return Self.first * ((1 << doubling) - 1) + max(0, tries - 7) * Self.longest
    }
}
