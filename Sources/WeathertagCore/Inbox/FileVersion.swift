/// A file's identity and version as far as `stat` tells: the same inode with the same size and modification time
/// is taken to be unchanged. The daemon reads it from the filesystem (`FileVersion+Stat`); the policy only
/// compares it.
package struct FileVersion: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modifiedSeconds: Int
    package var modifiedNanoseconds: Int

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// The same file (device and inode), whatever its content now.
    package func isSameFile(as other: FileVersion) -> Bool {
        self.device == other.device && self.inode == other.inode
    }
}
