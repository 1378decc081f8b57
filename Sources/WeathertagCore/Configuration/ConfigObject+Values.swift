import FoundationEssentials

/// Values the configuration and the providers' settings share: URLs, coordinates, accuracies.
extension ConfigObject {
    /// An `http://` or `https://` URL, without a trailing slash requirement.
    package func url(_ key: String) throws(ConfigurationError) -> String? {
        guard let string = try self.nonEmptyString(key) else { return nil }
        guard string.hasPrefix("http://") || string.hasPrefix("https://"), !string.contains(" ") else {
            throw ConfigurationError(
                field: self.fieldPath(key),
                message: "\"\(string)\" is not an http:// or https:// URL"
            )
        }
        return string
    }
}

extension ConfigObject {
    /// An accuracy in metres: not negative.
    package func accuracy(_ key: String) throws(ConfigurationError) -> Double? {
        guard let value = try self.double(key) else { return nil }
        guard value >= 0 else {
            throw ConfigurationError(field: self.fieldPath(key), message: "\(value) is negative")
        }
        return value
    }

    package func latitude(_ key: String) throws(ConfigurationError) -> Double {
        let value = try self.requiredDouble(key)
        guard (-90...90).contains(value) else {
            throw ConfigurationError(field: self.fieldPath(key), message: "\(value) is out of range (-90…90)")
        }
        return value
    }

    package func longitude(_ key: String) throws(ConfigurationError) -> Double {
        let value = try self.requiredDouble(key)
        guard (-180...180).contains(value) else {
            throw ConfigurationError(field: self.fieldPath(key), message: "\(value) is out of range (-180…180)")
        }
        return value
    }
}
