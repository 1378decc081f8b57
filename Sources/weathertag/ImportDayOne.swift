import ArgumentParser
import WeathertagCore

extension Import {
    struct DayOne: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dayone",
            abstract: "Import Day One's JSON export (Journal.json, or the export's .zip with its photos).",
            discussion: """
                Day One's weather is kept as Day One recorded it (its words, its service's name); its codes of every \
                era (HAMweather, Forecast.io, Weather Underground, Apple Weather) become a condition and an icon. The \
                text's needless Markdown escapes are taken away, and photos are copied beside the entry (photos/) \
                with their links rewritten. Reading a .zip needs unzip.
                """)

        @OptionGroup var options: Options

        @Argument(help: "Journal.json, or the export's .zip.")
        var path: String

        func run() async throws {
            try await Import.run(options: self.options, path: self.path) { bytes throws(ImportError) in
                try DayOneExport.read(bytes)
            }
        }
    }
}
