import WeathertagFuzzing

/// `make fuzz`: libFuzzer on the json check; otherwise a replayer of the files given as arguments.
@main
struct Fuzz {
    static func main() {
        FuzzDriver.main(FuzzChecks.json)
    }
}
