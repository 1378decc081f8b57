import CLinux
import Glibc

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

    /// `statfs` magic numbers of filesystems that keep a folder's link count exactly (2, plus one for each folder
    /// in it): ext4 (and ext2, ext3), XFS, tmpfs. btrfs says 1 for every folder; network filesystems say what they
    /// like.
    private static let exactLinkCountTypes: Set<Int> = [0xEF53, 0x5846_5342, 0x0102_1994]

    /// Whether the folder open as `fd` holds no folder, known from its link count without reading it, where the
    /// filesystem keeps that count exactly (GNU find's leaf optimization); false where it cannot be known so.
    static func holdsNoFolder(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_nlink == 2 else { return false }
        return Self.exactLinkCountTypes.contains(clinux_filesystem_type_of(fd))
    }
}
