#if DEBUG
    import Glibc

    /// Faults the tests provoke in a debug build, to prove what happens when the daemon meets a bug not found yet;
    /// the release binary does not contain this file's code. Armed only with `WEATHERTAG_TEST_FAULTS=1`.
    enum TestFaults {
        static let armed = getenv("WEATHERTAG_TEST_FAULTS").map { String(cString: $0) == "1" } ?? false

        /// The line that makes an entry kill the daemon while it is stamped.
        static let crashLine = "weathertag-test-fault: crash"

        static func crashIfAsked(_ content: [UInt8]) {
            guard Self.armed, String(decoding: content, as: UTF8.self).contains(Self.crashLine) else { return }
            fatalError("test fault: an entry asked the daemon to crash")
        }
    }
#endif
