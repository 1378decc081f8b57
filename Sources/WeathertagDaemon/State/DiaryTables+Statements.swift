import WeathertagCore
import WeathertagSQLite

/// The diary index's longer statements, each made once (`DiaryTables`): built in place, the row's 1,500 characters
/// were written out and hashed again for the statement cache at each entry.
extension DiaryTables {
    /// An entry's new lane. A block found at a start-up's listing in an entry weathertag stamped (or restored)
    /// keeps that reason, and an entry that stays in its lane keeps its `lane_since`.
    static let laneUpdate = {
        let (found, stamped) = (LaneReason.found.rawValue, Lane.stamped.rawValue)
        return """
            lane_since = CASE WHEN lane = excluded.lane AND (reason = excluded.reason OR excluded.reason = '\(found)')
                THEN lane_since ELSE excluded.lane_since END,
            reason = CASE WHEN lane = '\(stamped)' AND excluded.lane = '\(stamped)' AND excluded.reason = '\(found)'
                THEN reason ELSE excluded.reason END,
            detail = CASE WHEN lane = '\(stamped)' AND excluded.lane = '\(stamped)' AND excluded.reason = '\(found)'
                THEN detail ELSE excluded.detail END,
            lane = excluded.lane
            """
    }()

    /// A read entry's row where its path has none, written whole (`index`); its key and text are the caller's.
    static let rowInsert = StatementText(Self.rowValues)

    private static let rowValues = """
        INSERT INTO diary (id, path, version, title, excerpt, time, day_only, time_source, lane,
            reason, detail, lane_since, condition, description, icon, temperature, units, place,
            region, country, observed_at, kind, aqi, local_day, mood, utc_offset, latitude, longitude,
            location_name, photos)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// `rowInsert`, where the path has a row under the same key: it takes the new values, and its lane is kept as
    /// `laneUpdate` says.
    static let rowUpsert = StatementText(
        Self.rowValues + """

            ON CONFLICT (path) DO UPDATE SET
            version = excluded.version, title = excluded.title, excerpt = excluded.excerpt,
            time = excluded.time, day_only = excluded.day_only, time_source = excluded.time_source,
            \(Self.laneUpdate),
            condition = excluded.condition, description = excluded.description,
            icon = excluded.icon, temperature = excluded.temperature, units = excluded.units,
            place = excluded.place, region = excluded.region, country = excluded.country,
            observed_at = excluded.observed_at, kind = excluded.kind, aqi = excluded.aqi,
            local_day = excluded.local_day, mood = excluded.mood, utc_offset = excluded.utc_offset,
            latitude = excluded.latitude, longitude = excluded.longitude,
            location_name = excluded.location_name, photos = excluded.photos
            """)

    /// A row's new lane, by path (`placeholder`), as `laneUpdate` takes it.
    static let laneReplacement = """
        UPDATE diary SET \(Self.laneUpdate.replacing("excluded.", with: ":new_"))
        WHERE path = :path
        """
}
