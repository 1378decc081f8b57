#if FUZZING
    import CFuzzer
    import Glibc
#endif

/// The fuzz executables' `main`. Built with `-DFUZZING -sanitize=fuzzer` (`make fuzz`) it hands `check` to libFuzzer;
/// otherwise it replays the files or folders given as arguments through `check`.
package enum FuzzDriver {
    #if FUZZING
        /// libFuzzer's callback is a C function pointer and cannot capture: the check waits here.
        nonisolated(unsafe) private static var check: ([UInt8]) -> Void = { _ in }
    #endif

    package static func main(_ check: @escaping ([UInt8]) -> Void) {
        #if FUZZING
            Self.check = check
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    FuzzDriver.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                }
            )
        #else
            CorpusReplay.run(check)
        #endif
    }
}
