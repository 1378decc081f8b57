import FoundationEssentials

/// The text a new entry starts with (`weathertag new`): the built-in front matter, or `new.template`'s file with
/// its placeholders filled: `{{title}}` (as a YAML scalar, quoted where it must be), `{{date}}` (the instant with
/// its offset, `2026-11-26T09:41:00+01:00`), `{{day}}` (`2026-11-26`) and `{{time}}` (`09:41`). Anything else is
/// kept as written.
package struct NewEntryTemplate: Sendable, Equatable {
    package let text: String?

    /// `text` nil: the built-in template (`title` when there is one, and `date`).
    package init(text: String?) {
        self.text = text
    }

    package func fill(title: String?, date: Date, utcOffset: Int) -> String {
        let stamp = date.iso8601(utcOffset: utcOffset)
        let clock = WallClock(date, utcOffset: utcOffset)
        let title = title?.trimmingWhitespaceAndNewlines()
        guard let text = self.text else {
            var lines = ["---"]
            if let title, !title.isEmpty { lines.append("title: \(YAMLScalar.string(title))") }
            lines.append("date: \(stamp)")
            lines.append("---")
            return lines.joined(separator: "\n") + "\n\n"
        }
        return
            text
            .replacing("{{title}}", with: title.map { $0.isEmpty ? "" : YAMLScalar.string($0) } ?? "")
            .replacing("{{date}}", with: stamp)
            .replacing("{{day}}", with: String(cFormat: "%04d-%02d-%02d", clock.year, clock.month, clock.day))
            .replacing("{{time}}", with: String(cFormat: "%02d:%02d", clock.hour, clock.minute))
    }
}
