import Foundation
import Testing
import WeathertagCore
import WeathertagTestSupport

/// MET Norway's symbols and answers, the sun, Open-Meteo's air and GeoNames' lines: pure, no network.
@Suite("MET Norway, the sun, the air and GeoNames")
struct KeylessSourcesTests {
    @Test func everyMETSymbolHasAConditionAnIconAndWords() throws {
        let groups: Set<String> = ["Clear", "Clouds", "Fog", "Rain", "Snow", "Thunderstorm"]
        #expect(METSymbolCode.legend.count == 41)
        for base in METSymbolCode.legend {
            for variant in ["", "_day", "_night", "_polartwilight"] {
                let symbol = try #require(METSymbolCode(base + variant), "\(base + variant)")
                #expect(groups.contains(symbol.condition), "\(base)")
                #expect(OpenWeatherAPI.isValidIconCode(symbol.icon(isDay: true)), "\(base)")
                #expect((200...804).contains(symbol.openWeatherID), "\(base)")
                #expect(!symbol.description(in: "en").isEmpty && !symbol.description(in: "ko").isEmpty)
            }
        }
        #expect(METSymbolCode("sunnyish") == nil && METSymbolCode("lightsfog") == nil && METSymbolCode("") == nil)
    }

    @Test func theSymbolsAsOpenWeatherSaysThem() throws {
        func symbol(_ code: String) throws -> METSymbolCode { try #require(METSymbolCode(code)) }
        #expect(try symbol("clearsky_night").icon(isDay: true) == "01n", "the variant beats the sun")
        #expect(try symbol("cloudy").icon(isDay: false) == "04n", "no variant: the sun decides")
        #expect(try symbol("partlycloudy_polartwilight").icon(isDay: true) == "03n")
        #expect(try symbol("fair_day").condition == "Clouds" && symbol("fair_day").openWeatherID == 801)
        #expect(
            try symbol("lightrainshowers_night").openWeatherID == 520
                && symbol("lightrainshowers_night").iconNumber == "09")
        #expect(try symbol("heavyrain").openWeatherID == 502 && symbol("heavyrain").iconNumber == "10")
        #expect(try symbol("sleet").condition == "Snow" && symbol("sleet").openWeatherID == 611)
        #expect(
            try symbol("heavysnowandthunder").condition == "Thunderstorm"
                && symbol("heavysnowandthunder").openWeatherID == 202)
        #expect(try symbol("lightssleetshowersandthunder_day").openWeatherID == 200, "MET's own spelling")
        #expect(try symbol("heavysnowshowers_polartwilight").description(in: "en") == "heavy snow showers")
        #expect(try symbol("rainshowersandthunder_day").description(in: "ko") == "뇌우를 동반한 소나기")
        #expect(try symbol("lightsnow").description(in: "ko_KR") == "약한 눈" && symbol("fog").iconNumber == "50")
        #expect(try symbol("lightsnow").isSnow && !symbol("lightrain").isSnow)
    }

    @Test func theSunRisesAndSetsWhereItShould() throws {
        // London, midsummer 2026: 04:43 and 21:21 BST, that is 03:43 and 20:21 UTC (within two minutes).
        let midsummer = Date(timeIntervalSince1970: 1_782_043_200)  // 2026-06-21T12:00:00Z
        guard case .risesAndSets(let rise, let set) = Sun.day(latitude: 51.5074, longitude: -0.1278, at: midsummer)
        else {
            Issue.record("London has a sunrise in June")
            return
        }
        let expectedRise = Date(timeIntervalSince1970: 1_782_013_380)  // 03:43 UTC
        let expectedSet = Date(timeIntervalSince1970: 1_782_073_260)  // 20:21 UTC
        #expect(abs(rise.timeIntervalSince(expectedRise)) < 150 && abs(set.timeIntervalSince(expectedSet)) < 150)
        #expect(Sun.isUp(latitude: 51.5074, longitude: -0.1278, at: midsummer))
        #expect(!Sun.isUp(latitude: 51.5074, longitude: -0.1278, at: midsummer.addingTimeInterval(12 * 3600)))
        // Tromsø: midnight sun in June, polar night in December.
        #expect(Sun.day(latitude: 69.65, longitude: 18.96, at: midsummer) == .alwaysUp)
        let midwinter = Date(timeIntervalSince1970: 1_797_854_400)  // 2026-12-21T12:00:00Z
        #expect(Sun.day(latitude: 69.65, longitude: 18.96, at: midwinter) == .alwaysDown)
        // Seoul, the other side of the world.
        guard case .risesAndSets(let seoulRise, _) = Sun.day(latitude: 37.5665, longitude: 126.978, at: midwinter)
        else {
            Issue.record("Seoul has a sunrise in December")
            return
        }
        // 07:43 KST, 22:43 UTC the day before.
        let seoulExpected = Date(timeIntervalSince1970: 1_797_806_580)
        #expect(abs(seoulRise.timeIntervalSince(seoulExpected)) < 150, "\(seoulRise)")
        #expect(abs(apparentTemperature(celsius: 20, humidity: 50, windSpeed: 2) - 18.4) < 0.2)
    }

    static let metAnswer = """
        {"type": "Feature", "properties": {"meta": {"updated_at": "2026-11-24T10:00:00Z"}, "timeseries": [
          {"time": "2026-11-24T10:00:00Z", "data": {
            "instant": {"details": {"air_pressure_at_sea_level": 1012.3, "air_temperature": 6.7,
              "cloud_area_fraction": 96.1, "relative_humidity": 83.0, "wind_from_direction": 214.5, "wind_speed": 5.2}},
            "next_1_hours": {"summary": {"symbol_code": "lightsnowshowers_day"}, "details": {"precipitation_amount": 0.3}},
            "next_6_hours": {"summary": {"symbol_code": "cloudy"}}}}]}}
        """

    @Test func aMETAnswerBecomesTheSameWeather() throws {
        let position = Fixtures.request(59.9139, 10.7522)
        #expect(
            METNorwayAPI.url(baseURL: "https://api.met.no/", at: position)
                == "https://api.met.no/weatherapi/locationforecast/2.0/compact?lat=59.9139&lon=10.7522")
        #expect(
            METNorwayAPI.url(baseURL: "https://api.met.no", at: Fixtures.request(46.2, 6.14)).hasSuffix(
                "lat=46.2&lon=6.14"))
        #expect(
            METNorwayAPI.userAgent(version: "0.1.0", contact: "me@example.org") == "weathertag/0.1.0 (me@example.org)")
        let utc = Zone.fixed(secondsFromGMT: 3600)
        let weather = try METNorwayAPI.decode(
            HTTPResponse(status: 200, body: Array(Self.metAnswer.utf8)), at: position, units: .imperial, lang: "en",
            timeZone: utc)
        #expect(weather.condition == "Snow" && weather.description == "light snow showers" && weather.code == 620)
        #expect(weather.icon == "13d" && weather.temperature == 44.06 && weather.windSpeed == 11.63)
        #expect(
            weather.humidity == 83 && weather.pressure == 1012 && weather.clouds == 96 && weather.windDegrees == 215)
        #expect(weather.snow1h == 0.3 && weather.rain1h == nil && weather.utcOffset == 3600)
        #expect(weather.feelsLike != nil && weather.sunrise != nil && weather.sunset != nil)
        #expect(weather.observedAt == Date(timeIntervalSince1970: 1_795_514_400))

        #expect {
            try METNorwayAPI.decode(HTTPResponse(status: 403, body: []), at: position, units: .metric, lang: "en")
        } throws: { "\($0)".contains("met_norway.contact") }
        #expect {
            try METNorwayAPI.decode(
                HTTPResponse(status: 200, body: Array("{}".utf8)), at: position, units: .metric, lang: "en")
        } throws: { ($0 as? WeatherError)?.kind == .badResponse }
    }

    @Test func openMeteosAirOnTheEuropeanIndex() throws {
        let body =
            #"{"current": {"time": 1795996800, "european_aqi": 63.4, "pm2_5": 21.0, "pm10": 30.5, "ozone": 40.1, "nitrogen_dioxide": 18.2}}"#
        let air = try OpenMeteoAPI.decodeAirQuality(HTTPResponse(status: 200, body: Array(body.utf8)))
        #expect(air == AirQuality(aqi: 63, scale: .european, pm2_5: 21, pm10: 30.5, o3: 40.1, no2: 18.2))
        #expect(air.label == "poor")
        let labels = [0, 19, 20, 45, 59, 60, 80, 100, 101].map { AirQuality(aqi: $0, scale: .european).label }
        #expect(
            labels == [
                "good", "good", "fair", "moderate", "moderate", "poor", "very_poor", "very_poor", "extremely_poor",
            ])
        #expect(AirQuality(aqi: 2).label == "fair", "OpenWeather's 1–5 as before")
        let url = OpenMeteoAPI.airQualityURL(
            baseURL: "https://air-quality-api.open-meteo.com", at: Fixtures.request(46.2, 6.14))
        #expect(
            url.hasPrefix("https://air-quality-api.open-meteo.com/v1/air-quality?latitude=46.20000&longitude=6.14000"))
        #expect(url.contains("european_aqi,pm2_5,pm10,ozone,nitrogen_dioxide"))
        // A cache written before there were two scales reads as OpenWeather's.
        let old = try JSONDecoder().decode(AirQuality.self, from: Data(#"{"aqi": 3, "pm2_5": 7}"#.utf8))
        #expect(old.scale == .openWeather && old.label == "moderate")
        // The block says the scale only for the European index, so OpenWeather's blocks stay as they were.
        var tag = Fixtures.tag
        tag.airQuality = air
        #expect(tag.stampLines.contains("    scale: european"))
        tag.airQuality = AirQuality(aqi: 2)
        #expect(!tag.stampLines.contains { $0.contains("scale") })
    }

    @Test func geoNamesLinesAndRegions() throws {
        let line =
            "2660646\tGenève\tGeneve\tGeneva,Genf\t46.20222\t6.14569\tP\tPPLA\tCH\t\tGE\t\t\t\t183981\t\t375\tEurope/Zurich\t2024-01-01"
        let record = try #require(GeoNamesRecord(line: Substring(line)))
        #expect(record.id == 2_660_646 && record.name == "Genève" && record.country == "CH" && record.admin1 == "GE")
        #expect(record.latitude == 46.20222 && record.longitude == 6.14569 && record.population == 183_981)
        #expect(GeoNamesRecord(line: "not\ta\tplace") == nil)
        #expect(GeoNamesRecord(line: Substring(line.replacingOccurrences(of: "46.20222", with: "146.2"))) == nil)
        let region = try #require(GeoNamesRecord.region(line: "KR.11\tSeoul\tSeoul\t1835847"))
        #expect(region.code == "KR.11" && region.name == "Seoul")
        #expect(GeoNamesRecord.region(line: "") == nil)
    }

    /// `alternateNamesV2.txt` as GeoNames writes it: names in languages, short before preferred before others;
    /// postal codes, links, airport codes, colloquial and historic names are not a town's name in a language.
    @Test func namesInOtherLanguagesAsGeoNamesListsThem() throws {
        let short = try #require(GeoNamesRecord.localName(line: "1\t1835848\tko\t서울\t\t1\t\t\t\t"))
        #expect(short == GeoNamesRecord.LocalName(id: 1_835_848, language: "ko", name: "서울", rank: 2))
        let preferred = try #require(GeoNamesRecord.localName(line: "2\t1835848\tko\t서울특별시\t1\t\t\t\t\t"))
        #expect(preferred.rank == 1 && preferred.rank < short.rank)
        #expect(GeoNamesRecord.localName(line: "3\t1835848\tfil\tSeoul\t\t\t\t\t\t")?.language == "fil")
        for other in [
            "4\t1835848\tlink\thttps://en.wikipedia.org/wiki/Seoul\t\t\t\t\t\t",
            "5\t1835848\tpost\t100-011\t\t\t\t\t\t", "6\t1835848\tiata\tSEL\t\t\t\t\t\t",
            "7\t1835848\tfr_1793\tX\t\t\t\t\t\t", "8\t1835848\t\tSeoul\t\t\t\t\t\t",
            "9\t1835848\tko\t경성\t\t\t\t1\t\t", "10\t1275339\ten\tThe Big Mango\t\t\t1\t\t\t",
            "11\tnot\tko\t서울\t\t\t\t\t\t", "12\t1835848\tko",
        ] {
            #expect(GeoNamesRecord.localName(line: Substring(other)) == nil, "\(other)")
        }
    }
}
