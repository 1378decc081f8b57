import FoundationEssentials
import WeathertagCore
import WeathertagSQLite

/// History's hours and spends in the state database (tables `history_hours` and `history_spend`), through the
/// pool's asynchronous reads and writes: the `HistoryService` actor never blocks the cooperative pool on SQLite.
package struct SQLiteHistoryStore: HistoryStore {
    let database: StateDatabase

    package func spans(source: String, cell: String) async -> [ClosedRange<Int>] {
        do {
            // Plain values out of the read (rows are not Sendable, and would pick the blocking overload).
            return try await self.database.pool.read { db -> [ClosedRange<Int>] in
                try Row.fetchAll(
                    db, sql: "SELECT first_hour, last_hour FROM history_hours WHERE source = ? AND place = ?",
                    arguments: [source, cell]
                ).compactMap { row -> ClosedRange<Int>? in
                    let first: Int = row[0]
                    let last: Int = row[1]
                    return first <= last ? first...last : nil
                }
            }
        } catch {
            self.database.logger.warning("cannot read which hours are kept", metadata: ["error": "\(error)"])
            return []
        }
    }

    package func hours(source: String, cell: String, hour: Int) async -> [UInt8]? {
        do {
            return try await self.database.pool.read { db in
                try Data.fetchOne(
                    db,
                    sql: """
                        SELECT body FROM history_hours
                        WHERE source = ?1 AND place = ?2 AND first_hour <= ?3 AND last_hour >= ?3
                        ORDER BY last_hour DESC LIMIT 1
                        """,
                    arguments: [source, cell, hour]
                ).map { [UInt8]($0) }
            }
        } catch {
            self.database.logger.warning("cannot read kept hours", metadata: ["error": "\(error)"])
            return nil
        }
    }

    package func keep(hours body: [UInt8], source: String, cell: String, span: ClosedRange<Int>) async {
        await self.database.write("keep a source's hours") { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO history_hours (source, place, first_hour, last_hour, body)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [source, cell, span.lowerBound, span.upperBound, Data(body)])
        }
    }

    package func spends(source: String, since date: Date) async -> [CallBudget.Spend] {
        do {
            return try await self.database.pool.read { db -> [CallBudget.Spend] in
                try Row.fetchAll(
                    db, sql: "SELECT at, weight FROM history_spend WHERE source = ? AND at >= ? ORDER BY at",
                    arguments: [source, date.timeIntervalSince1970]
                ).map { CallBudget.Spend(at: Date(timeIntervalSince1970: $0[0]), weight: $0[1]) }
            }
        } catch {
            self.database.logger.warning("cannot read history's spends", metadata: ["error": "\(error)"])
            return []
        }
    }

    package func record(_ spend: CallBudget.Spend, source: String) async {
        await self.database.write("record a history request") { db in
            try db.execute(
                sql: "DELETE FROM history_spend WHERE at < ?",
                arguments: [spend.at.timeIntervalSince1970 - 30 * 86_400])
            try db.execute(
                sql: "INSERT INTO history_spend (source, at, weight) VALUES (?, ?, ?)",
                arguments: [source, spend.at.timeIntervalSince1970, spend.weight])
        }
    }
}
