import FoundationEssentials

/// A secret a location service is asked with (an OwnTracks Recorder's password, a Home Assistant long-lived token).
/// It is sent in a header and nowhere else: not in a URL, a log line, an error, `/v1/status`, or a `command`
/// provider's environment (it never is in the process's environment: it is read from a file).
package struct ServiceToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    package var value: String
    /// Where it came from (a file's path, never the token).
    package var origin: String

    package init(_ value: String, origin: String) {
        self.value = value
        self.origin = origin
    }

    package var description: String { "<token from \(self.origin)>" }
    package var debugDescription: String { self.description }

    /// `Authorization: Bearer …`, or HTTP basic for a `user:password` token.
    package var authorizationHeader: String {
        if self.value.contains(":") {
            return "Authorization: Basic " + Data(self.value.utf8).base64EncodedString()
        }
        return "Authorization: Bearer " + self.value
    }
}

extension ConfigObject {
    /// The token in the file named by `key` (relative to the configuration's folder), or, with `credential`, in
    /// systemd's `$CREDENTIALS_DIRECTORY/<credential>` first. Nil when neither is given.
    package func token(
        _ key: String, credential: String? = nil, context: LocationSettingsContext
    ) throws(ConfigurationError) -> ServiceToken? {
        func clean(_ bytes: [UInt8]) -> String? {
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
            return text.isEmpty ? nil : text
        }
        let files = context.files
        if let credential, let directory = context.environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
            let bytes = files.contents(directory + "/" + credential), let token = clean(bytes)
        {
            return ServiceToken(token, origin: "systemd credential \(credential)")
        }
        guard let name = try self.nonEmptyString(key) else { return nil }
        let file = context.paths.absolute(name)
        guard let bytes = files.contents(file) else {
            throw ConfigurationError(field: self.fieldPath(key), message: "cannot read \(file)")
        }
        guard let token = clean(bytes) else {
            throw ConfigurationError(field: self.fieldPath(key), message: "\(file) is empty")
        }
        guard !token.contains("\n"), !token.contains("\r") else {
            throw ConfigurationError(field: self.fieldPath(key), message: "\(file) holds more than one line")
        }
        return ServiceToken(token, origin: file)
    }
}
