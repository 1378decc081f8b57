#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "CLinux.h"

int clinux_exchange(const char *first, const char *second) {
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
}

int clinux_take_read_lease(int fd) {
    if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
        return -1;
    }
    // Taking a lease makes us the owner that gets SIGIO (default action: terminate) when a writer breaks it. We
    // poll the lease instead; with no owner the kernel sends no signal.
    (void)fcntl(fd, F_SETOWN, 0);
    return 0;
}

int clinux_read_lease_intact(int fd) {
    // While a writer waits, F_GETLEASE reports the type the lease is being broken to (F_UNLCK).
    return fcntl(fd, F_GETLEASE) == F_RDLCK;
}

void clinux_release_lease(int fd) {
    (void)fcntl(fd, F_SETLEASE, F_UNLCK);
}

long clinux_filesystem_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) {
        return -1;
    }
    return (long)(unsigned int)info.f_type;
}

void clinux_name_thread(const char *name) {
    char kept[16];
    strncpy(kept, name, sizeof kept - 1);
    kept[sizeof kept - 1] = 0;
    (void)pthread_setname_np(pthread_self(), kept);
}
