import Foundation
import GRDB

/// History's answers and calls in the state database (tables `history` and `meta`), through GRDB's asynchronous
/// reads and writes: the `HistoryService` actor never blocks the cooperative pool on SQLite.
extension StateDatabase: HistoryStore {
    public func answer(cell: String, hour: Int) async -> [UInt8]? {
        do {
            return try await self.database.read { db in
                try Data.fetchOne(
                    db, sql: "SELECT body FROM history WHERE place = ? AND hour = ?", arguments: [cell, hour]
                ).map { [UInt8]($0) }
            }
        } catch {
            self.logger.warning("cannot read a kept history answer", metadata: ["error": "\(error)"])
            return nil
        }
    }

    public func keep(_ body: [UInt8], cell: String, hour: Int) async {
        await self.write("keep a history answer") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO history (place, hour, body) VALUES (?, ?, ?)",
                arguments: [cell, hour, Data(body)])
        }
    }

    public func calls(day: String) async -> Int {
        let value: String? = try? await self.database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: ["history_calls:" + day])
        }
        return value.flatMap { Int($0) } ?? 0
    }

    public func countCall(day: String) async {
        await self.write("count a history call") { db in
            try db.execute(
                sql: "DELETE FROM meta WHERE key LIKE 'history_calls:%' AND key != ?",
                arguments: ["history_calls:" + day])
            try db.execute(
                sql: """
                    INSERT INTO meta (key, value) VALUES (?1, '1')
                    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                    """,
                arguments: ["history_calls:" + day])
        }
    }
}
