import FoundationEssentials

/// One recorded position: where a track file (GPX, an OwnTracks Recorder `.rec`) or a tracking service says the
/// author was at a moment.
package struct TrackPoint: Sendable, Equatable {
    /// Milliseconds since 1970 (UTC): what the index is keyed by.
    package var milliseconds: Int64
    package var latitude: Double
    package var longitude: Double
    /// Horizontal accuracy in metres, when the recorder gave one.
    package var accuracyMeters: Double?

    package init(milliseconds: Int64, latitude: Double, longitude: Double, accuracyMeters: Double? = nil) {
        self.milliseconds = milliseconds
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
    }

    package init(time: Date, latitude: Double, longitude: Double, accuracyMeters: Double? = nil) {
        self.init(
            milliseconds: Int64((time.timeIntervalSince1970 * 1000).rounded()), latitude: latitude,
            longitude: longitude, accuracyMeters: accuracyMeters)
    }

    package var time: Date { Date(timeIntervalSince1970: Double(self.milliseconds) / 1000) }

    package var isValid: Bool {
        self.latitude.isFinite && self.longitude.isFinite && abs(self.latitude) <= 90 && abs(self.longitude) <= 180
            && (self.accuracyMeters.map { $0.isFinite && $0 >= 0 } ?? true)
    }

    /// As a provider's answer.
    package func position(source: String) -> Position {
        Position(
            latitude: self.latitude, longitude: self.longitude, accuracyMeters: self.accuracyMeters, source: source,
            takenAt: self.time)
    }
}

/// A line of a track file that could not be used, and why; the rest of the file still is.
package struct TrackProblem: Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var message: String

    package init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    package var description: String { "line \(self.line): \(self.message)" }
}

/// Where a track says the author was, from the points around a moment. Pure: the provider looks the points up in
/// its index and asks here.
package enum TrackFix {
    /// The position at `time` between the last point at or before it and the first at or after it: a point at
    /// the very moment as it is; else interpolated along the straight line between the two when they are at most
    /// `maximumGap` apart (a longer gap means the recorder was off, and where the author was is not known); else
    /// nil. The accuracy is the worse of the two.
    package static func at(
        _ time: Date, before: TrackPoint?, after: TrackPoint?, maximumGap: Duration
    ) -> TrackPoint? {
        let moment = Int64((time.timeIntervalSince1970 * 1000).rounded())
        if let before, before.milliseconds == moment { return before }
        if let after, after.milliseconds == moment { return after }
        guard let before, let after, before.milliseconds < moment, moment < after.milliseconds else { return nil }
        let gap = after.milliseconds - before.milliseconds
        guard Double(gap) / 1000 <= maximumGap.seconds else { return nil }
        let fraction = Double(moment - before.milliseconds) / Double(gap)
        // Across the antimeridian the short way round: 179.9 → -179.9 is 0.2°, not 359.8°.
        var deltaLongitude = after.longitude - before.longitude
        if deltaLongitude > 180 { deltaLongitude -= 360 } else if deltaLongitude < -180 { deltaLongitude += 360 }
        var longitude = before.longitude + deltaLongitude * fraction
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        let accuracy: Double? =
            switch (before.accuracyMeters, after.accuracyMeters) {
            case (let a?, let b?): max(a, b)
            case (let a?, nil): a
            case (nil, let b?): b
            case (nil, nil): nil
            }
        return TrackPoint(
            milliseconds: moment,
            latitude: before.latitude + (after.latitude - before.latitude) * fraction,
            longitude: longitude,
            accuracyMeters: accuracy
        )
    }

    /// "Where now": the latest point, when it is no older than `maximumAge`.
    package static func now(_ latest: TrackPoint?, at now: Date, maximumAge: Duration) -> TrackPoint? {
        guard let latest else { return nil }
        let age = now.timeIntervalSince(latest.time)
        return age <= maximumAge.seconds ? latest : nil
    }
}

/// RFC 3339 / ISO 8601 times as recorders write them (`2026-11-23T09:41:07Z`, `2026-11-23T09:41:07.250Z`,
/// `2026-11-23T18:41:07+09:00`), read straight from the bytes: a year of points at 10 s is 3.2 million of them.
package enum TrackTime {
    /// Milliseconds since 1970, or nil when the bytes are not such a time.
    package static func milliseconds(_ bytes: some Collection<UInt8>) -> Int64? {
        var iterator = bytes.makeIterator()
        var peeked: UInt8? = iterator.next()
        func number(_ digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let byte = peeked, byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                peeked = iterator.next()
            }
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard let byte = peeked, characters.contains(byte) else { return false }
            peeked = iterator.next()
            return true
        }
        // Leading blanks (a pretty-printed `<time>`) are allowed.
        while let byte = peeked, byte == 32 || byte == 9 || byte == 10 || byte == 13 { peeked = iterator.next() }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
            expect(84, 116, 32), let hour = number(2), expect(58), let minute = number(2), expect(58),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else {
            return nil
        }
        var millisecond = 0
        if expect(46) {
            var scale = 100
            var digits = 0
            while let byte = peeked, byte >= 48, byte <= 57 {
                millisecond += Int(byte - 48) * scale
                scale /= 10
                digits += 1
                peeked = iterator.next()
            }
            guard digits > 0 else { return nil }
        }
        var offset = 0
        if expect(90, 122) {
        } else if let sign = peeked, sign == 43 || sign == 45 {
            peeked = iterator.next()
            guard let hours = number(2) else { return nil }
            _ = expect(58)
            guard let minutes = number(2) else { return nil }
            offset = (hours * 60 + minutes) * 60 * (sign == 45 ? -1 : 1)
        } else {
            return nil
        }
        while let byte = peeked, byte == 32 || byte == 9 || byte == 10 || byte == 13 { peeked = iterator.next() }
        guard peeked == nil else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
        return seconds * 1000 + Int64(millisecond)
    }

}
