#include "CGPS.h"

#include <dlfcn.h>
#include <errno.h>
#include <gps.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cgps_session {
    struct gps_data_t data;
};

// libgps is loaded when the first session opens (`dlopen("libgps.so.28")`, the soname of the headers built
// against), not when the program starts: it brings eight more libraries (D-Bus, systemd, gcrypt, three
// compressors) to every start, and only a configuration with a gpsd provider needs any of them.
static struct {
    int (*open)(const char *, const char *, struct gps_data_t *);
    int (*stream)(struct gps_data_t *, unsigned int, void *);
    int (*read)(struct gps_data_t *, char *, int);
    bool (*waiting)(const struct gps_data_t *, int);
    int (*close)(struct gps_data_t *);
    const char *(*errstr)(const int);
} api;

static const char *load_error = NULL;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libgps.so." CGPS_SONAME_VERSION, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_error = dlerror();
        return;
    }
#define CGPS_SYMBOL(field, name)                                                                                      \
    if (!(*(void **)&api.field = dlsym(library, name))) {                                                             \
        load_error = "libgps lacks " name;                                                                            \
        return;                                                                                                       \
    }
    CGPS_SYMBOL(open, "gps_open")
    CGPS_SYMBOL(stream, "gps_stream")
    CGPS_SYMBOL(read, "gps_read")
    CGPS_SYMBOL(waiting, "gps_waiting")
    CGPS_SYMBOL(close, "gps_close")
    CGPS_SYMBOL(errstr, "gps_errstr")
#undef CGPS_SYMBOL
}

const char *cgps_load_error(void) {
    (void)pthread_once(&load_once, load);
    return load_error;
}

cgps_session *cgps_open(const char *host, const char *port, int *error_code) {
    if (cgps_load_error() != NULL) {
        *error_code = CGPS_NOT_LOADED;
        return NULL;
    }
    cgps_session *session = calloc(1, sizeof(cgps_session));
    if (session == NULL) {
        *error_code = ENOMEM;
        return NULL;
    }
    if (api.open(host, port, &session->data) != 0) {
        *error_code = errno;
        free(session);
        return NULL;
    }
    if (api.stream(&session->data, WATCH_ENABLE | WATCH_JSON, NULL) != 0) {
        *error_code = errno;
        api.close(&session->data);
        free(session);
        return NULL;
    }
    *error_code = 0;
    return session;
}

int cgps_waiting(cgps_session *session, int timeout_usec) {
    errno = 0;
    if (api.waiting(&session->data, timeout_usec)) {
        return 1;
    }
    return errno == 0 ? 0 : -1;
}

int cgps_read(cgps_session *session, cgps_fix *fix) {
    memset(fix, 0, sizeof(*fix));
    fix->latitude = NAN;
    fix->longitude = NAN;
    fix->epx = NAN;
    fix->epy = NAN;
    fix->eph = NAN;
    fix->time = NAN;
    int count = api.read(&session->data, NULL, 0);
    if (count < 0) {
        return -1;
    }
    struct gps_data_t *data = &session->data;
    fix->mode = data->fix.mode;
    fix->has_position = (data->set & LATLON_SET) != 0;
    fix->latitude = data->fix.latitude;
    fix->longitude = data->fix.longitude;
    fix->epx = data->fix.epx;
    fix->epy = data->fix.epy;
    fix->eph = data->fix.eph;
    if ((data->set & TIME_SET) != 0 && data->fix.time.tv_sec > 0) {
        fix->time = (double)data->fix.time.tv_sec + (double)data->fix.time.tv_nsec / 1e9;
    }
    return count;
}

void cgps_close(cgps_session *session) {
    if (session == NULL) {
        return;
    }
    (void)api.stream(&session->data, WATCH_DISABLE, NULL);
    (void)api.close(&session->data);
    free(session);
}

const char *cgps_error_string(int error_code) {
    // CGPS_NOT_LOADED comes only with a load error; any other code only once libgps is loaded.
    const char *reason = cgps_load_error();
    return reason != NULL ? reason : api.errstr(error_code);
}
