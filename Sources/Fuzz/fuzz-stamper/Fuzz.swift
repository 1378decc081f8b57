import WeathertagFuzzing

/// `make fuzz`: libFuzzer on the stamper check; otherwise a replayer of the files given as arguments.
@main
struct Fuzz {
    static func main() {
        FuzzDriver.main(FuzzChecks.stamper)
    }
}
