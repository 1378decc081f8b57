import FoundationEssentials
import Logging
import NIOPosix
import WeathertagCore

/// The cache folder: `weather.json` (the weather cache) and `icons/`. File work runs on the thread pool.
package struct WeatherCacheStore: Sendable {
    package let directory: String
    private let threadPool: NIOThreadPool

    package init(directory: String, threadPool: NIOThreadPool) {
        self.directory = directory
        self.threadPool = threadPool
    }

    package var cacheFile: String { self.directory + "/weather.json" }

    /// The reverse geocoder's names by cell, kept 30 days.
    package var placesFile: String { self.directory + "/places.json" }

    package func iconPath(_ code: String) -> String { "\(self.directory)/icons/\(code)@2x.png" }

    /// The saved cache, or an empty one (a damaged file is reported and replaced at the next save).
    func load(logger: Logger) async -> WeatherCache {
        let file = self.cacheFile
        let contents = try? await self.threadPool.runIfActive { FileManager.default.contents(atPath: file) }
        guard let data = contents ?? nil else { return WeatherCache() }
        do {
            return try JSONDecoder().decode(WeatherCache.self, from: data)
        } catch {
            logger.warning("ignoring a damaged weather cache", metadata: ["file": "\(file)"])
            return WeatherCache()
        }
    }

    func save(_ cache: WeatherCache, logger: Logger) async {
        do {
            let data = try JSONEncoder().encode(cache)
            try await self.write(Array(data), to: self.cacheFile)
        } catch {
            logger.warning("could not save the weather cache", metadata: ["error": "\(error)"])
        }
    }

    func loadPlaces() async -> PlaceNameCache {
        let file = self.placesFile
        let contents = try? await self.threadPool.runIfActive { FileManager.default.contents(atPath: file) }
        guard let data = contents ?? nil else { return PlaceNameCache() }
        return (try? JSONDecoder().decode(PlaceNameCache.self, from: data)) ?? PlaceNameCache()
    }

    func savePlaces(_ places: PlaceNameCache, logger: Logger) async {
        do {
            try await self.write(Array(try JSONEncoder().encode(places)), to: self.placesFile)
        } catch {
            logger.warning("could not save the place names", metadata: ["error": "\(error)"])
        }
    }

    func exists(_ path: String) async -> Bool {
        (try? await self.threadPool.runIfActive { FileIO.exists(path) }) ?? false
    }

    func write(_ bytes: [UInt8], to path: String) async throws {
        try await self.threadPool.runIfActive {
            try FileIO.makeDirectories(FileIO.split(path).directory)
            try FileIO.writeAtomically(bytes, to: path)
        }
    }
}
