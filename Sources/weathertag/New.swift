import ArgumentParser
import FoundationEssentials
import Glibc
import WeathertagCore
import WeathertagDaemon

struct New: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Start the next entry: make its file in the inbox, stamp it, open it in your editor.",
        discussion: """
            The file is named and foldered by inbox.layout (default %Y/%m/%Y-%m-%d-%H%M.md) for now or --at (in a \
            vault's root, below its daily notes' folder), and \
            starts from new.template (placeholders {{title}}, {{date}}, {{day}}, {{time}}) or a front matter with \
            title and date. It is stamped at once, as `stamp` would (current weather from the daemon or the \
            configured sources; an --at in the past gets its own hour's weather from history), then opened in \
            $VISUAL or $EDITOR (else vi) when there is a terminal; without one its path is printed. A file of that \
            name is opened as it is, never written over.
            """)

    @OptionGroup var connection: DaemonConnection

    @Option(help: "When it is written (\(EntryTime.grammar)), instead of now.")
    var at: String?

    @Flag(help: "Do not open an editor; print the path.")
    var noEdit = false

    @Argument(help: "Its title.")
    var title: [String] = []

    func validate() throws {
        if let at, EntryTime.given(at) == nil { throw ValidationError("--at \(at) is not \(EntryTime.grammar)") }
    }

    func run() async throws {
        guard let configurationPath = self.connection.configurationFile() else {
            printError("new needs a configuration (its inbox.path): give --config")
            throw ExitCode(ExitStatus.unavailable)
        }
        let runtime = Runtime(logLevel: .error)
        let factory: ServiceFactory
        do {
            factory = runtime.factory(try runtime.loadConfiguration(configurationPath))
        } catch {
            printError("configuration error: \(error)")
            throw ExitCode(ExitStatus.configuration)
        }
        let configuration = factory.configuration
        let given = self.at.flatMap { EntryTime.given($0) }
        let date = given?.moment ?? Date()
        // On the clock `--at` names (`2019-05-01T01:00:00+09:00` is the first of May where it was written, whatever
        // this machine's zone); without one, on this machine's, where the entry is being written.
        let offset = (given?.writtenIn ?? .current).secondsFromGMT(for: date)
        // In a vault's root, in its daily notes' folder: elsewhere it would be no entry.
        let entries = configuration.inbox.tree.newEntriesFolder
        let folder = entries.isEmpty ? configuration.inbox.path : configuration.inbox.path + "/" + entries
        let path = folder + "/" + configuration.inbox.layout.path(for: WallClock(date, utcOffset: offset))

        var template: String?
        if let templatePath = configuration.newEntry.templatePath {
            var size = stat()
            guard stat(templatePath, &size) == 0, size.st_size <= 1 << 20,
                let data = FileManager.default.contents(atPath: templatePath)
            else {
                printError("new.template \(templatePath): cannot be read, or is larger than 1 MiB")
                throw ExitCode(ExitStatus.noInput)
            }
            template = String(decoding: data, as: UTF8.self)
        }
        let title = self.title.isEmpty ? nil : self.title.joined(separator: " ")
        let text = NewEntryTemplate(text: template).fill(title: title, date: date, utcOffset: offset)
        switch NewEntryFile.create(path, text: text) {
        case .created:
            try await self.stamp(path, factory: factory, explicitTime: given)
        case .existing:
            printError("\(path) is there already: opened as it is")
        case .failed(let error):
            printError("cannot write \(path): \(error)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        guard !self.noEdit, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            print(path)
            return
        }
        Self.edit(path)
    }

    /// Stamps the new file as `stamp` would; a file that cannot be stamped yet is said so and left for the daemon.
    private func stamp(_ path: String, factory: ServiceFactory, explicitTime: EntryTime?) async throws {
        let configuration = factory.configuration
        let history = factory.historyService(store: nil)
        let current = CurrentWeather(
            socketPath: try? self.connection.socketPath(ProcessInfo.processInfo.environment),
            loaded: .success(factory), configurationPath: self.connection.configurationFile() ?? "")
        let backdating = BackdatingPolicy(
            threshold: configuration.stamp.backdatedAfter, asksHistory: history != nil, explicitTime: explicitTime)
        let outcomes = try await factory.withProvidersRunning {
            await FileStamper.stamp(
                [path], currentWeather: { await current.get().map { $0.tag }.mapError { $0 as any Error } },
                fields: configuration.stamp.fields, options: StampOptions(configuration, backdating: backdating),
                history: history)
        }
        switch outcomes[path]?.result {
        case .stamped?, .alreadyStamped?: break
        case let result?: printError("\(path): \(Stamp.describe(result)); the daemon stamps it when it can")
        case nil: printError("\(path): not stamped; the daemon stamps it when it can")
        }
    }

    /// Replaces this process with the editor on `path`: $VISUAL, else $EDITOR, else vi; run by the shell, as
    /// editors are given with their options (`code -w`).
    private static func edit(_ path: String) -> Never {
        let environment = ProcessInfo.processInfo.environment
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let arguments = ["/bin/sh", "-c", editor + " \"$1\"", "sh", path]
        var pointers = arguments.map { strdup($0) } + [nil]
        execv("/bin/sh", &pointers)
        printError("cannot start the editor (\(editor)): \(SystemError("execv", path: "/bin/sh"))")
        Glibc.exit(ExitStatus.software)
    }
}
