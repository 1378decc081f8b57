/// A top-level section of the configuration file that belongs to a plugin, not to weathertag as a whole
/// (`openweather`, `open_meteo`, `met_norway`): its keys, defaults and errors are written beside the plugin's code, in
/// its own file, and it is registered with the plugin (`Plugin.sections`, `GeocoderPlugin.sections`).
///
/// `Configuration.decode` decodes every registered section at load, from `{}` when the file has none (so a bad one is
/// an error even while its source is not listed, as it always was), and hands the values to the plugins' settings in
/// `PluginSections`. Core knows none of them by name.
package protocol ConfigurationSection: Sendable {
    /// Its key at the top level (`open_meteo`).
    static var name: String { get }
    /// Every key it accepts, with its schema (`ConfigKey`); others are warned about. config.schema.json is made of
    /// these.
    static var declaredKeys: [ConfigKey] { get }
    /// What the section is for, in config.schema.json; nil for none.
    static var description: String? { get }
    /// Keys it accepts that now belong to a common section, read there when the common one is not given, with a
    /// warning saying where they go: `["units": "weather.units"]`.
    static var movedKeys: [String: String] { get }

    /// Decodes `object` (its path is `name`), naming the field in every error.
    init(_ object: ConfigObject, context: SectionContext, warnings: inout [String]) throws(ConfigurationError)
}

extension ConfigurationSection {
    package static var movedKeys: [String: String] { [:] }
    package static var description: String? { nil }
    /// The names of `declaredKeys`.
    package static var keys: Set<String> { Set(Self.declaredKeys.map(\.name)) }

    /// `init` through the metatype, keeping its typed throw (an existential metatype's `init` loses it).
    static func decode(
        _ object: ConfigObject, context: SectionContext, warnings: inout [String]
    ) throws(ConfigurationError) -> any ConfigurationSection {
        try Self(object, context: context, warnings: &warnings)
    }
}

/// What a section's decoder may use besides its keys: where relative paths start, the environment
/// (`$CREDENTIALS_DIRECTORY`, a key's variable), and the files (a key file is read at load).
package struct SectionContext: Sendable {
    package var paths: PathResolver
    package var files: any ConfigurationFiles

    package init(paths: PathResolver, files: any ConfigurationFiles) {
        self.paths = paths
        self.files = files
    }
}

/// The plugins' sections as decoded at load, each read by its type.
package struct PluginSections: Sendable {
    private var values: [String: any ConfigurationSection]

    package init(_ values: [any ConfigurationSection] = []) {
        self.values = [:]
        for value in values { self.values[type(of: value).name] = value }
    }

    /// The decoded section of type `Section`. Every section a plugin reads is registered with it, so it is always
    /// decoded before the plugin's settings are; anything else is a plugin written wrongly.
    package subscript<Section: ConfigurationSection>(_ section: Section.Type) -> Section {
        guard let value = self.values[Section.name] as? Section else {
            preconditionFailure("the section \(Section.name) is read by a plugin that does not register it")
        }
        return value
    }

    /// Decodes every section in `sections` from `root` (from `{}` where the file has none), warning about unknown
    /// keys.
    static func decode(
        _ sections: [any ConfigurationSection.Type], from root: ConfigObject, context: SectionContext,
        warnings: inout [String]
    ) throws(ConfigurationError) -> PluginSections {
        var decoded: [any ConfigurationSection] = []
        for section in sections {
            var object = try ConfigObject(.object([]), path: section.name)
            if let given = try root.object(section.name) { object = given }
            warnings += object.unknownKeys(known: section.keys)
            decoded.append(try section.decode(object, context: context, warnings: &warnings))
        }
        return PluginSections(decoded)
    }
}
