#ifndef CLINUX_H
#define CLINUX_H

/// Linux calls Swift cannot reach through Glibc: `renameat2` is declared only under _GNU_SOURCE, `fcntl` with
/// F_SETLEASE/F_GETLEASE needs constants that are GNU-only too, and <sys/statfs.h> is not in the Glibc module.

/// Swaps two names in one step (`renameat2(..., RENAME_EXCHANGE)`); both must exist. -1 and errno on failure
/// (EINVAL or ENOSYS where the filesystem cannot exchange).
int clinux_exchange(const char *first, const char *second);

/// Renames `from` to `to` only if `to` does not exist (`renameat2(..., RENAME_NOREPLACE)`): -1 and errno EEXIST when
/// it does; EINVAL or ENOSYS where the filesystem cannot say.
int clinux_rename_noreplace(const char *from, const char *to);

/// Takes a read lease on `fd` (open read-only): fails with EAGAIN while anyone has the file open for writing, and
/// any later open for writing or truncate breaks it. -1 and errno on failure.
int clinux_take_read_lease(int fd);

/// 1 while the read lease on `fd` is held and unbroken, 0 once a writer broke it or there is none.
int clinux_read_lease_intact(int fd);

/// Gives the lease up (lets a waiting writer in).
void clinux_release_lease(int fd);

/// `O_NOATIME` (GNU-only in <fcntl.h>): reads through the descriptor leave the file's access time as it was.
int clinux_no_access_time_flag(void);

/// The `statfs` magic number of the filesystem `path` is on, or -1 and errno.
long clinux_filesystem_type(const char *path);

/// The `statfs` magic number of the filesystem the open `fd` is on (`fstatfs`), or -1 and errno.
long clinux_filesystem_type_of(int fd);

/// Starts writing the open file's dirty pages to the disk without waiting for them
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`); 0, or -1 and errno.
int clinux_start_writeback(int fd);

/// Names the calling thread (`pthread_setname_np`, GNU-only; at most 15 bytes are kept), as `top -H` shows it.
void clinux_name_thread(const char *name);

/// The crash guard's flag: while the calling thread stamps a batch, `fd` is that batch's note, and a fault on this
/// thread (SIGSEGV, including a stack overflow, run on an alternate stack this gives the thread; SIGBUS, SIGILL and
/// SIGTRAP from a Swift trap, SIGABRT from systemd's watchdog, SIGFPE) writes the byte `C` at `offset` before the
/// handler that was there (the Swift runtime's backtracer) runs. The process dies as it would have; the note says it
/// died of its own fault, not of an outside `kill -9`. `fd` -1: the thread stamps nothing now. Installs the handlers
/// at its first call.
void clinux_crash_note(int fd, long offset);

/// At most `arenas` malloc arenas, blocks of `map_threshold` bytes or more mapped on their own, and the heap's free
/// top given back past `trim_threshold` (`mallopt` M_ARENA_MAX, M_MMAP_THRESHOLD, M_TRIM_THRESHOLD; <malloc.h> is not
/// in the Glibc module). Call before threads start.
void clinux_tune_malloc(int arenas, int map_threshold, int trim_threshold);

/// Gives freed heap pages back to the system (`malloc_trim(0)`), in every arena.
void clinux_trim_malloc(void);

#endif
