#define _GNU_SOURCE
#include <malloc.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "CLinux.h"

int clinux_exchange(const char *first, const char *second) {
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
}

int clinux_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int clinux_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
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

long clinux_filesystem_type_of(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) {
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

// The crash guard's flag (see CLinux.h). Thread-local: two batches may be stamped on two threads at once, and the
// signal is delivered to the thread that faulted.
static _Thread_local int clinux_note_fd = -1;
static _Thread_local long clinux_note_offset = 0;
static _Thread_local int clinux_has_alternate_stack = 0;
static const int clinux_fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
#define CLINUX_FAULT_SIGNALS (sizeof clinux_fault_signals / sizeof clinux_fault_signals[0])
static struct sigaction clinux_previous[CLINUX_FAULT_SIGNALS];
// Room for this handler and for the Swift runtime's own crash handler, chained after it (it prints the backtrace).
#define CLINUX_ALTERNATE_STACK (256 * 1024)

static void clinux_fault(int signal, siginfo_t *info, void *context) {
    if (clinux_note_fd >= 0) {
        const char flag = 'C';
        (void)pwrite(clinux_note_fd, &flag, 1, (off_t)clinux_note_offset);
    }
    for (size_t index = 0; index < CLINUX_FAULT_SIGNALS; index++) {
        if (clinux_fault_signals[index] != signal) continue;
        struct sigaction *previous = &clinux_previous[index];
        // The handler before ours (the Swift runtime's backtracer) goes on as it would have.
        if ((previous->sa_flags & SA_SIGINFO) && previous->sa_sigaction != NULL) {
            previous->sa_sigaction(signal, info, context);
            return;
        }
        if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler != NULL) {
            previous->sa_handler(signal);
            return;
        }
    }
    // No handler before ours: the default action (the process ends with this signal, and a core where allowed).
    (void)sigaction(signal, &(struct sigaction){.sa_handler = SIG_DFL}, NULL);
    (void)raise(signal);
}

static void clinux_install_fault_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = clinux_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < CLINUX_FAULT_SIGNALS; index++) {
        (void)sigaction(clinux_fault_signals[index], &action, &clinux_previous[index]);
    }
}

void clinux_crash_note(int fd, long offset) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, clinux_install_fault_handlers);
    if (fd >= 0 && !clinux_has_alternate_stack) {
        // A stack overflow leaves no stack to run a handler on: this thread gets one of its own, once.
        void *memory = mmap(NULL, CLINUX_ALTERNATE_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory != MAP_FAILED) {
            stack_t stack = {.ss_sp = memory, .ss_size = CLINUX_ALTERNATE_STACK, .ss_flags = 0};
            if (sigaltstack(&stack, NULL) == 0) {
                clinux_has_alternate_stack = 1;
            } else {
                (void)munmap(memory, CLINUX_ALTERNATE_STACK);
            }
        }
    }
    clinux_note_fd = fd;
    clinux_note_offset = offset;
}

void clinux_tune_malloc(int arenas, int map_threshold, int trim_threshold) {
    mallopt(M_ARENA_MAX, arenas);
    mallopt(M_MMAP_THRESHOLD, map_threshold);
    mallopt(M_TRIM_THRESHOLD, trim_threshold);
}

void clinux_trim_malloc(void) { malloc_trim(0); }

int clinux_no_access_time_flag(void) { return O_NOATIME; }
