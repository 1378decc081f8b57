import FoundationEssentials

/// The one step from a source's answer to the tag a block shows, for the weather of now (`WeatherService`) and of a
/// back-dated entry's time (`HistoryService`) alike: the place by name in `weather.lang` (as the geocoder gave it),
/// the zone a source did not name (MET Norway, a `command`) from the place, the icon, and then only what `privacy`
/// lets show. Pure: the services look up the place and the icon, this decides what the tag says.
package struct TagComposer: Sendable {
    package var privacy: PrivacyPolicy
    /// The language place names are given in (`weather.lang`).
    package var lang: String

    package init(privacy: PrivacyPolicy, lang: String) {
        self.privacy = privacy
        self.lang = lang
    }

    /// What a source said, and of when.
    package struct Answer: Sendable {
        package var weather: Weather
        package var fetchedAt: Date
        package var airQuality: AirQuality?
        package var kind: WeatherTag.Kind
        /// Kept weather served because a refresh failed.
        package var stale: Bool

        package init(
            weather: Weather, fetchedAt: Date, airQuality: AirQuality? = nil, kind: WeatherTag.Kind = .current,
            stale: Bool = false
        ) {
            (self.weather, self.fetchedAt, self.airQuality, self.kind, self.stale) =
                (weather, fetchedAt, airQuality, kind, stale)
        }
    }

    /// The tag for `answer` at `position` (where the entry or the machine was, as located), with the place's name
    /// where one is known and the icon's cached file where there is one: as `privacy` lets it be shown.
    package func tag(_ answer: Answer, at position: Position, place: PlaceName?, iconFile: String?) -> WeatherTag {
        var tag = WeatherTag(
            weather: answer.weather, position: position, iconFile: iconFile, fetchedAt: answer.fetchedAt,
            stale: answer.stale, kind: answer.kind)
        tag.airQuality = answer.airQuality
        if let place {
            tag.geocodedPlace = place.name(in: self.lang)
            (tag.region, tag.country) = (place.region, place.country)
            // A source that names no zone gets the place's, where the geocoder knows it.
            if tag.weather.zone == nil, let zone = place.zone, Zone.named(zone) != nil { tag.weather.zone = zone }
        }
        return self.privacy.shown(tag)
    }
}
