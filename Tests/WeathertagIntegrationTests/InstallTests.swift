import Foundation
import Testing
import WeathertagTestSupport

/// `make install` and `make uninstall` into a temp DESTDIR, with the binary just built (BINARY=) so that the test
/// does not build a release binary.
@Suite("make install")
struct InstallTests {
    @Test func installsEverythingAndUninstallRemovesIt() async throws {
        let make = try #require(which("make"), "make is needed")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = try directory.makeDirectory("root")
        let variables = ["DESTDIR=\(root)", "PREFIX=/usr", "BINARY=\(DaemonProcess.binary)"]
        let install = try await ChildProcess.run(
            [make, "-s", "-C", Fixtures.repositoryRoot, "install"] + variables, in: directory)
        try #require(install.status == 0, "make install: \(install.stderr)")

        let expected =
            [
                "usr/bin/weathertag",
                "usr/lib/systemd/system/weathertag.service", "usr/lib/systemd/system/weathertag.socket",
                "usr/lib/systemd/user/weathertag.service", "usr/lib/systemd/user/weathertag.socket",
                "usr/lib/sysusers.d/weathertag.conf",
                "etc/weathertag/config.json", "etc/weathertag/config.example.json", "etc/weathertag/config.schema.json",
                "usr/share/man/man1/weathertag.1", "usr/share/man/man5/weathertag.json.5",
                "usr/share/bash-completion/completions/weathertag", "usr/share/zsh/site-functions/_weathertag",
                "usr/share/fish/vendor_completions.d/weathertag.fish",
                // The offline towns index (`make setup` builds it).
                "usr/share/weathertag/towns/cities15000.txt", "usr/share/weathertag/towns/admin1CodesASCII.txt",
                "usr/share/weathertag/towns/alternateNamesV2.txt",
                // The map's shorelines (`make setup` converts them).
                "usr/share/weathertag/map/coastlines.bin",
            ]
            + ["ko", "ja", "zh_CN", "zh_TW", "de", "fr", "es"].map {
                "usr/share/locale/\($0)/LC_MESSAGES/weathertag.mo"
            }
        #expect(Self.files(in: root) == Set(expected))

        // The binary runs; the units start it from where it was installed.
        let version = try await ChildProcess.run([root + "/usr/bin/weathertag", "--version"], in: directory)
        #expect(version.status == 0 && !version.stdout.isEmpty)
        // Stripped: no symbol table (the build's binary has one).
        let sections = try await ChildProcess.run(
            ["/usr/bin/readelf", "-S", root + "/usr/bin/weathertag"], in: directory)
        #expect(sections.status == 0 && !sections.stdout.contains(".symtab"), "the installed binary is not stripped")
        let built = try await ChildProcess.run(["/usr/bin/readelf", "-S", DaemonProcess.binary], in: directory)
        #expect(built.stdout.contains(".symtab"))
        for unit in ["system/weathertag.service", "user/weathertag.service"] {
            let text = try String(contentsOfFile: root + "/usr/lib/systemd/" + unit, encoding: .utf8)
            #expect(text.contains("ExecStart=/usr/bin/weathertag serve"), "\(unit)")
            #expect(!text.contains("/usr/local/bin"), "\(unit)")
            // Every man page the unit names is installed.
            for page in ["weathertag(1)": "man1/weathertag.1", "weathertag.json(5)": "man5/weathertag.json.5"]
            where text.contains("man:" + page.key) {
                #expect(FileManager.default.fileExists(atPath: root + "/usr/share/man/" + page.value))
            }
        }
        // systemd-sysusers makes the system unit's user and group from the installed file.
        if let sysusers = which("systemd-sysusers") {
            let system = try directory.makeDirectory("system")
            _ = try directory.makeDirectory("system/etc")
            let created = try await ChildProcess.run(
                [sysusers, "--root=\(system)", root + "/usr/lib/sysusers.d/weathertag.conf"], in: directory)
            #expect(created.status == 0, "\(created.stderr)")
            let passwd = try String(contentsOfFile: system + "/etc/passwd", encoding: .utf8)
            let group = try String(contentsOfFile: system + "/etc/group", encoding: .utf8)
            #expect(passwd.contains("weathertag:x:") && passwd.contains(":/var/lib/weathertag:"), "\(passwd)")
            #expect(group.split(separator: "\n").contains { $0.hasPrefix("diary:x:") && $0.hasSuffix(":weathertag") })
            let unit = try String(contentsOfFile: root + "/usr/lib/systemd/system/weathertag.service", encoding: .utf8)
            #expect(unit.contains("User=weathertag\n") && unit.contains("SupplementaryGroups=diary\n"))
        } else {
            Issue.record("systemd-sysusers is needed: apt-get install systemd")
        }
        let bash = try String(
            contentsOfFile: root + "/usr/share/bash-completion/completions/weathertag", encoding: .utf8)
        for subcommand in ["serve", "tag", "status", "stamp", "entries", "why", "timeline", "where", "check"] {
            #expect(bash.contains(subcommand), "bash completion lacks \(subcommand)")
        }
        let zsh = try String(contentsOfFile: root + "/usr/share/zsh/site-functions/_weathertag", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef weathertag"))
        let fish = try String(
            contentsOfFile: root + "/usr/share/fish/vendor_completions.d/weathertag.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'weathertag'"))
        let manual = try String(contentsOfFile: root + "/usr/share/man/man1/weathertag.1", encoding: .utf8)
        #expect(manual.contains(".Dt WEATHERTAG 1"))
        // The committed page is regenerated with `make man`: every command and option of the binary is in it.
        let help = try await ChildProcess.run(
            [root + "/usr/bin/weathertag", "--experimental-dump-help"], in: directory)
        let dump = try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any]
        let commands = ((dump?["command"] as? [String: Any])?["subcommands"] as? [[String: Any]]) ?? []
        #expect(commands.count >= 5)
        for command in commands {
            let name = command["commandName"] as? String ?? "?"
            #expect(manual.contains(".It Em \(name)"), "weathertag(1) lacks \(name): run make man")
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                guard let long = (argument["preferredName"] as? [String: Any])?["name"] as? String,
                    (argument["preferredName"] as? [String: Any])?["kind"] as? String == "long"
                else { continue }
                #expect(manual.contains(" -\(long)"), "weathertag(1) lacks \(name) --\(long): run make man")
            }
        }

        // Your settings survive an uninstall; everything else goes.
        try Data("{\"inbox\": {\"path\": \"/srv/diary\"}}\n".utf8)
            .write(to: URL(fileURLWithPath: root + "/etc/weathertag/config.json"))
        let uninstall = try await ChildProcess.run(
            [make, "-s", "-C", Fixtures.repositoryRoot, "uninstall"] + variables, in: directory)
        #expect(uninstall.status == 0, "make uninstall: \(uninstall.stderr)")
        #expect(Self.files(in: root) == ["etc/weathertag/config.json"])
        #expect(uninstall.stdout.contains("kept /etc/weathertag/config.json"))
    }

    /// Regular files under `root`, relative to it.
    private static func files(in root: String) -> Set<String> {
        var files: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.insert(path)
            }
        }
        return files
    }
}
