import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// The one step from a source's answer to the tag a block shows, shared by current weather and history.
@Suite("tag composer")
struct TagComposerTests {
    static let seoul = PlaceName(
        name: "Seoul", localNames: ["ko": "서울", "fr": "Séoul"], region: "Seoul", country: "KR", zone: "Asia/Seoul")

    @Test func theSameAnswerGivesTheSameTagNowAndForThePast() {
        let composer = TagComposer(privacy: PrivacyPolicy(stampCoordinates: .rounded, decimals: 2), lang: "ko")
        var weather = Fixtures.weather
        weather.zone = nil
        let fetched = Date(timeIntervalSince1970: 1_700_000_000)
        let position = Position(latitude: 37.566_535, longitude: 126.977_969, source: "fixed", takenAt: fetched)
        let now = composer.tag(
            TagComposer.Answer(weather: weather, fetchedAt: fetched), at: position, place: Self.seoul,
            iconFile: "/cache/04d@2x.png")
        let then = composer.tag(
            TagComposer.Answer(weather: weather, fetchedAt: fetched, kind: .historical), at: position,
            place: Self.seoul, iconFile: nil)
        for tag in [now, then] {
            #expect(tag.place == "서울", "named in weather.lang")
            #expect(tag.country == "KR" && tag.region == "Seoul")
            #expect(tag.weather.zone == "Asia/Seoul", "a source that named no zone gets the place's")
            #expect(tag.position.latitude == 37.57 && tag.position.longitude == 126.98, "as privacy shows it")
        }
        #expect(now.kind == .current && then.kind == .historical)
        #expect(now.iconFile == "/cache/04d@2x.png" && then.iconFile == nil)
    }

    @Test func aSourcesOwnZoneIsKeptAndNoPlaceLeavesTheStationsName() {
        let composer = TagComposer(privacy: .exact, lang: "en")
        var weather = Fixtures.weather
        weather.zone = "Asia/Tokyo"
        let tag = composer.tag(
            TagComposer.Answer(weather: weather, fetchedAt: Fixtures.observedAt, stale: true), at: Fixtures.position,
            place: Self.seoul, iconFile: nil)
        #expect(tag.weather.zone == "Asia/Tokyo")
        #expect(tag.stale)
        let unnamed = composer.tag(
            TagComposer.Answer(weather: weather, fetchedAt: Fixtures.observedAt), at: Fixtures.position, place: nil,
            iconFile: nil)
        #expect(unnamed.geocodedPlace == nil)
        #expect(unnamed.place != nil && unnamed.place == weather.place, "the station's name, as the source gave it")
    }
}
