// The disk's own writes, recorded: a FUSE filesystem that shows one image file, `disk.img`, and logs every write,
// zeroing and flush it receives, in order, as dm-log-writes would (this kernel has no device-mapper). A loop device
// on `disk.img` is the disk a filesystem under test is made on; the log replayed on a copy of the image as it was
// before, up to any flush, is that disk after a power cut there (tools/powercut/replay.py).
//
//   recorder IMAGE LOG MOUNTPOINT
//
// IMAGE is written in place (it is the disk as it is now); LOG gets one record per request. It runs single-threaded,
// so the log has one total order, and goes to the background once mounted (the command returns when the mount is
// there); it ends when MOUNTPOINT is unmounted. `setfattr -n user.mark -v TEXT MOUNTPOINT/disk.img` writes a mark
// into the log, in order with the I/O around it.
//
// Facts this rests on (PLATFORM.md, "Power loss, recorded"): the loop driver has no FUA, so a journal commit arrives
// as FSYNC, WRITE, FSYNC, and only FSYNC is a barrier (FUSE's flush is close(), not one); fsync and fallocate must
// answer 0, since a kernel told ENOSYS once stops sending them and the log would lose its barriers silently; mkfs's
// discards and zero-outs come as fallocate and are logged and applied as zeroes.
//
// A record: the magic "PCR1", a kind (1 write, 2 flush, 3 zero, 4 mark), three bytes of padding, the offset and the
// length (little-endian 64-bit), then, for a write and a mark, `length` bytes. Each record is written to LOG before
// the request is answered.
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum kind { WRITE = 1, FLUSH = 2, ZERO = 3, MARK = 4 };

static const char *image_path = "/disk.img";
static int image_fd = -1;
static int log_fd = -1;

/// Writes all of `bytes` to the log, or ends the process: a log with a hole would replay a disk that never was.
static void log_bytes(const void *bytes, size_t length) {
    const char *cursor = bytes;
    while (length > 0) {
        ssize_t written = write(log_fd, cursor, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            perror("recorder: the log");
            _exit(70);
        }
        cursor += written;
        length -= (size_t)written;
    }
}

static void log_record(enum kind kind, uint64_t offset, uint64_t length, const void *payload) {
    unsigned char header[24] = {'P', 'C', 'R', '1', (unsigned char)kind, 0, 0, 0};
    for (int i = 0; i < 8; i++) {
        header[8 + i] = (unsigned char)(offset >> (8 * i));
        header[16 + i] = (unsigned char)(length >> (8 * i));
    }
    log_bytes(header, sizeof header);
    if (payload != NULL) log_bytes(payload, (size_t)length);
}

static int recorder_getattr(const char *path, struct stat *info, struct fuse_file_info *file) {
    (void)file;
    memset(info, 0, sizeof *info);
    if (strcmp(path, "/") == 0) {
        info->st_mode = S_IFDIR | 0755;
        info->st_nlink = 2;
        return 0;
    }
    if (strcmp(path, image_path) != 0) return -ENOENT;
    struct stat image;
    if (fstat(image_fd, &image) != 0) return -errno;
    info->st_mode = S_IFREG | 0600;
    info->st_nlink = 1;
    info->st_size = image.st_size;
    info->st_blocks = image.st_blocks;
    info->st_mtim = image.st_mtim;
    return 0;
}

static int recorder_readdir(const char *path, void *buffer, fuse_fill_dir_t fill, off_t offset,
                            struct fuse_file_info *file, enum fuse_readdir_flags flags) {
    (void)offset, (void)file, (void)flags;
    if (strcmp(path, "/") != 0) return -ENOENT;
    fill(buffer, ".", NULL, 0, 0);
    fill(buffer, "..", NULL, 0, 0);
    fill(buffer, image_path + 1, NULL, 0, 0);
    return 0;
}

static int recorder_open(const char *path, struct fuse_file_info *file) {
    if (strcmp(path, image_path) != 0) return -ENOENT;
    // Every read and write comes here as the loop device sends it: the kernel keeps no pages of the file.
    file->direct_io = 1;
    return 0;
}

static int recorder_read(const char *path, char *buffer, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)path, (void)file;
    size_t done = 0;
    while (done < size) {
        ssize_t got = pread(image_fd, buffer + done, size - done, offset + (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -errno;
        if (got == 0) break;
        done += (size_t)got;
    }
    return (int)done;
}

static int recorder_write(const char *path, const char *buffer, size_t size, off_t offset,
                          struct fuse_file_info *file) {
    (void)path, (void)file;
    log_record(WRITE, (uint64_t)offset, size, buffer);
    size_t done = 0;
    while (done < size) {
        ssize_t put = pwrite(image_fd, buffer + done, size - done, offset + (off_t)done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return put < 0 ? -errno : -EIO;
        done += (size_t)put;
    }
    return (int)size;
}

/// A barrier: what was written before it is on the disk once it is answered.
static int recorder_fsync(const char *path, int datasync, struct fuse_file_info *file) {
    (void)path, (void)datasync, (void)file;
    log_record(FLUSH, 0, 0, NULL);
    return 0;
}

/// Discards and zero-outs (mkfs's, a filesystem's trim) read back as zeroes: logged and applied as such. Plain
/// allocation changes nothing a reader sees.
static int recorder_fallocate(const char *path, int mode, off_t offset, off_t length, struct fuse_file_info *file) {
    (void)path, (void)file;
    if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) == 0) return 0;
    log_record(ZERO, (uint64_t)offset, (uint64_t)length, NULL);
    if (fallocate(image_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) != 0) return -errno;
    return 0;
}

static int recorder_setxattr(const char *path, const char *name, const char *value, size_t size, int flags) {
    (void)flags;
    if (strcmp(path, image_path) != 0) return -ENOENT;
    if (strcmp(name, "user.mark") != 0) return -ENOTSUP;
    log_record(MARK, 0, size, value);
    return 0;
}

static int recorder_getxattr(const char *path, const char *name, char *value, size_t size) {
    (void)path, (void)name, (void)value, (void)size;
    return -ENODATA;
}

/// The loop device never changes the image's size; anything that asks is told it may, and nothing changes.
static int recorder_truncate(const char *path, off_t size, struct fuse_file_info *file) {
    (void)path, (void)size, (void)file;
    return 0;
}

static int recorder_flush(const char *path, struct fuse_file_info *file) {
    (void)path, (void)file;
    return 0;
}

static const struct fuse_operations operations = {
    .getattr = recorder_getattr,
    .readdir = recorder_readdir,
    .open = recorder_open,
    .read = recorder_read,
    .write = recorder_write,
    .fsync = recorder_fsync,
    .fallocate = recorder_fallocate,
    .setxattr = recorder_setxattr,
    .getxattr = recorder_getxattr,
    .truncate = recorder_truncate,
    .flush = recorder_flush,
};

int main(int argc, char *argv[]) {
    if (argc != 4) {
        fprintf(stderr, "usage: recorder IMAGE LOG MOUNTPOINT\n");
        return 64;
    }
    image_fd = open(argv[1], O_RDWR | O_CLOEXEC);
    if (image_fd < 0) {
        perror(argv[1]);
        return 66;
    }
    log_fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        perror(argv[2]);
        return 73;
    }
    // Single-threaded (one order), in the background once mounted.
    char *fuse_argv[] = {argv[0], "-s", "-o", "fsname=powercut-recorder", argv[3], NULL};
    return fuse_main(5, fuse_argv, &operations, NULL);
}
