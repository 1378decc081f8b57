// A small HTTP/1.1 load generator for Unix sockets: C keep-alive connections on one epoll thread, each sending
// `GET PATH` again as soon as the previous response is complete, for SECONDS after a warm-up. Latency is measured
// per request (send to last byte); percentiles come from the sorted samples.
//
// usage: loadgen SOCKET PATH CONNECTIONS SECONDS [WARMUP_SECONDS]
// prints: {"connections": C, "requests": N, "seconds": S, "rps": R, "p50_us": .., "p99_us": .., "max_us": ..,
//          "errors": E, "non_200": M}
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    double sentAt;
    char buffer[65536];
    size_t used;
} Connection;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int connectTo(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, path, sizeof(address.sun_path) - 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
        fprintf(stderr, "loadgen: connect %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

/// Bytes of a complete response at the start of `buffer`, or 0 while it is incomplete. Sets `*status`.
static size_t completeResponse(const char *buffer, size_t used, int *status) {
    const char *end = memmem(buffer, used, "\r\n\r\n", 4);
    if (!end) return 0;
    size_t headLength = (size_t)(end - buffer) + 4;
    *status = used > 12 ? atoi(buffer + 9) : 0;
    size_t contentLength = 0;
    for (const char *line = buffer; line < end; line = memchr(line, '\n', (size_t)(end - line)) + 1) {
        if (strncasecmp(line, "content-length:", 15) == 0) contentLength = strtoul(line + 15, NULL, 10);
        if (!memchr(line, '\n', (size_t)(end - line))) break;
    }
    return used >= headLength + contentLength ? headLength + contentLength : 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: loadgen SOCKET PATH CONNECTIONS SECONDS [WARMUP_SECONDS]\n");
        return 2;
    }
    const char *socketPath = argv[1];
    int count = atoi(argv[3]);
    double seconds = atof(argv[4]);
    double warmup = argc > 5 ? atof(argv[5]) : 1.0;
    char request[1024];
    int requestLength = snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", argv[2]);

    int epoll = epoll_create1(EPOLL_CLOEXEC);
    Connection *connections = calloc((size_t)count, sizeof(Connection));
    for (int index = 0; index < count; index++) {
        connections[index].fd = connectTo(socketPath);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)index};
        epoll_ctl(epoll, EPOLL_CTL_ADD, connections[index].fd, &event);
    }

    size_t capacity = 1 << 20, samples = 0;
    double *latencies = malloc(capacity * sizeof(double));
    long errors = 0, non200 = 0;
    double start = now(), measureFrom = start + warmup, stopAt = measureFrom + seconds;
    for (int index = 0; index < count; index++) {
        connections[index].sentAt = now();
        if (write(connections[index].fd, request, (size_t)requestLength) != requestLength) errors++;
    }
    struct epoll_event events[256];
    while (now() < stopAt) {
        int ready = epoll_wait(epoll, events, 256, 100);
        for (int e = 0; e < ready; e++) {
            Connection *connection = &connections[events[e].data.u32];
            ssize_t got = read(connection->fd, connection->buffer + connection->used,
                               sizeof(connection->buffer) - connection->used);
            if (got <= 0) {
                if (got < 0 && errno == EAGAIN) continue;
                errors++;
                epoll_ctl(epoll, EPOLL_CTL_DEL, connection->fd, NULL);
                close(connection->fd);
                connection->fd = connectTo(socketPath);
                connection->used = 0;
                struct epoll_event event = {.events = EPOLLIN, .data.u32 = events[e].data.u32};
                epoll_ctl(epoll, EPOLL_CTL_ADD, connection->fd, &event);
            } else {
                connection->used += (size_t)got;
                int status = 0;
                size_t length = completeResponse(connection->buffer, connection->used, &status);
                if (length == 0) continue;
                double finished = now();
                if (finished >= measureFrom) {
                    if (status != 200) non200++;
                    if (samples == capacity) latencies = realloc(latencies, (capacity *= 2) * sizeof(double));
                    latencies[samples++] = (finished - connection->sentAt) * 1e6;
                }
                memmove(connection->buffer, connection->buffer + length, connection->used - length);
                connection->used -= length;
            }
            connection->sentAt = now();
            if (write(connection->fd, request, (size_t)requestLength) != requestLength) errors++;
        }
    }
    double measured = now() - measureFrom;
    qsort(latencies, samples, sizeof(double), compare);
    printf("{\"connections\": %d, \"requests\": %zu, \"seconds\": %.3f, \"rps\": %.0f, \"p50_us\": %.1f, "
           "\"p99_us\": %.1f, \"max_us\": %.1f, \"errors\": %ld, \"non_200\": %ld}\n",
           count, samples, measured, (double)samples / measured, samples ? latencies[samples / 2] : 0.0,
           samples ? latencies[(size_t)((double)samples * 0.99)] : 0.0, samples ? latencies[samples - 1] : 0.0,
           errors, non200);
    return 0;
}
