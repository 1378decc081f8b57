#if DEBUG
    import Glibc

    /// Faults the tests provoke in a debug build, to prove what happens when the daemon meets a bug not found yet;
    /// the release binary does not contain this file's code. Armed only with `WEATHERTAG_TEST_FAULTS=1`.
    enum TestFaults {
        static let armed = getenv("WEATHERTAG_TEST_FAULTS").map { String(cString: $0) == "1" } ?? false

        /// The lines that make an entry kill the daemon while it is stamped: a trap (`fatalError`), and a stack
        /// overflow (SIGSEGV with no stack left to handle it on, but the crash guard's alternate one).
        static let crashLine = "weathertag-test-fault: crash"
        static let overflowLine = "weathertag-test-fault: overflow"

        static func crashIfAsked(_ content: [UInt8]) {
            guard Self.armed else { return }
            let text = String(decoding: content, as: UTF8.self)
            if text.contains(Self.crashLine) { fatalError("test fault: an entry asked the daemon to crash") }
            if text.contains(Self.overflowLine) { _ = Self.overflow(0) }
        }

        @inline(never)
        private static func overflow(_ depth: Int) -> Int {
            var frame = (depth, depth, depth, depth, depth, depth, depth, depth)
            return depth < Int.max
                ? withUnsafeMutablePointer(to: &frame) { $0.pointee.0 } + Self.overflow(depth + 1) : 0
        }
    }
#endif
