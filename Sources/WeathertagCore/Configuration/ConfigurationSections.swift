/// A weather service's API key (OpenWeather's). Prints as a mask so it cannot slip into a log line or an error.
package struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    package var value: String
    /// Where it came from, for `weathertag check` (never the key itself).
    package var origin: String

    package init(_ value: String, origin: String) {
        self.value = value
        self.origin = origin
    }

    package var description: String { "<api key from \(self.origin)>" }
    package var debugDescription: String { self.description }
}

/// Where the weather of now comes from (`weather.providers`), tried in order.
package struct WeatherConfiguration: Sendable {
    /// How the list came to be, for `check` and the log.
    package enum Origin: Sendable, Equatable {
        /// `weather.providers` as written.
        case configured
        /// No list, and a source whose own section implies it (OpenWeather, with a key: alone, as before sources
        /// were plugins), with why in `check`'s words ("an OpenWeather key, so OpenWeather alone").
        case implied(because: String)
        /// No list and nothing implied: the registry's fallback (Open-Meteo, which needs no key), with why.
        case fallback(because: String)

        /// Whether the configuration never listed its sources: its blocks stay as they were before sources were
        /// plugins, without `weather_source`.
        package var isImplied: Bool {
            if case .implied = self { return true }
            return false
        }
    }

    package var sources: [WeatherSourceSpec]
    package var origin: Origin
    /// Every source's units and language (`weather.units`, `weather.lang`).
    package var units = Units.metric
    package var lang = "en"

    package init(sources: [WeatherSourceSpec], origin: Origin) {
        self.sources = sources
        self.origin = origin
    }
}

/// Who names the place of a position (`geocoding.provider`).
package enum GeocodingProvider: Sendable, Equatable {
    /// A remote geocoder (OpenWeather's): the position (as `privacy` allows) leaves the machine.
    case service(GeocoderSpec)
    /// The GeoNames files in this folder: nothing leaves the machine.
    case geoNames(directory: String)
    case none

    /// The remote geocoder's type, or nil when places are named on the machine or not at all.
    package var serviceType: String? {
        if case .service(let spec) = self { return spec.type }
        return nil
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.service(let a), .service(let b)): a.type == b.type
        case (.geoNames(let a), .geoNames(let b)): a == b
        case (.none, .none): true
        default: false
        }
    }
}

package struct CacheConfiguration: Sendable {
    /// Holds `weather.json` and `icons/`.
    package var directory: String
    /// How long weather for one place is reused before the sources are asked again.
    package var ttl: Duration = .seconds(600)
    /// How old weather `/v1/tag` still serves, marked stale, while no source can be reached.
    package var maximumStaleness: Duration = .seconds(3 * 3600)

    package init(directory: String) {
        self.directory = directory
    }
}

/// The daemon's memory of its stamps (`state`): a SQLite database, never the truth (the files are).
package struct StateConfiguration: Sendable {
    /// Holds `state.sqlite`.
    package var directory: String
    /// Remember stamps and restore them; false: every entry that comes back without its block gets new weather.
    package var enabled = true
    /// How long the block of an entry that left the inbox is kept for its return (git and tar delete a file and
    /// write it again).
    package var forgetAfter: Duration = .seconds(RestorePolicy.defaultForgetAfter)

    package init(directory: String) {
        self.directory = directory
    }
}

/// The weather of back-dated entries' own time (`history`).
package struct HistoryConfiguration: Sendable {
    /// Off by default: the daemon asks for back-dated entries' weather only when told to.
    package var enabled = false
    /// The weather source asked about the past (`history.source`, a type whose plugin `knowsThePast`): Open-Meteo by
    /// default (no key, whole years of hours per request), or OpenWeather's One Call 3.0 timemachine (a
    /// subscription, one call per entry).
    package var source = "open-meteo"
    /// That source as its plugin validated it, with the services' own sections; nil while history is off.
    package var sourceSpec: WeatherSourceSpec?
    /// Calls in any 24 hours at most: the timemachine's (nil: 900; One Call 3.0 is free up to 1,000 a day), or
    /// Open-Meteo's weighted calls (nil: half of their free 10,000).
    package var maximumCallsPerDay: Int?

    package init() {}
}

package struct InboxConfiguration: Sendable {
    /// The watched folder; must exist.
    package var path: String
    /// Entries larger than this are left alone unless the configuration says otherwise (`inbox.max_bytes`).
    package static let defaultMaximumBytes = 16 << 20
    /// Larger entries are left alone.
    package var maximumBytes = Self.defaultMaximumBytes
    /// Which folders below the inbox are part of it (`inbox.recursive`, `inbox.max_depth`, `inbox.exclude`).
    package var tree = InboxTree()
    /// An entry written or moved in is stamped once no write has reached it for this long (`inbox.settle_seconds`).
    package var settle: Duration = .seconds(2)
    /// How often to rescan besides inotify; nil picks it from the filesystem (every 30 s on network and FUSE
    /// filesystems, where inotify does not see other machines' changes; never on local ones).
    package var pollInterval: Duration?
    /// Where an entry of a given time lives in the diary (`inbox.layout`): what `new` and `import` name and folder
    /// entries by.
    package var layout = DiaryLayout.default

    /// How often to rescan where inotify cannot be relied on (network filesystems, folders it cannot watch).
    package static let fallbackPollInterval: Duration = .seconds(30)

    /// The rescan interval to use: the configured one (zero: never), else `fallbackPollInterval` on a filesystem
    /// whose changes inotify may not see; nil for none.
    package func pollInterval(isRemote: @autoclosure () -> Bool) -> Duration? {
        if let interval = self.pollInterval { return interval == .zero ? nil : interval }
        return isRemote() ? Self.fallbackPollInterval : nil
    }

    package init(path: String) {
        self.path = path
    }
}

package struct StampConfiguration: Sendable {
    /// Entries are stamped only with weather at most this old; otherwise they wait for fresh weather.
    package var maximumAge: Duration = .seconds(3600)
    /// An entry written longer ago than this is back-dated and never gets current weather
    /// (`stamp.backdated_after_seconds`; a date without a time: any day before today).
    package var backdatedAfter: Duration = .seconds(10_800)
    /// The stamped file keeps the entry's modification (and access) time.
    package var keepModificationTime = true
    /// The block's fields, in order (`stamp.fields`); the whole block by default.
    package var fields = StampField.all
    /// How the stamp is written (`stamp.format`): one `weather:` mapping, or Obsidian's typed properties.
    package var format = StampFormat.block

    package init() {}
}

package struct SocketConfiguration: Sendable {
    package var path: String
    /// Open connections at most; at the limit a new client takes the place of the longest-idle one.
    package var maximumConnections = 64
    /// A connection that sends no complete request head for this long is closed (idle keep-alive, slowloris).
    package var idleTimeout: Duration = .seconds(30)

    package init(path: String) {
        self.path = path
    }
}

/// The timeline page the daemon keeps current (`timeline`): written again once stamps and edits settle, at most
/// once a minute (`PageRefreshMachine`).
package struct TimelineConfiguration: Sendable {
    /// The page's file (`timeline.output`); nil: the daemon writes none (`weathertag timeline` still does).
    package var output: String?
    /// The map of where you wrote, alone (`timeline.map_output`, an `.svg`); nil: none (the page still has it).
    package var mapOutput: String?
    /// Its title (`timeline.title`).
    package var title = "Diary"
    /// The language of its words (`timeline.lang`, else `weather.lang`).
    package var lang: String?

    /// The folder of compiled catalogs (`$WEATHERTAG_LOCALEDIR`, set beside the executable by the command line).
    package var localeDirectory: String?

    /// The catalogs its words come from, most particular first (`MessageLanguages`).
    package var languages: [String] { MessageLanguages.of(setting: self.lang ?? "en") }
    /// What the map is drawn from (shipped with weathertag, found through the environment).
    package var map = MapFiles(environment: [:])

    package init() {}
}

/// The files the map of where you wrote is drawn from: the shorelines and borders (`coastlines.bin`,
/// `tools/coastlines.py`, in `$WEATHERTAG_MAP`) and the towns whose names it shows (`cities15000.txt`, the offline
/// towns index in `$WEATHERTAG_TOWNS`). The command line sets both to the folders shipped beside the executable. A
/// map without them is drawn without land or names: the dots are still where they belong.
package struct MapFiles: Sendable, Equatable {
    package var coastlines: String?
    package var towns: String?

    package static let variable = "WEATHERTAG_MAP"
    package static let fileName = "coastlines.bin"

    package init(coastlines: String?, towns: String?) {
        self.coastlines = coastlines
        self.towns = towns
    }

    package init(environment: [String: String]) {
        func file(_ variable: String, _ name: String) -> String? {
            guard let folder = environment[variable], !folder.isEmpty else { return nil }
            return folder + "/" + name
        }
        self.init(
            coastlines: file(Self.variable, Self.fileName),
            towns: file(Configuration.townsVariable, GeoNamesRecord.cityFiles[3]))
    }
}

/// How `weathertag new` starts an entry.
package struct NewEntryConfiguration: Sendable {
    /// A file whose text starts every new entry (`new.template`), its placeholders filled (`NewEntryTemplate`); nil
    /// for the built-in one.
    package var templatePath: String?

    package init(templatePath: String? = nil) {
        self.templatePath = templatePath
    }
}
