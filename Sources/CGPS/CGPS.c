#include "CGPS.h"

#include <errno.h>
#include <gps.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cgps_session {
    struct gps_data_t data;
};

cgps_session *cgps_open(const char *host, const char *port, int *error_code) {
    cgps_session *session = calloc(1, sizeof(cgps_session));
    if (session == NULL) {
        *error_code = ENOMEM;
        return NULL;
    }
    if (gps_open(host, port, &session->data) != 0) {
        *error_code = errno;
        free(session);
        return NULL;
    }
    if (gps_stream(&session->data, WATCH_ENABLE | WATCH_JSON, NULL) != 0) {
        *error_code = errno;
        gps_close(&session->data);
        free(session);
        return NULL;
    }
    *error_code = 0;
    return session;
}

int cgps_waiting(cgps_session *session, int timeout_usec) {
    errno = 0;
    if (gps_waiting(&session->data, timeout_usec)) {
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
    int count = gps_read(&session->data, NULL, 0);
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
    (void)gps_stream(&session->data, WATCH_DISABLE, NULL);
    (void)gps_close(&session->data);
    free(session);
}

const char *cgps_error_string(int error_code) {
    return gps_errstr(error_code);
}
