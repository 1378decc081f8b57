extension Messages {
    /// A condition group's name (`Rain`, `Clouds`: OpenWeather's `main`, the stamp's `condition`) as a reader says
    /// it; the stamp and the machine documents keep the English.
    package func condition(_ group: String) -> String {
        switch group.lowercased() {
        case "clear": return self.tr("Clear", context: "condition")
        case "clouds": return self.tr("Clouds", context: "condition")
        case "rain": return self.tr("Rain", context: "condition")
        case "drizzle": return self.tr("Drizzle", context: "condition")
        case "thunderstorm": return self.tr("Thunderstorm", context: "condition")
        case "snow": return self.tr("Snow", context: "condition")
        case "mist": return self.tr("Mist", context: "condition")
        case "fog": return self.tr("Fog", context: "condition")
        case "haze": return self.tr("Haze", context: "condition")
        case "smoke": return self.tr("Smoke", context: "condition")
        case "dust": return self.tr("Dust", context: "condition")
        case "sand": return self.tr("Sand", context: "condition")
        case "ash": return self.tr("Ash", context: "condition")
        case "squall": return self.tr("Squall", context: "condition")
        case "tornado": return self.tr("Tornado", context: "condition")
        default: return group
        }
    }
}
