// The filesystem limit: what a stamp must do per file and nothing more. For each file named on stdin (one per
// line, in order): read it, write a temp file in the same folder with a fixed header prepended, fsync it, rename it
// over the original, and fsync the folder: what a program stamping one file at a time must do to know each stamp
// is on disk. (weathertag fsyncs each folder once per batch of up to 32, after the batch's renames.)
//
// usage: fslimit FOLDER HEADER_FILE < names
// prints: {"files": N, "seconds": S, "per_file_us": [..sorted..]} summary as JSON (p50/p99 computed here)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what, const char *path) {
    fprintf(stderr, "fslimit: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fslimit FOLDER HEADER_FILE < names\n");
        return 2;
    }
    const char *folder = argv[1];
    FILE *headerFile = fopen(argv[2], "rb");
    if (!headerFile) die("open", argv[2]);
    static char header[65536];
    size_t headerLength = fread(header, 1, sizeof(header), headerFile);
    fclose(headerFile);

    int directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) die("open", folder);

    size_t capacity = 1024, count = 0;
    double *times = malloc(capacity * sizeof(double));
    static char buffer[16 << 20];
    char name[4096], path[8192], temporary[8192];
    double start = now();
    while (fgets(name, sizeof(name), stdin)) {
        name[strcspn(name, "\n")] = 0;
        if (!name[0]) continue;
        double fileStart = now();
        snprintf(path, sizeof(path), "%s/%s", folder, name);
        snprintf(temporary, sizeof(temporary), "%s/.%s.tmp", folder, name);
        int in = open(path, O_RDONLY | O_CLOEXEC);
        if (in < 0) die("open", path);
        ssize_t length = 0, got;
        while ((got = read(in, buffer + length, sizeof(buffer) - (size_t)length)) > 0) length += got;
        close(in);
        int out = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (out < 0) die("create", temporary);
        if (write(out, header, headerLength) != (ssize_t)headerLength) die("write", temporary);
        if (write(out, buffer, (size_t)length) != length) die("write", temporary);
        if (fsync(out) != 0) die("fsync", temporary);
        close(out);
        if (rename(temporary, path) != 0) die("rename", path);
        if (fsync(directory) != 0) die("fsync", folder);
        if (count == capacity) times = realloc(times, (capacity *= 2) * sizeof(double));
        times[count++] = (now() - fileStart) * 1e6;
    }
    double seconds = now() - start;
    qsort(times, count, sizeof(double), compare);
    printf("{\"files\": %zu, \"seconds\": %.6f, \"p50_us\": %.1f, \"p99_us\": %.1f}\n", count, seconds,
           count ? times[count / 2] : 0.0, count ? times[(size_t)((double)count * 0.99)] : 0.0);
    return 0;
}
