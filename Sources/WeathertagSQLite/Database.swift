import CSQLite
import FoundationEssentials

// weathertag's SQLite layer: the part of GRDB's API the stores use, under GRDB's names, over the system's SQLite.
//
// Written here rather than using GRDB: GRDB imports Foundation, and on Linux Foundation links
// FoundationInternationalization and ICU: 34 MB of data and 8 MB of code, most of the binary and of its resident
// memory, for a daemon that needs neither (docs/PERFORMANCE.md, issue 21). What the stores use is small: a writer
// and readers in WAL mode, transactions, cached statements, rows, migrations (kept in GRDB's own
// `grdb_migrations` table, so databases made by earlier versions open as they are).

/// An SQLite error: the primary result code (`SQLITE_BUSY`), SQLite's message, and the statement.
package struct DatabaseError: Error, Sendable, CustomStringConvertible {
    package struct ResultCode: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: Int32

        package init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }

        package static let SQLITE_ERROR = ResultCode(rawValue: 1)
        package static let SQLITE_BUSY = ResultCode(rawValue: 5)
        package static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
        package static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
        package static let SQLITE_NOTADB = ResultCode(rawValue: 26)

        package var description: String { String(cString: sqlite3_errstr(self.rawValue)) }
    }

    package var resultCode: ResultCode
    package var message: String?
    package var sql: String?

    package init(resultCode: ResultCode, message: String? = nil, sql: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
    }

    package var description: String {
        "SQLite error \(self.resultCode.rawValue): \(self.message ?? self.resultCode.description)"
            + (self.sql.map { " - while executing `\($0)`" } ?? "")
    }
}

/// A value as SQLite stores it.
package enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type that is stored as one SQLite value.
package protocol DatabaseValueConvertible: Sendable {
    var databaseValue: DatabaseValue { get }
    /// Nil when the value cannot be one of these (NULL, for a type that is not optional).
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension Int64: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(self) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let integer): return integer
        case .real(let real): return Int64(exactly: real.rounded(.towardZero))
        case .text(let text): return Int64(text)
        case .null, .blob: return nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(value).map { Int($0) }
    }
}

extension Int32: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(value).flatMap { Int32(exactly: $0) }
    }
}

extension Bool: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        Int64.fromDatabaseValue(value).map { $0 != 0 }
    }
}

extension Double: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .real(self) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .integer(let integer): return Double(integer)
        case .real(let real): return real
        case .text(let text): return Double(text)
        case .null, .blob: return nil
        }
    }
}

extension String: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .text(self) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .null: return nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .blob(Array(self)) }
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        switch value {
        case .blob(let bytes): return Data(bytes)
        case .text(let text): return Data(text.utf8)
        case .null, .integer, .real: return nil
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    /// NULL is `.some(nil)`: an optional column always reads.
    package static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        value == .null ? .some(nil) : Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}

/// SQL made once, for `Database.cachedStatement(_:)`: a `static let` whose identity finds its prepared statement.
package final class StatementText: Sendable {
    package let sql: String

    package init(_ sql: String) { self.sql = sql }
}

/// The values a statement's `?` take, in order.
package struct StatementArguments: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    package var values: [DatabaseValue]
    /// By name, for `:name` parameters.
    package var named: [String: DatabaseValue] = [:]

    package init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.values = []
        for (name, value) in elements { self.named[name] = value?.databaseValue ?? .null }
    }

    package init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.values = elements.map { $0?.databaseValue ?? .null }
    }

    // Closures, not `map(\.databaseValue)`: a key path in a generic function is made anew at each call
    // (`swift_getKeyPath`), a sixth of a lone entry's look into the memory before its stamp (`perf record`).
    package init(_ values: some Sequence<any DatabaseValueConvertible>) {
        self.values = values.map { $0.databaseValue }
    }

    package init<S: Sequence>(_ values: S) where S.Element: DatabaseValueConvertible {
        self.values = values.map { $0.databaseValue }
    }

    package var isEmpty: Bool { self.values.isEmpty }
}

/// One row of a result, its columns by name or position.
package struct Row: Sendable {
    package let columns: [String]
    package let values: [DatabaseValue]

    /// The column's value; a NULL or unreadable one in a type that is not optional is a programming error.
    package subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value {
        guard let index = self.columns.firstIndex(of: column) else {
            preconditionFailure("no column \(column) in \(self.columns)")
        }
        return self[index]
    }

    package subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        guard let value = Value.fromDatabaseValue(self.values[index]) else {
            preconditionFailure("column \(self.columns[index]) holds \(self.values[index]), not a \(Value.self)")
        }
        return value
    }
}
