import CLinux

/// Facts about the filesystem a folder is on.
enum Filesystem {
    /// `statfs` magic numbers of filesystems whose changes may come from elsewhere, where inotify sees only what
    /// this machine does: NFS, SMB/CIFS, FUSE (sshfs, rclone, Dropbox and the like), 9p, Ceph, AFS.
    private static let remoteTypes: Set<Int> = [
        0x6969, 0x517B, 0xFF53_4D42, 0xFE53_4D42, 0x6573_5546, 0x0102_1997, 0x00C3_6400, 0x5346_414F,
    ]

    static func isRemote(_ path: String) -> Bool {
        Self.remoteTypes.contains(clinux_filesystem_type(path))
    }
}
