import FoundationEssentials
import Glibc
import Logging
import Synchronization
import WeathertagCore

/// Where the author was, from the tracks they already record: GPX files (gpsd's `gpxlogger`, GPSLogger, OsmAnd,
/// gpsbabel) and OwnTracks Recorder `.rec` files in a folder (a Syncthing folder, say), or those a glob names.
///
/// The points are indexed by time in `tracks.sqlite` (`TrackIndex`) once, on a thread of the provider's own, and
/// the folder is then followed with inotify: a new file is read, a growing one (`gpxlogger` adds a point a second)
/// is read on from where the last read stopped, a rewritten one is read again, and a removed one's points go.
///
/// - "Where now" is the latest point, when it is at most `max_fix_age_seconds` old.
/// - "Where at T" (a back-dated entry) is interpolated between the points around T when they are at most
///   `max_gap_seconds` apart (`TrackFix`); a longer gap means the recorder was off, and there is no answer.
package final class TrackLocationProvider: LocationProvider {
    package let type = "track"
    package let timeout: Duration
    /// A question about the past waits for the first indexing, however long a year of points takes.
    package var pastTimeout: Duration { max(self.timeout, .seconds(300)) }
    package let files: TrackFiles
    package let maximumGap: Duration
    package let maximumFixAge: Duration
    private let stateDirectory: String
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// Called on the indexing thread after each part of a file is written to the index: where tests stop it.
    private let afterWrite: @Sendable () -> Void
    private let state = Mutex(State())
    private let indexed = Latch()

    private struct State {
        var index: TrackIndex?
        var failure: String?
        var files = 0
        var points = 0
        var problems = 0
        var latest: Date?
    }

    package init(
        files: TrackFiles,
        maximumGap: Duration,
        maximumFixAge: Duration,
        timeout: Duration,
        stateDirectory: String,
        logger: Logger,
        now: @escaping @Sendable () -> Date,
        afterWrite: @escaping @Sendable () -> Void = {}
    ) {
        self.files = files
        self.maximumGap = maximumGap
        self.maximumFixAge = maximumFixAge
        self.timeout = timeout
        self.stateDirectory = stateDirectory
        self.logger = logger
        self.now = now
        self.afterWrite = afterWrite
    }

    package var details: [String: String] {
        let state = self.state.withLock { $0 }
        var details = [
            "track_files": "\(state.files)", "track_points": "\(state.points)",
            "indexed": self.indexed.isOpen ? "yes" : "not yet",
        ]
        if state.problems > 0 { details["track_problems"] = "\(state.problems)" }
        if let latest = state.latest { details["latest_point_at"] = latest.iso8601 }
        if let failure = state.failure { details["track_error"] = failure }
        return details
    }

    // MARK: Questions

    package func locate() async throws -> Position {
        let index = try await self.index()
        let latest = try await index.latest()
        guard let point = TrackFix.now(latest, at: self.now(), maximumAge: self.maximumFixAge) else {
            let what = latest.map { "the latest point is from \($0.time.iso8601)" } ?? "no points"
            throw LocationError(
                source: self.type,
                message: "no point in the last \(Int(self.maximumFixAge.seconds)) s (\(what))")
        }
        return point.position(source: self.type)
    }

    /// Its positions are where the author was (`BorrowedPlace`).
    package var followsTheAuthor: Bool { true }

    package func locate(at time: Date) async throws -> Position? {
        let index = try await self.index()
        let (before, after) = try await index.around(Int64((time.timeIntervalSince1970 * 1000).rounded()))
        return TrackFix.at(time, before: before, after: after, maximumGap: self.maximumGap)?.position(
            source: self.type)
    }

    /// The index once the first indexing is done.
    private func index() async throws -> TrackIndex {
        try await self.indexed.wait()
        let (index, failure) = self.state.withLock { ($0.index, $0.failure) }
        guard let index else {
            throw LocationError(source: self.type, message: "no track index: \(failure ?? "not started")")
        }
        return index
    }

    // MARK: Following the files

    /// Indexes the files, then follows the folder until cancelled, on a thread of its own (the reads and the
    /// index's writes block).
    package func run() async throws {
        let watcher: FolderWatcher
        do {
            watcher = try FolderWatcher(folders: self.files.folders)
        } catch {
            self.fail("cannot watch \(self.files.description): \(error)")
            return
        }
        try await withTaskCancellationHandler {
            try await onThread("weathertag-track") {
                self.follow(watcher)
            }
        } onCancel: {
            watcher.stop()
        }
    }

    private func follow(_ watcher: FolderWatcher) {
        let index: TrackIndex
        do {
            index = try TrackIndex.open(directory: self.stateDirectory)
        } catch {
            self.fail("cannot open \(self.stateDirectory)/\(TrackIndex.fileName): \(error)")
            return
        }
        self.state.withLock { $0.index = index }
        let started = ContinuousClock.now
        self.look(index, watcher)
        let took = ContinuousClock.now - started
        let state = self.state.withLock { $0 }
        self.logger.info(
            "track files indexed",
            metadata: [
                "files": "\(state.files)", "points": "\(state.points)", "took": "\(took)",
                "path": "\(self.files.description)",
            ])
        self.indexed.open()
        // Each wake-up is one read of events, however many: a file growing by a point a second is read once per
        // wake-up, from where its last read stopped.
        while watcher.waitForChanges() {
            self.look(index, watcher)
        }
    }

    /// Syncs, and watches the folders found; a folder that was not watched yet is looked at once more (a file
    /// written in it before its watch was in place would otherwise wait for the next event).
    private func look(_ index: TrackIndex, _ watcher: FolderWatcher) {
        var folders = self.files.folders
        self.sync(index, in: folders, until: { watcher.isStopped })
        while !watcher.isStopped, watcher.watch(folders) > 0 {
            folders = self.files.folders
            self.sync(index, in: folders, until: { watcher.isStopped })
        }
    }

    private func fail(_ message: String) {
        self.logger.error("track provider cannot work", metadata: ["error": "\(message)"])
        self.state.withLock { $0.failure = message }
        self.indexed.open()
    }

    /// Brings the index in step with the files as they are now; a stop (the daemon stopping or reloading) ends it
    /// at the next chunk, with what was read kept and the rest read at the next start.
    func sync(_ index: TrackIndex, in folders: [String], until stopped: () -> Bool = { false }) {
        let present = self.files.list(in: folders)
        var known: [String: TrackIndex.IndexedFile] = [:]
        do {
            for file in try index.files() { known[file.path] = file }
        } catch {
            self.logger.error("cannot read the track index", metadata: ["error": "\(error)"])
            return
        }
        for (path, format) in present {
            if stopped() { return }
            do {
                try self.read(path, format: format, known: known[path], into: index, until: stopped)
            } catch {
                self.logger.warning("cannot read a track file", metadata: ["file": "\(path)", "error": "\(error)"])
            }
        }
        let presentPaths = Set(present.map(\.path))
        for (path, file) in known where !presentPaths.contains(path) {
            try? index.forget(file)
        }
        let files = (try? index.files()) ?? []
        let latest = try? index.latest()
        self.state.withLock {
            $0.files = files.count
            $0.points = files.reduce(0) { $0 + $1.points }
            $0.problems = files.reduce(0) { $0 + $1.problems }
            $0.latest = latest?.time
        }
    }

    /// Points read before they are written, in one transaction each.
    static let pointsPerWrite = 50_000

    /// Reads what is new in one file: all of it when first seen or rewritten, the rest when it grew.
    func read(
        _ path: String, format: TrackFormat, known: TrackIndex.IndexedFile?, into index: TrackIndex,
        until stopped: () -> Bool = { false }
    ) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("stat", path: path) }
        guard info.st_mode & S_IFMT == S_IFREG else { return }
        let version = FileVersion(info)
        var file: TrackIndex.IndexedFile
        switch TrackReadPlan.plan(indexed: known?.version, resume: known?.resume ?? TrackResume(), now: version) {
        case .nothing: return
        case .readOn:
            guard let known else { return }
            file = known
        case .readAnew: file = try index.restart(path, version: version)
        }
        guard lseek(fd, off_t(file.resume.offset), SEEK_SET) >= 0 else { throw SystemError("seek", path: path) }
        var reader = format.reader(from: file.resume)
        var points: [TrackPoint] = []
        points.reserveCapacity(Self.pointsPerWrite)
        var reported = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", path: path)
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { bytes in
                reader.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { points.append($0) }
            }
            if points.count >= Self.pointsPerWrite || stopped() {
                // Partway: the version stays the old one, so an interrupted read goes on from `resume` next time.
                file.resume = reader.resume
                try index.add(points, to: &file, problems: reader.problems.count - reported)
                reported = reader.problems.count
                points.removeAll(keepingCapacity: true)
                self.afterWrite()
                if stopped() { return }
            }
        }
        file.resume = reader.resume
        file.version = version
        try index.add(points, to: &file, problems: reader.problems.count - reported)
        if reader.problems.count > 0 {
            self.logger.warning(
                "lines of a track file cannot be used; the rest of it is",
                metadata: [
                    "file": "\(path)", "problems": "\(reader.problems.count)",
                    "first": "\(reader.problems.first.prefix(5).map(\.description).joined(separator: "; "))",
                ])
        }
    }
}

/// The files a `track` provider reads: every `.gpx` and `.rec` file in a folder and its folders (to
/// `maximumDepth`, as a Recorder's `rec/USER/DEVICE/`), or those a glob names below the folder before its first
/// wildcard (`~/Sync/GPSLogger/*.gpx`, `~/tracks/**/2026-*.gpx`: the `Glob` syntax `inbox.exclude` uses).
package struct TrackFiles: Sendable, CustomStringConvertible {
    package static let maximumDepth = 4

    package var folder: String
    /// The glob the files' paths below `folder` must match, or nil for every track file below it.
    package var pattern: Glob?

    package init(folder: String, pattern: Glob?) {
        self.folder = folder
        self.pattern = pattern
    }

    /// `path` as configured: a folder, or a glob (its folder is the part before the first wildcard).
    package init(_ path: String) throws(ConfigurationError) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = parts.firstIndex(where: { Glob.hasWildcards($0) }) else {
            self.init(folder: path, pattern: nil)
            return
        }
        let folder = parts[..<first].joined(separator: "/")
        let pattern = parts[first...].joined(separator: "/")
        guard let glob = Glob(pattern) else {
            throw ConfigurationError(field: "path", message: "\(pattern) is not a glob")
        }
        self.init(folder: folder.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : folder, pattern: glob)
    }

    package var description: String { self.pattern.map { self.folder + "/" + $0.description } ?? self.folder }

    /// The folders to watch: the folder alone for a glob of names (`*.gpx`), else it and those below it.
    var folders: [String] {
        if let pattern, !pattern.description.contains("/"), !pattern.description.contains("**") {
            return [self.folder]
        }
        var folders = [self.folder]
        var index = 0
        var depth = [0]
        while index < folders.count {
            if depth[index] < Self.maximumDepth {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folders[index])) ?? []
                where !name.hasPrefix(".") {
                    let path = folders[index] + "/" + name
                    var info = stat()
                    if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                        folders.append(path)
                        depth.append(depth[index] + 1)
                    }
                }
            }
            index += 1
        }
        return folders
    }

    /// The track files there now, in `folders` (`self.folders`, walked once by the caller).
    func list(in folders: [String]? = nil) -> [(path: String, format: TrackFormat)] {
        var found: [(path: String, format: TrackFormat)] = []
        let base = self.folder.hasSuffix("/") ? self.folder : self.folder + "/"
        for folder in folders ?? self.folders {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            where !name.hasPrefix(".") {
                let path = (folder.hasSuffix("/") ? folder : folder + "/") + name
                if let pattern = self.pattern, !pattern.matches(String(path.dropFirst(base.count))) { continue }
                guard let format = TrackFormat(fileName: name) else { continue }
                found.append((path, format))
            }
        }
        return found
    }
}

extension TrackLocationProvider {
    /// `{"type": "track", "path": "/home/me/Sync/GPSLogger", "max_gap_seconds": 600, "max_fix_age_seconds": 300}`
    package struct Settings: Sendable {
        package var files: TrackFiles
        package var maximumGap: Duration
        package var maximumFixAge: Duration
        package var timeout: Duration
        /// `state.directory`, where the index (`tracks.sqlite`) is kept.
        package var stateDirectory: String
    }
}

extension LocationProviderPlugin {
    package static var track: LocationProviderPlugin {
        LocationProviderPlugin(
            type: "track", name: "a GPX or OwnTracks track",
            answers: [
                AnswerReader("a GPX file") { bytes in
                    var reader = GPXReader(from: TrackResume())
                    bytes.withUnsafeBytes { reader.feed($0) { _ in } }
                },
                AnswerReader("an OwnTracks Recorder's .rec file") { bytes in
                    var reader = OwnTracksRecordReader(from: TrackResume())
                    bytes.withUnsafeBytes { reader.feed($0) { _ in } }
                },
            ],
            keys: [
                .string(
                    "path", required: true, minLength: 1,
                    "A folder of GPX (.gpx) and OwnTracks Recorder (.rec) files, read with its folders to a depth of 4, or a glob (~/Sync/GPSLogger/*.gpx, ~/tracks/**/2026-*.gpx: *, ?, ** for any folders, [..] and [!..] classes)."
                ),
                .seconds(
                    "max_gap_seconds", maximum: 86400, default: 600,
                    "A past moment is interpolated between the points around it only when they are at most this far apart."
                ),
                .seconds(
                    "max_fix_age_seconds", maximum: 86400, default: 300,
                    "The latest point answers for now only while it is at most this old."),
                .seconds("timeout_seconds", maximum: 300, default: 2),
            ]
        ) { (config, context) throws(ConfigurationError) in
            guard let configured = try config.nonEmptyString("path") else { throw config.missing("path") }
            let path = context.paths.absolute(configured)
            let files: TrackFiles
            do throws(ConfigurationError) {
                files = try TrackFiles(path)
            } catch {
                throw ConfigurationError(field: config.fieldPath("path"), message: error.message)
            }
            var info = stat()
            guard stat(files.folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw ConfigurationError(field: config.fieldPath("path"), message: "\(files.folder) is not a folder")
            }
            return TrackLocationProvider.Settings(
                files: files,
                maximumGap: try config.seconds("max_gap_seconds", maximum: 86_400) ?? .seconds(600),
                maximumFixAge: try config.seconds("max_fix_age_seconds", maximum: 86_400) ?? .seconds(300),
                timeout: try config.seconds("timeout_seconds", maximum: 300) ?? .seconds(2),
                stateDirectory: context.stateDirectory)
        } make: { settings, context in
            TrackLocationProvider(
                files: settings.files, maximumGap: settings.maximumGap, maximumFixAge: settings.maximumFixAge,
                timeout: settings.timeout, stateDirectory: settings.stateDirectory, logger: context.logger,
                now: context.now)
        }
    }
}
