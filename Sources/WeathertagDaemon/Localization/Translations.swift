import Glibc
import WeathertagCore

/// The compiled catalogs (`LL/LC_MESSAGES/weathertag.mo`) in a locale folder: `/usr/share/locale` for the package,
/// `.build/locale` for a source build (`make setup` compiles `po/*.po` there), `$WEATHERTAG_LOCALEDIR` when set.
package enum Translations {
    /// The environment variable naming the locale folder.
    package static let variable = MessageLanguages.directoryVariable
    /// The gettext domain: the catalogs' file name.
    package static let domain = MessageLanguages.domain

    /// The words of the first of `languages` (`MessageLanguages`) that has a catalog in `directory`, then of the
    /// others that have one (a message one lacks is looked for in the next); English when none has.
    package static func messages(_ languages: [String], directory: String?) -> Messages {
        if languages.first == MessageLanguages.pseudo { return .pseudo }
        guard let directory, !languages.isEmpty else { return .english }
        var catalogs: [MessageCatalog] = []
        var first: String?
        for language in languages {
            let path = "\(directory)/\(language)/LC_MESSAGES/\(Self.domain).mo"
            guard let bytes = Self.contents(path), let catalog = try? MessageCatalog(mo: bytes) else { continue }
            first = first ?? language
            catalogs.append(catalog)
        }
        return Messages(language: first ?? "en", catalogs: catalogs)
    }

    /// The words the command line speaks: the environment's languages (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`)
    /// from `$WEATHERTAG_LOCALEDIR`.
    package static func messages(environment: [String: String]) -> Messages {
        return Self.messages(MessageLanguages.of(environment: environment), directory: environment[Self.variable])
    }

    private static func contents(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try? FileIO.readAll(fd, path: path, limit: MessageCatalog.maxBytes)
    }
}
