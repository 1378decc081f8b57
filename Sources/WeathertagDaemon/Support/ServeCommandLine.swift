import Logging

/// The daemon's own command line, `serve --config FILE [--log-level LEVEL]` (what the systemd unit runs), read
/// without ArgumentParser; nil for anything else, which ArgumentParser reads, answers and explains as it always did.
///
/// Written by hand, with this reason: ArgumentParser finds its commands, options and completion requests through
/// reflection and dynamic casts, and each first cast scans the binary's 6,000 protocol conformances. Reading
/// `serve --config FILE` through it was half the instructions of a start to READY=1 (16.6 of 32.7 million under
/// callgrind), 6 ms of the 13 on this machine. ArgumentParser stays the definition (`Serve`'s options and their
/// help); this reads only the exact forms it would read the same way, and a test holds the two together.
package struct ServeCommandLine: Equatable, Sendable {
    package var config: String
    /// nil: not given (the command's default).
    package var logLevel: Logger.Level?

    package init(config: String, logLevel: Logger.Level? = nil) {
        (self.config, self.logLevel) = (config, logLevel)
    }

    /// `arguments` without the program's name. Reads `serve`, then `--config FILE`, `--config=FILE` or `-c FILE`,
    /// and `--log-level LEVEL` or `--log-level=LEVEL`, each at most once, in either order. Anything else (help, a
    /// missing, empty or repeated value, a value that looks like an option, an unknown level, another word) is nil.
    package init?(_ arguments: some Collection<String>) {
        var rest = arguments[...]
        guard rest.popFirst() == "serve" else { return nil }
        var config: String?
        var logLevel: Logger.Level?
        var levelGiven = false
        while let argument = rest.popFirst() {
            let (name, attached) = Self.split(argument)
            guard let value = attached ?? rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch name {
            case "--config", "-c":
                guard config == nil else { return nil }
                config = value
            case "--log-level":
                guard !levelGiven, let level = Logger.Level(rawValue: value) else { return nil }
                (logLevel, levelGiven) = (level, true)
            default:
                return nil
            }
        }
        guard let config else { return nil }
        self.init(config: config, logLevel: logLevel)
    }

    /// `--name=value` as its name and value; anything else as itself, with no value (so `-c=FILE`, which is not read
    /// here, is an unknown word).
    private static func split(_ argument: String) -> (name: Substring, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument[...], nil) }
        return (argument[..<equals], String(argument[argument.index(after: equals)...]))
    }
}
