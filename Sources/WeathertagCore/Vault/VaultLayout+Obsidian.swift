/// An Obsidian vault's settings, as its core plugins and the community plugins diarists use write them (recorded from
/// public vaults: Tests/WeathertagCoreTests/Recorded/Vaults/PROVENANCE.md):
///
/// | file | entries | templates |
/// |---|---|---|
/// | `.obsidian/daily-notes.json` (Daily notes) | `folder` (empty: the root) | `template` (`.md` added when absent) |
/// | `.obsidian/templates.json` (Templates) | | `folder` |
/// | `.obsidian/plugins/templater-obsidian/data.json` (Templater) | | `templates_folder`, `folder_templates[].template`, `file_templates[].template` |
/// | `.obsidian/plugins/periodic-notes/data.json` (Periodic Notes) | `daily` … `yearly`: `folder` where `enabled` | their `template` |
/// | `.obsidian/plugins/journals/data.json` (Journals) | `journals.*.folder`, up to its first `{{date}}` | `journals.*.templates[]` |
///
/// A vault whose settings name no folder for daily notes keeps them where Obsidian does by default: in its root,
/// named by their date.
extension VaultLayout {
    static func obsidian(root: String, inbox: String, files: any ConfigurationFiles) -> VaultLayout {
        let inside = Self.inboxInside(root: root, inbox: inbox)
        var layout = VaultLayout(app: .obsidian, root: root, inboxIsRoot: inside.isEmpty)
        var reader = SettingsReader(root: root, files: files)
        var entries: [Place] = []
        var folders: [Place] = []
        var templates: [Place] = []

        let dailyNotes = "Daily notes, .obsidian/daily-notes.json"
        if let daily = reader.json(".obsidian/daily-notes.json") {
            entries += Self.folder(daily["folder"], setting: dailyNotes, emptyIsRoot: true)
            templates += Self.template(daily["template"], setting: dailyNotes)
        }
        if let core = reader.json(".obsidian/templates.json") {
            folders += Self.folder(core["folder"], setting: "Templates, .obsidian/templates.json", emptyIsRoot: false)
        }
        let templater = "Templater, .obsidian/plugins/templater-obsidian/data.json"
        if let settings = reader.json(".obsidian/plugins/templater-obsidian/data.json") {
            folders += Self.folder(settings["templates_folder"], setting: templater, emptyIsRoot: false)
            for key in ["folder_templates", "file_templates"] {
                for pair in Self.array(settings[key]) {
                    templates += Self.template(pair["template"], setting: templater)
                }
            }
        }
        let periodic = "Periodic Notes, .obsidian/plugins/periodic-notes/data.json"
        if let settings = reader.json(".obsidian/plugins/periodic-notes/data.json") {
            for period in ["daily", "weekly", "monthly", "quarterly", "yearly"] {
                guard let note = settings[period] else { continue }
                templates += Self.template(note["template"], setting: periodic)
                if case .bool(true)? = note["enabled"] {
                    entries += Self.folder(note["folder"], setting: periodic, emptyIsRoot: true)
                }
            }
        }
        let journals = "Journals, .obsidian/plugins/journals/data.json"
        if let settings = reader.json(".obsidian/plugins/journals/data.json"),
            case .object(let members)? = settings["journals"]
        {
            for (_, journal) in members {
                // `Journal/01 Daily/{{date:YYYY}}/{{date:MM}}`: the notes are below the part before the dates.
                if case .string(let folder)? = journal["folder"] {
                    let fixed = folder.firstRange(of: "{{").map { String(folder[..<$0.lowerBound]) } ?? folder
                    let whole = fixed.hasSuffix("/") || fixed == folder
                    let stem = whole ? fixed : Paths.deletingLastComponent(fixed)
                    entries += Self.folder(.string(stem), setting: journals, emptyIsRoot: true)
                }
                for template in Self.array(journal["templates"]) {
                    templates += Self.template(template, setting: journals)
                }
            }
        }
        if entries.isEmpty {
            entries.append(Place("", setting: "Daily notes' default, the vault's root"))
        }

        for place in entries where layout.inboxIsRoot {
            Self.adding(place, to: &layout.entries)
        }
        for place in folders {
            guard let path = Self.relative(place.path, inside: inside) else { continue }
            Self.adding(Place(path, setting: place.setting), to: &layout.templateFolders)
        }
        for place in templates {
            guard let path = Self.relative(place.path, inside: inside),
                !layout.templateFolders.contains(where: { $0.holds(path) })
            else { continue }
            Self.adding(Place(path, setting: place.setting), to: &layout.templateFiles)
        }
        layout.problems = reader.problems
        return layout
    }

    /// A folder setting's place (relative to the vault's root); none for a setting that is not a string or names
    /// no folder (`""`, `/`: Obsidian's "none" for templates, its root for daily notes).
    private static func folder(_ value: JSONValue?, setting: String, emptyIsRoot: Bool) -> [Place] {
        guard case .string(let text)? = value, let path = Self.vaultPath(text) else { return [] }
        guard !path.isEmpty || emptyIsRoot else { return [] }
        return [Place(path, setting: setting)]
    }

    private static func template(_ value: JSONValue?, setting: String) -> [Place] {
        guard case .string(let text)? = value, let path = Self.templateFile(text) else { return [] }
        return [Place(path, setting: setting)]
    }

    private static func array(_ value: JSONValue?) -> [JSONValue] {
        guard case .array(let items)? = value else { return [] }
        return items
    }
}

/// Reads a vault's settings files, noting those that cannot be read as what they should be.
struct SettingsReader {
    let root: String
    let files: any ConfigurationFiles
    var problems: [String] = []

    /// The JSON at `path` (relative to the vault's root); nil when there is no such file or it is not JSON (noted).
    mutating func json(_ path: String) -> JSONValue? {
        guard let bytes = self.files.contents(VaultLayout.join(self.root, path)) else { return nil }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            self.problems.append("\(path) is not JSON (\(error)), so its settings are not followed")
            return nil
        }
    }

}
