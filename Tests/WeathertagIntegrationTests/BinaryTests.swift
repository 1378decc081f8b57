import Foundation
import Testing
import WeathertagTestSupport

/// What the built binary is made of.
@Suite("the binary") struct BinaryTests {
    /// It links FoundationEssentials and not Foundation, whose internationalization brings ICU (34 MB of data,
    /// most of the binary and of its resident memory before issue 21). A dependency that imports Foundation would
    /// bring it back: this is where that shows.
    @Test func linksNoICU() async throws {
        let dynamic = try await ChildProcess.run(
            ["/usr/bin/readelf", "-d", DaemonProcess.binary], in: TemporaryDirectory())
        #expect(dynamic.status == 0, "\(dynamic.stderr)")
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libFoundationEssentials") }, "\(needed)")
        for library in ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU", "libicu"] {
            #expect(!needed.contains { $0.contains(library) }, "links \(library)")
        }
    }
}
