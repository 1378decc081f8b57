import ServiceLifecycle

/// Tells systemd `STOPPING=1` as soon as a graceful shutdown begins. Listed last in the group, so it is the first
/// service the group signals.
struct SystemdStoppingService: Service, CustomStringConvertible {
    let notifier: SystemdNotifier

    var description: String { "SystemdStopping" }

    func run() async throws {
        // Returns on graceful shutdown; throws only when cancelled, when there is nothing left to announce.
        guard (try? await gracefulShutdown()) != nil else { return }
        self.notifier.notify("STOPPING=1")
    }
}
