#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    void (*easy_reset)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
} api;

static const char *load_error = NULL;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_error = dlerror();
        return;
    }
#define CCURL_SYMBOL(field, name)                                                                                     \
    if (!(*(void **)&api.field = dlsym(library, name))) {                                                             \
        load_error = "libcurl.so.4 lacks " name;                                                                      \
        return;                                                                                                       \
    }
    CCURL_SYMBOL(global_init, "curl_global_init")
    CCURL_SYMBOL(easy_init, "curl_easy_init")
    CCURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    CCURL_SYMBOL(easy_reset, "curl_easy_reset")
    CCURL_SYMBOL(easy_perform, "curl_easy_perform")
    CCURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    CCURL_SYMBOL(slist_append, "curl_slist_append")
    CCURL_SYMBOL(slist_free_all, "curl_slist_free_all")
    CCURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    CCURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
#undef CCURL_SYMBOL
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        load_error = "curl_global_init failed";
    }
}

int ccurl_load(const char **error) {
    (void)pthread_once(&load_once, load);
    if (error) *error = load_error;
    return load_error == NULL;
}

CURL *ccurl_easy_init(void) { return ccurl_load(NULL) ? api.easy_init() : NULL; }

// The calls below take a handle from `ccurl_easy_init` (or a list from `ccurl_slist_append`): libcurl is loaded.
void ccurl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
void ccurl_easy_reset(CURL *handle) { api.easy_reset(handle); }
CURLcode ccurl_easy_perform(CURL *handle) { return api.easy_perform(handle); }
const char *ccurl_easy_strerror(CURLcode code) { return ccurl_load(NULL) ? api.easy_strerror(code) : "libcurl not loaded"; }

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string) {
    return ccurl_load(NULL) ? api.slist_append(list, string) : NULL;
}

void ccurl_slist_free_all(struct curl_slist *list) {
    if (list) api.slist_free_all(list);
}

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_write_callback(CURL *handle, CURLoption option, ccurl_write_callback callback) {
    return api.easy_setopt(handle, option, callback);
}

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return api.easy_getinfo(handle, info, value);
}
