/*
 * The wall clock moved by $TEST_CLOCK_OFFSET seconds, for `make test-dates` (tools/test-dates.py): preloaded into
 * the test bundle and every process it starts, so that the whole suite lives on one chosen date.
 *
 * Why not Debian's libfaketime, which does this and more: under libfaketime 0.9.10 every dynamically linked Swift
 * program starts without its arguments (a one-line `print(CommandLine.arguments)` prints `[]`), so the test bundle
 * runs no test at all. This moves the real-time clocks, through the three calls a program reads them with, and
 * files' times with them: the kernel stamps a file with the real time, so every stat moves a file's times forward
 * by the offset and every call that sets them moves them back (a file written now is "now" on the moved clock,
 * and an mtime the daemon restores reads back as it was). The monotonic clocks (timeouts, backoffs) stay as they
 * are.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <utime.h>

static time_t offset(void) {
    static time_t value;
    static int read;
    if (!read) {
        const char *text = getenv("TEST_CLOCK_OFFSET");
        value = text ? (time_t)strtoll(text, NULL, 10) : 0;
        read = 1;
    }
    return value;
}

int clock_gettime(clockid_t clock, struct timespec *now) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, now);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) now->tv_sec += offset();
    return result;
}

int gettimeofday(struct timeval *restrict now, void *restrict zone) {
    static int (*real)(struct timeval *restrict, void *restrict);
    if (!real) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    int result = real(now, zone);
    struct timeval *volatile given = now; /* declared nonnull, yet NULL is passed in the wild */
    if (result == 0 && given) given->tv_sec += offset();
    return result;
}

time_t time(time_t *now) {
    struct timespec moment;
    clock_gettime(CLOCK_REALTIME, &moment);
    if (now) *now = moment.tv_sec;
    return moment.tv_sec;
}

/* Files' times, read: moved forward. */

static void forward(struct stat *info) {
    info->st_atim.tv_sec += offset();
    info->st_mtim.tv_sec += offset();
    info->st_ctim.tv_sec += offset();
}

/* The C library's own `name`, found once. */
#define REAL(name) \
    static __typeof__(&name) real; \
    if (!real) real = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

#define STAT_CALL(name, parameters, arguments) \
    int name parameters { \
        REAL(name); \
        int result = real arguments; \
        if (result == 0) forward((struct stat *)info); \
        return result; \
    }

STAT_CALL(stat, (const char *restrict path, struct stat *restrict info), (path, info))
STAT_CALL(lstat, (const char *restrict path, struct stat *restrict info), (path, info))
STAT_CALL(fstat, (int fd, struct stat *info), (fd, info))
STAT_CALL(fstatat, (int dir, const char *restrict path, struct stat *restrict info, int flags),
          (dir, path, info, flags))
/* On x86_64 struct stat64 has struct stat's layout. */
STAT_CALL(stat64, (const char *restrict path, struct stat64 *restrict info), (path, info))
STAT_CALL(lstat64, (const char *restrict path, struct stat64 *restrict info), (path, info))
STAT_CALL(fstat64, (int fd, struct stat64 *info), (fd, info))
STAT_CALL(fstatat64, (int dir, const char *restrict path, struct stat64 *restrict info, int flags),
          (dir, path, info, flags))

int statx(int dir, const char *restrict path, int flags, unsigned int mask, struct statx *restrict info) {
    REAL(statx);
    int result = real(dir, path, flags, mask, info);
    if (result == 0) {
        info->stx_atime.tv_sec += offset();
        info->stx_mtime.tv_sec += offset();
        info->stx_ctime.tv_sec += offset();
        info->stx_btime.tv_sec += offset();
    }
    return result;
}

/* Files' times, written: moved back (UTIME_NOW and UTIME_OMIT as they are; NULL is now). */

static void back(const struct timespec given[2], struct timespec moved[2]) {
    for (int index = 0; index < 2; index++) {
        moved[index] = given[index];
        if (given[index].tv_nsec != UTIME_NOW && given[index].tv_nsec != UTIME_OMIT) moved[index].tv_sec -= offset();
    }
}

int utimensat(int dir, const char *path, const struct timespec times[2], int flags) {
    REAL(utimensat);
    struct timespec moved[2];
    if (times) back(times, moved);
    return real(dir, path, times ? moved : NULL, flags);
}

int futimens(int fd, const struct timespec times[2]) {
    REAL(futimens);
    struct timespec moved[2];
    if (times) back(times, moved);
    return real(fd, times ? moved : NULL);
}

static int through_utimensat(int dir, const char *path, const struct timeval *given, int flags) {
    if (!given) return utimensat(dir, path, NULL, flags);
    struct timespec times[2] = {{given[0].tv_sec, given[0].tv_usec * 1000}, {given[1].tv_sec, given[1].tv_usec * 1000}};
    return utimensat(dir, path, times, flags);
}

int utimes(const char *path, const struct timeval times[2]) { return through_utimensat(AT_FDCWD, path, times, 0); }

int lutimes(const char *path, const struct timeval times[2]) {
    return through_utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW);
}

int futimes(int fd, const struct timeval times[2]) {
    if (!times) return futimens(fd, NULL);
    struct timespec moved[2] = {{times[0].tv_sec, times[0].tv_usec * 1000}, {times[1].tv_sec, times[1].tv_usec * 1000}};
    return futimens(fd, moved);
}

int utime(const char *path, const struct utimbuf *times) {
    if (!times) return utimensat(AT_FDCWD, path, NULL, 0);
    struct timespec moved[2] = {{times->actime, 0}, {times->modtime, 0}};
    return utimensat(AT_FDCWD, path, moved, 0);
}
