import CLinux

/// The process's heap, as glibc's malloc keeps it.
public enum ProcessMemory {
    /// At most `count` arenas; call before threads start (`serve` does, first).
    public static func limitArenas(_ count: Int32) {
        clinux_limit_malloc_arenas(count)
    }

    /// Gives freed pages back to the system: after a burst of large, short-lived allocations (a year of history read
    /// and kept), so the daemon's resident memory falls back to what it keeps.
    public static func trim() {
        clinux_trim_malloc()
    }
}
