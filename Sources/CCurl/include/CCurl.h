#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>

/// libcurl, loaded when the first transfer needs it (`dlopen("libcurl.so.4")`), not when the program starts: with
/// what it loads (TLS, Kerberos, LDAP, SSH: 38 libraries on Debian 12) it was most of the dynamic loader's work at
/// every start, and a start with a warm cache asks no service before READY=1. Every libcurl call weathertag makes
/// goes through these functions.

/// Loads libcurl and initializes it (`curl_global_init`), once; 1 when it is usable, else 0 with the loader's reason
/// in `*error` (when `error` is not NULL).
int ccurl_load(const char **error);

/// Signature of the body/header sink handed to libcurl.
typedef size_t (*ccurl_write_callback)(char *data, size_t size, size_t count, void *userdata);

/// NULL when libcurl could not be loaded (`ccurl_load` says why).
CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
void ccurl_easy_reset(CURL *handle);
CURLcode ccurl_easy_perform(CURL *handle);
const char *ccurl_easy_strerror(CURLcode code);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string);
void ccurl_slist_free_all(struct curl_slist *list);

/// libcurl's setopt/getinfo are variadic and unavailable to Swift; these are typed wrappers, one per argument type.
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_write_callback(CURL *handle, CURLoption option, ccurl_write_callback callback);
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
