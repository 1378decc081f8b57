import FoundationEssentials
import WeathertagCore
import WeathertagSQLite

/// History's answers and calls in the state database (tables `history` and `meta`), through the pool's asynchronous
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

    public func spans(cell: String) async -> [ClosedRange<Int>] {
        do {
            // Plain values out of the read (rows are not Sendable, and would pick the blocking overload).
            return try await self.database.read { db -> [ClosedRange<Int>] in
                try Row.fetchAll(
                    db, sql: "SELECT first_hour, last_hour FROM history_period WHERE place = ?", arguments: [cell]
                ).compactMap { row -> ClosedRange<Int>? in
                    let first: Int = row[0]
                    let last: Int = row[1]
                    return first <= last ? first...last : nil
                }
            }
        } catch {
            self.logger.warning("cannot read which Open-Meteo hours are kept", metadata: ["error": "\(error)"])
            return []
        }
    }

    public func period(cell: String, hour: Int) async -> [UInt8]? {
        do {
            return try await self.database.read { db in
                try Data.fetchOne(
                    db,
                    sql: """
                        SELECT body FROM history_period WHERE place = ? AND first_hour <= ?2 AND last_hour >= ?2
                        ORDER BY last_hour DESC LIMIT 1
                        """,
                    arguments: [cell, hour]
                ).map { [UInt8]($0) }
            }
        } catch {
            self.logger.warning("cannot read kept Open-Meteo hours", metadata: ["error": "\(error)"])
            return nil
        }
    }

    public func keep(period body: [UInt8], cell: String, span: ClosedRange<Int>) async {
        await self.write("keep Open-Meteo's hours") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO history_period (place, first_hour, last_hour, body) VALUES (?, ?, ?, ?)",
                arguments: [cell, span.lowerBound, span.upperBound, Data(body)])
        }
    }

    public func spends(since date: Date) async -> [OpenMeteoBudget.Spend] {
        do {
            return try await self.database.read { db -> [OpenMeteoBudget.Spend] in
                try Row.fetchAll(
                    db, sql: "SELECT at, weight FROM open_meteo_spend WHERE at >= ? ORDER BY at",
                    arguments: [date.timeIntervalSince1970]
                ).map { OpenMeteoBudget.Spend(at: Date(timeIntervalSince1970: $0[0]), weight: $0[1]) }
            }
        } catch {
            self.logger.warning("cannot read Open-Meteo's spends", metadata: ["error": "\(error)"])
            return []
        }
    }

    public func record(_ spend: OpenMeteoBudget.Spend) async {
        await self.write("record an Open-Meteo request") { db in
            try db.execute(
                sql: "DELETE FROM open_meteo_spend WHERE at < ?",
                arguments: [spend.at.timeIntervalSince1970 - 30 * 86_400])
            try db.execute(
                sql: "INSERT INTO open_meteo_spend (at, weight) VALUES (?, ?)",
                arguments: [spend.at.timeIntervalSince1970, spend.weight])
        }
    }
}
