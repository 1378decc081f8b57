#ifndef CGPS_H
#define CGPS_H

#include <stdbool.h>
#include <stdint.h>

/// An opaque gpsd session; owns one heap-allocated, zeroed `struct gps_data_t` whose address never moves.
typedef struct cgps_session cgps_session;

/// The libgps soname the headers describe (Debian 12: libgps.so.28).
#define CGPS_SONAME_VERSION "28"

/// `cgps_open`'s error code when libgps could not be loaded (`cgps_error_string` gives the loader's reason).
#define CGPS_NOT_LOADED (-1000)

/// The parts of a TPV report weathertag uses, copied out of libgps' large, non-Sendable struct.
typedef struct {
    /// 0 unknown/no fix, 1 no fix, 2 2D, 3 3D (gpsd's MODE_* values).
    int mode;
    /// True when this read set latitude/longitude (LATLON_SET).
    bool has_position;
    double latitude;
    double longitude;
    /// Horizontal error estimates in metres; NaN when unknown.
    double epx;
    double epy;
    /// Estimated horizontal position error in metres; NaN when unknown.
    double eph;
    /// Fix time as Unix seconds; NaN until gpsd has a date.
    double time;
} cgps_fix;

/// Opens a session to gpsd at host:port and enables JSON watching. Returns NULL and sets *error_code on failure.
cgps_session *cgps_open(const char *host, const char *port, int *error_code);

/// Waits up to `timeout_usec` microseconds for data. 1 data waiting, 0 timeout, -1 error.
int cgps_waiting(cgps_session *session, int timeout_usec);

/// Reads one report. Returns the byte count (>= 0), or -1 when gpsd went away.
int cgps_read(cgps_session *session, cgps_fix *fix);

/// Disables watching, closes the connection and frees the session.
void cgps_close(cgps_session *session);

/// Why libgps could not be loaded (it is loaded at the first call); NULL when it is.
const char *cgps_load_error(void);

/// libgps' text for an error code returned by cgps_open (the loader's reason for CGPS_NOT_LOADED).
const char *cgps_error_string(int error_code);

#endif
