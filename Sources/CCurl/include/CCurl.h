#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>

/// Signature of the body/header sink handed to libcurl.
typedef size_t (*ccurl_write_callback)(char *data, size_t size, size_t count, void *userdata);

/// libcurl's setopt/getinfo are variadic and unavailable to Swift; these are typed wrappers, one per argument type.
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_write_callback(CURL *handle, CURLoption option, ccurl_write_callback callback);
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
