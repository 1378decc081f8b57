import FoundationEssentials

/// What a tracking service's history gives for a moment: the points around it, as a track's would.
package enum ServiceHistory {
    /// The fix at `time` from `points` (any order): exact, or interpolated within `maximumGap`.
    package static func fix(at time: Date, in points: [TrackPoint], maximumGap: Duration) -> TrackPoint? {
        let moment = Int64((time.timeIntervalSince1970 * 1000).rounded())
        let before = points.filter { $0.milliseconds <= moment }.max { $0.milliseconds < $1.milliseconds }
        let after = points.filter { $0.milliseconds >= moment }.min { $0.milliseconds < $1.milliseconds }
        return TrackFix.at(time, before: before, after: after, maximumGap: maximumGap)
    }

    /// The window asked for around `time`.
    package static func window(around time: Date, maximumGap: Duration) -> (from: Date, to: Date) {
        (time.addingTimeInterval(-maximumGap.seconds), time.addingTimeInterval(maximumGap.seconds))
    }
}
