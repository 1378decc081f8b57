import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The frame of a map of where you wrote: Web Mercator (the projection of the maps people know), fitted to the
/// places it shows, `width` × `height` pixels. Pure.
///
/// Fitted to the extent of the places (across the date line when that is the shorter way round), padded, never
/// closer than `minimumSpan` degrees (a diary of one city shows the city) and never wider than the world.
package struct MapView: Sendable, Equatable {
    package var width: Double
    package var height: Double
    /// Pixels per unit of Mercator (the world is one unit wide).
    package var scale: Double
    /// The Mercator coordinates of the view's top left corner.
    package var originX: Double
    package var originY: Double

    /// The least span a map shows, in degrees of longitude: about 20 km, a town and its surroundings.
    package static let minimumSpan = 0.2
    /// The latitudes Mercator is drawn between.
    static let latitudeLimit = 82.0
    /// Pixels kept clear around the places (a dot's radius and a little).
    static let margin = 28.0

    /// A place's Mercator coordinates: x from 0 (180° W) to 1 (180° E; beyond for longitudes past 180), y from 0
    /// (far north) to 1 (far south).
    package static func mercator(_ point: GeoPoint) -> (x: Double, y: Double) {
        let latitude = min(max(point.latitude, -Self.latitudeLimit), Self.latitudeLimit) * .pi / 180
        let x = (point.longitude + 180) / 360
        let stretched: Double = log(tan(Double.pi / 4 + latitude / 2))
        let y = (1 - stretched / Double.pi) / 2
        return (x, y)
    }

    /// The latitude of Mercator's `y`.
    static func latitude(_ y: Double) -> Double {
        atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
    }

    /// Where `point` is drawn, in pixels from the top left corner.
    package func pixel(_ point: GeoPoint) -> (x: Double, y: Double) {
        let (x, y) = Self.mercator(point)
        return ((x - self.originX) * self.scale, (y - self.originY) * self.scale)
    }

    /// What the view covers (`east` beyond 180 across the date line).
    package var box: GeoBox {
        let span = self.width / self.scale
        return GeoBox(
            west: self.originX * 360 - 180, east: (self.originX + span) * 360 - 180,
            south: max(Self.latitude(self.originY + self.height / self.scale), -Self.latitudeLimit),
            north: min(Self.latitude(self.originY), Self.latitudeLimit))
    }

    /// Degrees of longitude per pixel.
    package var degreesPerPixel: Double { 360 / self.scale }

    /// The coastlines' resolution that fits: crude (about 25 km) where a pixel is more than 8 km, low (about 5 km)
    /// down to about 1 km a pixel, intermediate (about 1 km) closer.
    package var lineScale: WorldMapData.Scale {
        switch self.degreesPerPixel {
        case 0.075...: return .crude
        case 0.01...: return .low
        default: return .intermediate
        }
    }

    /// The view of `points`; the world when there are none.
    package static func fitted(_ points: [GeoPoint], width: Double, height: Double) -> MapView {
        let longitudes = Self.unwrapped(points.map(\.longitude))
        let mercator = zip(points, longitudes).map { point, longitude in
            Self.mercator(GeoPoint(latitude: point.latitude, longitude: longitude))
        }
        guard let minX = mercator.map(\.x).min(), let maxX = mercator.map(\.x).max(),
            let minY = mercator.map(\.y).min(), let maxY = mercator.map(\.y).max()
        else {
            // The world, from the Arctic to the Southern Ocean.
            let scale = width
            let top = Self.mercator(GeoPoint(latitude: 78, longitude: 0)).y
            return MapView(width: width, height: height, scale: scale, originX: 0, originY: top)
        }
        let least = Self.minimumSpan / 360
        let spanX = max(maxX - minX, least) * 1.2
        let spanY = max(maxY - minY, least) * 1.2
        let fit = min((width - 2 * Self.margin) / spanX, (height - 2 * Self.margin) / spanY)
        // Never more than the world across.
        let scale = max(fit, width)
        let centreX = (minX + maxX) / 2
        var originY = (minY + maxY) / 2 - height / 2 / scale
        // Not above the Arctic nor below the Southern Ocean when the view is as tall as the world.
        let top = Self.mercator(GeoPoint(latitude: Self.latitudeLimit, longitude: 0)).y
        let bottom = Self.mercator(GeoPoint(latitude: -Self.latitudeLimit, longitude: 0)).y
        originY = min(max(originY, top), max(top, bottom - height / scale))
        let originX = centreX - width / 2 / scale
        return MapView(width: width, height: height, scale: scale, originX: originX, originY: originY)
    }

    /// Longitudes moved by 360° where that keeps them together: a diary in Fiji and Samoa spans the date line, not
    /// the whole world. The widest gap between neighbours is where the map is cut.
    static func unwrapped(_ longitudes: [Double]) -> [Double] {
        let sorted = longitudes.sorted()
        guard sorted.count > 1, let first = sorted.first, let last = sorted.last else { return longitudes }
        var (widest, cut) = (first + 360 - last, first)
        for (west, east) in zip(sorted, sorted.dropFirst()) where east - west > widest {
            (widest, cut) = (east - west, east)
        }
        return longitudes.map { $0 < cut ? $0 + 360 : $0 }
    }
}
