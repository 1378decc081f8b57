import FoundationEssentials
import Glibc
import NIOPosix
import WeathertagCore

/// Stamps files anywhere with the inbox's safety (`EntryFile`: read lease, temp file, exchange, a last look,
/// fsyncs) and the inbox's policy (`InboxStateMachine`: an entry that changes while it is stamped is tried again
/// after a pause, a few times): what `weathertag stamp` uses. One file at a time, so progress can be shown; a
/// failed write is reported and the next file tried.
package enum FileStamper {
    /// What came of one file: its result, as the inbox's machine tells it, and the weather it was stamped with.
    package typealias Outcome = (result: EntryResult, tag: WeatherTag?)

    typealias Machine = InboxStateMachine<ContinuousClock>

    /// Asks for current weather, once the first entry that needs it is read.
    package typealias CurrentWeather = () async -> Result<WeatherTag, any Error>

    /// The daemon's memory, for files in its inbox: a file there without a block gets its remembered one back,
    /// and every stamp is remembered, as the daemon does.
    package struct Memory: Sendable {
        package var database: any EntryStore
        /// The inbox, as a real path.
        package var inbox: String

        package init(database: any EntryStore, inbox: String) {
            self.database = database
            self.inbox = inbox
        }

        /// Tells the index a lane the machine settled after the batch (history's answer for good), on the thread
        /// pool; nothing for a file outside the inbox.
        func index(_ path: String, _ lane: LaneState) async {
            guard let key = self.key(path) else { return }
            let (database, item) = (self.database, DiaryIndexItem.lane(key, lane, at: Date()))
            _ = try? await NIOThreadPool.singleton.runIfActive { database.remember([], index: [item], at: Date()) }
        }

        /// The file's path relative to the inbox, or nil when it is not in it.
        func key(_ path: String) -> String? { FileStamper.relative(path, to: self.inbox) }
    }

    /// `path` relative to `inbox` (a real path), both resolved through links; nil when it is not in it.
    static func relative(_ path: String, to inbox: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        guard resolved.hasPrefix(inbox + "/") else { return nil }
        return String(resolved.dropFirst(inbox.count + 1))
    }

    /// Stamps every file; `starting(done, path)` is called before each. Returns each path's outcome. Current weather
    /// is asked for (`currentWeather`) only when a file needs it: back-dated files ask history alone, and a failure
    /// of current weather is reported for the files that need it while the rest go on.
    /// With `options.replacing`, the memory is not asked and a block already there is replaced: new weather on
    /// purpose.
    package static func stamp(
        _ paths: [String],
        currentWeather: CurrentWeather,
        fields: [StampField] = StampField.all,
        options: StampOptions = StampOptions(backdating: BackdatingPolicy()),
        memory: Memory? = nil,
        history: HistoryService? = nil,
        historyPatience: HistoryPatience = .none,
        starting: (Int, String) -> Void = { _, _ in }
    ) async -> [String: Outcome] {
        var patience = historyPatience
        var policy = Machine.Configuration()
        policy.batchSize = 1
        policy.batchesInFlight = 1
        policy.retriesFailedWrites = false
        policy.waitsForDatedEntries = false
        policy.waitsForWeather = false
        policy.sortsWithoutWeather = true
        policy.givesBackMemoryAfter = nil
        policy.mergesIndexAfter = nil
        var machine = Machine(configuration: policy, clock: ContinuousClock())
        var outcomes: [String: Outcome] = [:]
        var wakeUp: ContinuousClock.Instant?
        var actions = machine.receive(.arrived(paths))
        while true {
            var next: [Machine.Action] = []
            for action in actions {
                switch action {
                case .fetchWeather:
                    switch await currentWeather() {
                    case .success(let tag): next += machine.receive(.weatherArrived(tag))
                    case .failure(let error): next += machine.receive(.weatherFailed(error, retryAfter: nil))
                    }
                case .fetchHistory(let name, let request):
                    var answer = await history?.tag(for: request)
                    // History's pacing of a service's limits says "in a minute": a command that may wait does.
                    while case .failed(.later(let delay, _))? = answer, patience.allows(delay) {
                        try? await Task.sleep(for: delay)
                        answer = await history?.tag(for: request)
                    }
                    switch answer {
                    case .tag(let tag)?: next += machine.receive(.historyArrived(name, tag))
                    case .failed(.later(_, let error))?:
                        // A command does not wait for tomorrow's calls or a failing service: it says why.
                        next += machine.receive(.historyFailed(name, .unavailable(.refused("\(error)"))))
                    case .failed(let failure)?: next += machine.receive(.historyFailed(name, failure))
                    case nil: next += machine.receive(.historyFailed(name, .unavailable(.historyDisabled)))
                    }
                case .stamp(let batch):
                    starting(outcomes.count, batch.names[0])
                    // A back-dated file's batch carries the weather of its time. On the thread pool, as the
                    // daemon's batches: the file work and the memory's SQLite block, and the cooperative pool must
                    // not.
                    let batchLines = batch.tag?.stampLines(fields: fields, format: options.format)
                    var batchOptions = options
                    batchOptions.backdating = batch.backdating(options.backdating ?? BackdatingPolicy())
                    let outcome = try? await NIOThreadPool.singleton.runIfActive { [batchOptions] in
                        EntryBatch.stampFiles(
                            batch.names, in: nil, lines: batchLines, options: batchOptions,
                            memory: memory.map { memory in
                                EntryBatch.Memory(database: memory.database, key: { memory.key($0) })
                            }
                        ).remembered()
                    }
                    next += machine.receive(.batchFinished(batch, outcome, arrivedMeanwhile: []))
                case .wakeUp(let deadline):
                    wakeUp = deadline
                case .report(.entry(let path, let result, let telling)):
                    // An entry that waits (changed under the stamp, dated ahead) is told again when it is done.
                    outcomes[path] = (result, telling.tag)
                case .report:
                    break
                case .index(let name, let lane): await memory?.index(name, lane)
                case .list, .finish, .startPolling, .notice, .checkIntegrity, .giveBackMemory, .mergeIndex:
                    break
                }
            }
            if !next.isEmpty {
                actions = next
                continue
            }
            // Only entries that changed under us are left: wait for their retry.
            guard !machine.isIdle, let deadline = wakeUp else { return outcomes }
            try? await Task.sleep(until: deadline, clock: .continuous)
            wakeUp = nil
            actions = machine.receive(.wokeUp)
        }
    }

    /// How long a command waits for history when it says "later": each wait at most `each` (a service's pacing,
    /// not tomorrow's calls or a long outage), all of them together at most `total`.
    package struct HistoryPatience: Sendable {
        package var each: Duration
        package var total: Duration

        package init(each: Duration, total: Duration) {
            (self.each, self.total) = (each, total)
        }

        /// Never waits: says why at once (`stamp`).
        package static let none = HistoryPatience(each: .zero, total: .zero)

        /// Whether to wait `delay` now, counting it when so.
        mutating func allows(_ delay: Duration) -> Bool {
            guard delay <= self.each, delay <= self.total else { return false }
            self.total -= delay
            return true
        }
    }

    /// What `remove` did to one file.
    package enum Removal: Sendable {
        /// The block weathertag wrote there is taken out; the memory will not give it back.
        case removed
        /// Left as it is, and why.
        case left(String)
        /// Not read or not written, as a stamp would not be (an editor has it open, it changed meanwhile).
        case refused(EntryResult)
    }

    /// Takes out of each file the weather block weathertag remembers writing there, and nothing else (`weathertag
    /// stamp --remove`): a template an older version stamped, a note that is no entry now. A file without a block,
    /// or with one weathertag did not write there (one of the author's own, one found there), is left as it is. The
    /// file is rewritten as a stamp writes it (`EntryFile.rewrite`); the memory never gives the block back, and still
    /// knows it as weathertag's writing there (a note copied from the file before is recognised). One file at a
    /// time, on the thread pool.
    ///
    /// A file that is an entry of the inbox (`tree`: a template is one) is read again as the daemon reads it, so the
    /// diary index says what it is now (a template without a block; an entry waiting for weather), and a running
    /// daemon is told it changed: it stamps an entry again, with the weather of its own time.
    package static func remove(
        _ paths: [String], memory: Memory, tree: InboxTree, options: StampOptions
    ) async -> [String: Result<Removal, any Error>] {
        var outcomes: [String: Result<Removal, any Error>] = [:]
        for path in paths {
            let outcome = try? await NIOThreadPool.singleton.runIfActive {
                Result { () throws -> Removal in
                    let removal = try Self.remove(path, memory: memory, options: options)
                    guard case .removed = removal else { return removal }
                    if let key = memory.key(path), tree.isEntry(key) {
                        _ = EntryBatch.stampFiles(
                            [path], in: nil, lines: nil, options: options,
                            memory: EntryBatch.Memory(database: memory.database, key: { memory.key($0) })
                        ).remembered()
                    }
                    FileIO.announceChange(path)
                    return removal
                }
            }
            outcomes[path] = outcome ?? .failure(CancellationError())
        }
        return outcomes
    }

    private static func remove(_ path: String, memory: Memory, options: StampOptions) throws -> Removal {
        guard let key = memory.key(path) else {
            return .left(
                "it is not in the inbox (\(memory.inbox)), and weathertag keeps no memory of what it writes elsewhere")
        }
        let rewritten = try EntryFile.rewrite(path: path, options: options) { bytes in
            guard let block = FrontMatterStamper.weatherBlock(bytes) else { return .leave("it holds no weather block") }
            guard case .writtenHere = memory.database.provenance(of: block, at: key) else {
                return .leave(
                    "its weather block is not one weathertag remembers writing there (it may be yours), and stays")
            }
            guard let removed = FrontMatterStamper.removingStamp(bytes) else {
                return .leave("its front matter would not read as it did without the block, and stays as it is")
            }
            // Withdrawn before it is written: a daemon that reads the file the moment it changes must not give the
            // block back. (Should the write fail, the next look finds the block there and remembers it again.)
            memory.database.withdraw(key, at: Date())
            return .write(removed)
        }
        switch rewritten {
        case .failure(let refusal): return .left(refusal.reason)
        case .success(.stamped): return .removed
        case .success(let result): return .refused(result)
        }
    }

    /// What `preview` finds: the front matter a stamp would write, or the result that means there is nothing to
    /// write.
    package enum Preview: Sendable {
        case frontMatter(String)
        case nothingToWrite(EntryResult)
    }

    /// The front matter a stamp would give the file (from its opening `---` to its closing line), without
    /// writing anything; or the outcome that means there is nothing to write.
    ///
    /// A template (`template`, the vault's word on the path; or its placeholders) has nothing to write.
    package static func preview(
        _ path: String,
        lines: [String],
        maximumSize: Int = InboxConfiguration.defaultMaximumBytes,
        template: TemplateSign? = nil
    ) -> Preview {
        let fd = FileIO.openToRead(path)
        guard fd >= 0 else {
            return .nothingToWrite(errno == ENOENT ? .vanished : .failed(SystemError("open", path: path)))
        }
        defer { close(fd) }
        let original: [UInt8]
        do {
            original = try FileIO.readAll(fd, path: path, limit: maximumSize)
        } catch {
            return .nothingToWrite(.failed(error))
        }
        if let sign = template ?? TemplateSign.placeholder(in: original) {
            return .nothingToWrite(.leftAlone(.template(sign), FileVersion.current(fd)))
        }
        switch FrontMatterStamper.stamp(original, lines: lines) {
        case .alreadyStamped:
            return .nothingToWrite(FileVersion.current(fd).map(EntryResult.alreadyStamped) ?? .vanished)
        case .skipped(let reason): return .nothingToWrite(.leftAlone(.content(reason), nil))
        case .stamped(let content):
            // By bytes: in a Swift String "\r\n" is one character, and splitting at "\n" would not see CRLF lines.
            var end = 0
            var lines = 0
            while end < content.count {
                let next = (content[end...].firstIndex(of: 0x0A) ?? content.count - 1) + 1
                var line = content[end..<next]
                while let last = line.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { line = line.dropLast() }
                end = next
                lines += 1
                if lines > 1, line.elementsEqual("---".utf8) || line.elementsEqual("...".utf8) { break }
            }
            return .frontMatter(String(decoding: content[..<end], as: UTF8.self))
        }
    }
}
