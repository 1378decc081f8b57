import Testing
import WeathertagCore

/// `Units`' conversions, the one place any reader converts: the fixed points of the scales, and a round trip.
@Suite("Units")
struct UnitsTests {
    @Test func temperaturesMeetAtTheScalesFixedPoints() {
        #expect(Units.imperial.temperature(celsius: -40) == -40)
        #expect(Units.imperial.temperature(celsius: 100) == 212)
        #expect(Units.standard.temperature(celsius: 0) == 273.15)
        #expect(Units.metric.temperature(celsius: 21.5) == 21.5)
        #expect(Units.metric.temperature(32, from: .imperial) == 0)
        #expect(Units.metric.temperature(273.15, from: .standard) == 0)
        #expect(abs(Units.imperial.temperature(373.15, from: .standard) - 212) < 1e-9)
        for units in Units.allCases {
            for value in [-30.0, 0, 12.3, 45] {
                let there = units.temperature(value, from: .metric)
                #expect(abs(Units.metric.temperature(there, from: units) - value) < 1e-9, "\(units) \(value)")
            }
        }
    }

    @Test func speedsAreMilesAnHourOnlyForImperial() {
        #expect(abs(Units.imperial.speed(metresPerSecond: 0.447_04) - 1) < 1e-12)
        #expect(abs(Units.imperial.speed(metresPerSecond: 10) - 22.369_362_920_544) < 1e-9)
        #expect(Units.metric.speed(metresPerSecond: 10) == 10)
        #expect(Units.standard.speed(metresPerSecond: 10) == 10)
        #expect(abs(Units.metric.speed(kilometresPerHour: 36) - 10) < 1e-12)
        #expect(abs(Units.imperial.speed(kilometresPerHour: 1.609_344) - 1) < 1e-12)
    }
}
