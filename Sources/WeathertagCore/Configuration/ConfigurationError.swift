/// A configuration problem, naming the field (`location.providers[2].type`) and what is wrong with it.
///
/// The daemon refuses to start on any of these, before it touches the inbox, the cache or the socket.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted path of the offending field; empty for problems with the file as a whole.
    package var field: String
    /// What is wrong and, where it helps, how to fix it.
    package var message: String

    package init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    package var description: String {
        self.field.isEmpty ? self.message : "\(self.field): \(self.message)"
    }
}
