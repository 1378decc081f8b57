import FoundationEssentials

/// The map's lines as SVG path data, clipped to the view and thinned to what a pixel shows. Pure.
///
/// Written here rather than taken from a library: the package mirror has no geometry library that builds without
/// Foundation, and what is needed is two textbook clippers (Sutherland–Hodgman for the shorelines, which are
/// filled polygons; Liang–Barsky for the borders, which are lines) and a thinning by distance.
struct MapPaths {
    /// The view's size and the band kept around it (a shoreline cut at the edge is not seen to close).
    var width: Double
    var height: Double
    var band = 4.0
    /// Points closer than this to the last one kept add nothing a screen shows.
    var tolerance = 0.6

    typealias Point = (x: Double, y: Double)

    /// A filled polygon's path data (`M…Z`), clipped to the view; empty when none of it is in view.
    func polygon(_ points: [Point]) -> String {
        var ring = points
        let (low, highX, highY) = (-self.band, self.width + self.band, self.height + self.band)
        ring = Self.clip(ring, inside: { $0.x >= low }, cross: { a, b in Self.atX(a, b, low) })
        ring = Self.clip(ring, inside: { $0.x <= highX }, cross: { a, b in Self.atX(a, b, highX) })
        ring = Self.clip(ring, inside: { $0.y >= low }, cross: { a, b in Self.atY(a, b, low) })
        ring = Self.clip(ring, inside: { $0.y <= highY }, cross: { a, b in Self.atY(a, b, highY) })
        let thinned = self.thinned(ring)
        guard thinned.count >= 3 else { return "" }
        return Self.path(thinned) + "Z"
    }

    /// A line's path data (`M…` for each run of it in view); empty when none of it is.
    func line(_ points: [Point]) -> String {
        var result = ""
        var run: [Point] = []
        for (a, b) in zip(points, points.dropFirst()) {
            guard let (start, end) = self.clipped(a, b) else {
                if run.count >= 2 { result += Self.path(self.thinned(run)) }
                run = []
                continue
            }
            if run.isEmpty { run.append(start) }
            run.append(end)
            // Leaving the view: the run ends here.
            if end != b {
                if run.count >= 2 { result += Self.path(self.thinned(run)) }
                run = []
            }
        }
        if run.count >= 2 { result += Self.path(self.thinned(run)) }
        return result
    }

    /// Sutherland–Hodgman against one edge of the view.
    private static func clip(
        _ ring: [Point], inside: (Point) -> Bool, cross: (Point, Point) -> Point
    ) -> [Point] {
        guard let last = ring.last else { return [] }
        var result: [Point] = []
        result.reserveCapacity(ring.count)
        var previous = last
        for point in ring {
            switch (inside(previous), inside(point)) {
            case (true, true): result.append(point)
            case (true, false): result.append(cross(previous, point))
            case (false, true):
                result.append(cross(previous, point))
                result.append(point)
            case (false, false): break
            }
            previous = point
        }
        return result
    }

    private static func atX(_ a: Point, _ b: Point, _ x: Double) -> Point {
        let t = (x - a.x) / (b.x - a.x)
        return (x, a.y + t * (b.y - a.y))
    }

    private static func atY(_ a: Point, _ b: Point, _ y: Double) -> Point {
        let t = (y - a.y) / (b.y - a.y)
        return (a.x + t * (b.x - a.x), y)
    }

    /// Liang–Barsky: the part of the segment in view, or nil.
    private func clipped(_ a: Point, _ b: Point) -> (Point, Point)? {
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        var (enter, leave) = (0.0, 1.0)
        let low = -self.band
        let tests = [
            (-dx, a.x - low), (dx, self.width + self.band - a.x), (-dy, a.y - low),
            (dy, self.height + self.band - a.y),
        ]
        for (p, q) in tests {
            if p == 0 {
                if q < 0 { return nil }
                continue
            }
            let t = q / p
            if p < 0 { enter = max(enter, t) } else { leave = min(leave, t) }
            if enter > leave { return nil }
        }
        return ((a.x + enter * dx, a.y + enter * dy), (a.x + leave * dx, a.y + leave * dy))
    }

    private func thinned(_ points: [Point]) -> [Point] {
        guard var kept = points.first.map({ [$0] }) else { return [] }
        for point in points.dropFirst() {
            let last = kept[kept.count - 1]
            if abs(point.x - last.x) + abs(point.y - last.y) >= self.tolerance { kept.append(point) }
        }
        return kept
    }

    /// `M x y L x y x y…` with a tenth of a pixel.
    static func path(_ points: [Point]) -> String {
        var path = ""
        path.reserveCapacity(points.count * 10)
        for (index, point) in points.enumerated() {
            path += index == 0 ? "M" : index == 1 ? "L" : " "
            path += Self.number(point.x) + " " + Self.number(point.y)
        }
        return path
    }

    /// A tenth of a pixel, without a trailing `.0`.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let whole = abs(tenths) / 10
        let fraction = abs(tenths) % 10
        return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }
}
