import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import WeathertagCore

/// Everything one configuration decides, apart from the socket: the location providers, the weather service and
/// the inbox. A reload builds a new generation and stops the old one.
struct Generation {
    var services: [ServiceGroupConfiguration.ServiceConfiguration]
    var router: APIRouter
    /// For the systemd status line.
    var summary: String
}

extension ServiceFactory {
    /// The open files the inbox's batches may hold (`DescriptorBudget`). The process's soft limit is raised towards
    /// what they and the socket's connections need, within the hard limit (with the defaults, 352 need no raise). A
    /// limit short of that runs fewer batches at once (said at info); a limit too low for even one is a warning, once
    /// a generation. (Programs the daemon starts, the `command` plugins, inherit a raised soft limit, as systemd's
    /// services inherit its.)
    func descriptorBudget() -> DescriptorBudget {
        let policy = InboxFiles.Machine.Configuration()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit(rlim_cur: .max, rlim_max: .max)
        _ = getrlimit(resource, &limit)
        func budget(soft: rlim_t, hard: rlim_t) -> DescriptorBudget {
            DescriptorBudget(
                soft: UInt64(soft), hard: UInt64(hard),
                connections: self.configuration.socket.maximumConnections, batchesInFlight: policy.batchesInFlight,
                writtenTogether: EntryBatch.writtenTogether)
        }
        var decided = budget(soft: limit.rlim_cur, hard: limit.rlim_max)
        var metadata: Logger.Metadata = [:]
        if let raise = decided.raiseTo {
            var raised = limit
            raised.rlim_cur = rlim_t(raise)
            if setrlimit(resource, &raised) != 0 {
                metadata["error"] = "\(SystemError("setrlimit", path: "RLIMIT_NOFILE"))"
                decided = budget(soft: limit.rlim_cur, hard: limit.rlim_cur)  // what fits as it is
            }
        }
        metadata["limit"] = "\(decided.raiseTo ?? UInt64(limit.rlim_cur))"
        metadata["needed"] = "\(decided.needed)"
        metadata["batches"] = "\(decided.batchesInFlight)"
        if decided.isShort {
            self.logger.warning(
                "the open-file limit is low: a long burst may wait for descriptors; raise LimitNOFILE",
                metadata: metadata)
        } else if decided.batchesInFlight < policy.batchesInFlight {
            self.logger.info("the open-file limit holds fewer batches at once", metadata: metadata)
        }
        return decided
    }

    /// Builds a generation's services in start order (a graceful shutdown goes in reverse).
    func generation(progress: StampingProgress) async -> Generation {
        let configuration = self.configuration
        let chain = self.locationChain()
        let weather = await self.weatherService(chain: chain)
        let memory = await self.stateDatabase()
        let history = self.historyService(store: memory?.history, chain: chain)
        let files = InboxFiles(
            configuration: configuration.inbox, stamp: configuration.stamp, memory: memory?.entries,
            asksHistory: history != nil, threadPool: self.threadPool, progress: progress,
            reporter: InboxReporter(statistics: self.statistics, logger: self.logger),
            conflicts: SyncConflictRegistry(tree: configuration.inbox.tree, logger: self.logger),
            crashGuard: CrashGuard(directory: configuration.state.directory), descriptors: self.descriptorBudget())
        let page = self.timelinePage(memory: memory)
        let inbox = InboxService(
            files: files, weather: weather, history: history, maximumAge: configuration.stamp.maximumAge,
            statistics: self.statistics, logger: self.logger, diaryListener: page?.listener)
        var router = APIRouter(
            weather: weather,
            chain: chain,
            statistics: self.statistics,
            inbox: configuration.inbox.path,
            maximumStaleness: configuration.cache.maximumStaleness,
            now: { Date() }
        )
        router.history = history
        router.conflicts = files.conflicts
        router.timeline = page
        let (threadPool, privacy) = (self.threadPool, self.configuration.privacy)
        router.diary = memory.map { memory in
            DiaryIndex(
                database: memory.diary, live: { await inbox.waitingReasons($0) }, threadPool: threadPool,
                privacy: privacy)
        }
        var services = self.providers.map {
            let service = LocationProviderService(provider: $0)
            return ServiceGroupConfiguration.ServiceConfiguration(
                service: service, successTerminationBehavior: .ignore, serviceName: service.description)
        }
        // Named, as the daemon's own services are (`Daemon.run`): not reflected at every start and reload.
        services.append(.init(service: inbox, serviceName: "InboxService"))
        if let page { services.append(.init(service: page, serviceName: "TimelinePageService")) }
        let providers = configuration.providers.map(\.type).joined(separator: " → ")
        let sources = configuration.weather.sources.map(\.type).joined(separator: " → ")
        return Generation(
            services: services,
            router: router,
            summary: "watching \(configuration.inbox.path); location: \(providers); weather: \(sources)"
        )
    }
}

extension ServiceFactory {
    /// The page `timeline.output` and the map `timeline.map_output` name, kept current from the diary index; nil
    /// without either, or without the state database that holds the index (said in the log).
    func timelinePage(memory: StateDatabase?) -> TimelinePageService? {
        let configuration = self.configuration
        guard let output = configuration.timeline.output ?? configuration.timeline.mapOutput else { return nil }
        guard let memory else {
            self.logger.error(
                """
                timeline.output needs the diary index, which lives in the state database (state.enabled, and \
                state.directory writable): the page is not written
                """,
                metadata: ["page": "\(output)"])
            return nil
        }
        return TimelinePageService(
            configuration: configuration.timeline,
            index: DiaryIndex(database: memory.diary, threadPool: self.threadPool, privacy: configuration.privacy),
            iconCache: configuration.cache.directory + "/icons", privacy: configuration.privacy,
            inbox: configuration.inbox.path, threadPool: self.threadPool, logger: self.logger)
    }
}
