import WeathertagFuzzing

/// `make fuzz`: libFuzzer on the request check; otherwise a replayer of the files given as arguments.
@main
struct Fuzz {
    static func main() {
        FuzzDriver.main(FuzzChecks.request)
    }
}
