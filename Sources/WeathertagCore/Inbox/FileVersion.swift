/// A file's identity and version as far as `stat` tells: the same inode with the same size and modification time
/// is taken to be unchanged. The daemon reads it from the filesystem (`FileVersion+Stat`); the policy only
/// compares it.
public struct FileVersion: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modifiedSeconds: Int
    public var modifiedNanoseconds: Int

    public init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// The same file (device and inode), whatever its content now.
    public func isSameFile(as other: FileVersion) -> Bool {
        self.device == other.device && self.inode == other.inode
    }
}
