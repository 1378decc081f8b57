import ArgumentParser
import WeathertagCore

extension Import {
    struct Jrnl: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "jrnl",
            abstract: "Import jrnl's JSON export (jrnl --export json).",
            discussion: """
                jrnl keeps no zone: its times are read in the machine's zone, or in --zone. It keeps no weather \
                either: every entry gets its hour's weather from history.
                """)

        @OptionGroup var options: Options

        @Option(help: "The zone jrnl's times were written in (Europe/Zurich); the machine's by default.")
        var zone: String?

        @Argument(help: "The export (jrnl --export json > export.json).")
        var path: String

        func validate() throws {
            if let zone, Zone.named(zone) == nil {
                throw ValidationError("--zone \(zone) is no zone of the tz database")
            }
        }

        func run() async throws {
            let zone = self.zone.flatMap(Zone.named) ?? .current
            try await Import.run(options: self.options, path: self.path) { bytes throws(ImportError) in
                try JrnlExport.read(bytes, zone: zone)
            }
        }
    }
}
