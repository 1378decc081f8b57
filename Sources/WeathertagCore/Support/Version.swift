/// weathertag's version: `--version`, and the User-Agent services that ask for one see (MET Norway).
package enum WeathertagVersion {
    package static let current = "0.1.0"
}
