import WeathertagFuzzing

/// `make fuzz`: libFuzzer on the front matter readers' check; otherwise a replayer of the files given as arguments.
@main
struct Fuzz {
    static func main() {
        FuzzDriver.main(FuzzChecks.frontMatter)
    }
}
