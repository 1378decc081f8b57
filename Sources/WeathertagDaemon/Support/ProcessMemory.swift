import CLinux

/// The process's heap, as glibc's malloc keeps it.
package enum ProcessMemory {
    /// At most `arenas` arenas, and blocks from `threshold` bytes mapped on their own (a year's answer, a kept
    /// series: given back whole when freed, not left in a heap they fragment), the heap trimmed once `trim` bytes
    /// are free at its top. Fixed, unlike glibc's default, which raises the threshold after the first large block is
    /// freed and so keeps every later one in the heap. Call before threads start (the commands do, first).
    package static func tune(arenas: Int32, threshold: Int32, trim: Int32) {
        clinux_tune_malloc(arenas, threshold, trim)
    }

    /// Gives freed pages back to the system: after a burst of large, short-lived allocations (a year of history read
    /// and kept), so the daemon's resident memory falls back to what it keeps.
    package static func trim() {
        clinux_trim_malloc()
    }
}
