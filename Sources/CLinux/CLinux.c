#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "CLinux.h"

int clinux_exchange(const char *first, const char *second) {
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
}

static void clinux_lease_broken(int signal) {
    (void)signal;
}

// A broken lease sends its owner SIGIO, whose default action ends the process. We poll the lease instead: the
// signal gets a handler that does nothing, installed once (a handler, not SIG_IGN, so that programs we start get
// the default back at exec).
static void clinux_catch_lease_signal(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = clinux_lease_broken;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    (void)sigaction(SIGIO, &action, NULL);
}

int clinux_take_read_lease(int fd) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, clinux_catch_lease_signal);
    return fcntl(fd, F_SETLEASE, F_RDLCK);
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
