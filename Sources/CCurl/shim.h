#ifndef NOTES_PAGE_CCURL_SHIM_H
#define NOTES_PAGE_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/socket.h>

// libcurl is loaded when the first transport needs it (dlopen), not linked: a command that never goes to the
// network (decode, help) does not map libcurl and the thirty libraries it brings (TLS, Kerberos, LDAP, SSH),
// about 5 MB resident. Every libcurl function the project calls is reached through this table.
struct notes_curl {
    __typeof__(curl_version_info) *version_info;
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_pause) *easy_pause;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_multi_init) *multi_init;
    __typeof__(curl_multi_cleanup) *multi_cleanup;
    __typeof__(curl_multi_setopt) *multi_setopt;
    __typeof__(curl_multi_add_handle) *multi_add_handle;
    __typeof__(curl_multi_remove_handle) *multi_remove_handle;
    __typeof__(curl_multi_perform) *multi_perform;
    __typeof__(curl_multi_poll) *multi_poll;
    __typeof__(curl_multi_info_read) *multi_info_read;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
};

/// Fills `api` from `library` (dlopen's handle): returns NULL, or the name of a function the library lacks.
static inline const char *notes_curl_find(struct notes_curl *api, void *library) {
#define NOTES_CURL_FIND(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return name;
    NOTES_CURL_FIND(version_info, "curl_version_info")
    NOTES_CURL_FIND(global_init, "curl_global_init")
    NOTES_CURL_FIND(easy_init, "curl_easy_init")
    NOTES_CURL_FIND(easy_cleanup, "curl_easy_cleanup")
    NOTES_CURL_FIND(easy_setopt, "curl_easy_setopt")
    NOTES_CURL_FIND(easy_getinfo, "curl_easy_getinfo")
    NOTES_CURL_FIND(easy_pause, "curl_easy_pause")
    NOTES_CURL_FIND(easy_strerror, "curl_easy_strerror")
    NOTES_CURL_FIND(multi_init, "curl_multi_init")
    NOTES_CURL_FIND(multi_cleanup, "curl_multi_cleanup")
    NOTES_CURL_FIND(multi_setopt, "curl_multi_setopt")
    NOTES_CURL_FIND(multi_add_handle, "curl_multi_add_handle")
    NOTES_CURL_FIND(multi_remove_handle, "curl_multi_remove_handle")
    NOTES_CURL_FIND(multi_perform, "curl_multi_perform")
    NOTES_CURL_FIND(multi_poll, "curl_multi_poll")
    NOTES_CURL_FIND(multi_info_read, "curl_multi_info_read")
    NOTES_CURL_FIND(slist_append, "curl_slist_append")
    NOTES_CURL_FIND(slist_free_all, "curl_slist_free_all")
#undef NOTES_CURL_FIND
    return NULL;
}

/// The loaded library's version as libcurl numbers it (0x075500 is 7.85.0), and as text.
static inline unsigned int notes_curl_version_number(const struct notes_curl *api) {
    return api->version_info(CURLVERSION_NOW)->version_num;
}

static inline const char *notes_curl_version(const struct notes_curl *api) {
    return api->version_info(CURLVERSION_NOW)->version;
}

static inline CURLcode notes_curl_global_init(const struct notes_curl *api) {
    return api->global_init(CURL_GLOBAL_DEFAULT);
}

static inline CURL *notes_curl_easy_init(const struct notes_curl *api) {
    return api->easy_init();
}

static inline void notes_curl_easy_cleanup(const struct notes_curl *api, CURL *handle) {
    api->easy_cleanup(handle);
}

static inline CURLcode notes_curl_easy_pause(const struct notes_curl *api, CURL *handle, int mask) {
    return api->easy_pause(handle, mask);
}

static inline const char *notes_curl_easy_strerror(const struct notes_curl *api, CURLcode code) {
    return api->easy_strerror(code);
}

static inline CURLM *notes_curl_multi_init(const struct notes_curl *api) {
    return api->multi_init();
}

static inline CURLMcode notes_curl_multi_cleanup(const struct notes_curl *api, CURLM *multi) {
    return api->multi_cleanup(multi);
}

static inline CURLMcode notes_curl_multi_add_handle(const struct notes_curl *api, CURLM *multi, CURL *handle) {
    return api->multi_add_handle(multi, handle);
}

static inline CURLMcode notes_curl_multi_remove_handle(const struct notes_curl *api, CURLM *multi, CURL *handle) {
    return api->multi_remove_handle(multi, handle);
}

static inline CURLMcode notes_curl_multi_perform(const struct notes_curl *api, CURLM *multi, int *running) {
    return api->multi_perform(multi, running);
}

/// Waits up to `milliseconds` for activity on the multi handle's transfers.
static inline CURLMcode notes_curl_multi_poll(const struct notes_curl *api, CURLM *multi, int milliseconds) {
    return api->multi_poll(multi, NULL, 0, milliseconds, NULL);
}

static inline CURLMsg *notes_curl_multi_info_read(const struct notes_curl *api, CURLM *multi, int *queued) {
    return api->multi_info_read(multi, queued);
}

static inline struct curl_slist *notes_curl_slist_append(
    const struct notes_curl *api, struct curl_slist *list, const char *line) {
    return api->slist_append(list, line);
}

static inline void notes_curl_slist_free_all(const struct notes_curl *api, struct curl_slist *list) {
    api->slist_free_all(list);
}

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these typed wrappers can be.

static inline CURLcode notes_curl_set_long(const struct notes_curl *api, CURL *handle, CURLoption option, long value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_string(
    const struct notes_curl *api, CURL *handle, CURLoption option, const char *value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_pointer(
    const struct notes_curl *api, CURL *handle, CURLoption option, void *value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_list(
    const struct notes_curl *api, CURL *handle, CURLoption option, struct curl_slist *value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_data_callback(
    const struct notes_curl *api, CURL *handle, CURLoption option, curl_write_callback value) {
    return api->easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_progress_callback(
    const struct notes_curl *api, CURL *handle, curl_xferinfo_callback value) {
    return api->easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

#if LIBCURL_VERSION_NUM < 0x075500
#error "notes-page needs libcurl 7.85 or later (CURLOPT_PROTOCOLS_STR; CURLOPT_PREREQFUNCTION counts every request sent)"
#endif

/// libcurl calls it right before each request goes out, a re-send on a fresh connection included.
static inline CURLcode notes_curl_set_prereq_callback(
    const struct notes_curl *api, CURL *handle, int (*value)(void *, char *, char *, int, int), void *data) {
    CURLcode code = api->easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
    return code == CURLE_OK ? api->easy_setopt(handle, CURLOPT_PREREQDATA, data) : code;
}

/// Opens libcurl's connections closed on exec: a process that embeds the library and starts a child while a
/// page is in flight does not hand the child its connection (which would keep it open past its end).
static inline curl_socket_t notes_curl_open_socket(void *data, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)data;
    (void)purpose;
#ifdef SOCK_CLOEXEC
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    curl_socket_t descriptor = socket(address->family, address->socktype, address->protocol);
    if (descriptor != CURL_SOCKET_BAD) fcntl(descriptor, F_SETFD, FD_CLOEXEC);
    return descriptor;
#endif
}

static inline CURLcode notes_curl_open_sockets_closed_on_exec(const struct notes_curl *api, CURL *handle) {
    return api->easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, notes_curl_open_socket);
}

/// Each transfer on a connection of its own: a paused HTTP/2 stream that shared a connection would stall the
/// others on it (libcurl 7.88 pauses the whole connection once the paused stream's buffer is full).
static inline CURLMcode notes_curl_multi_no_sharing(const struct notes_curl *api, CURLM *multi) {
    return api->multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_NOTHING);
}

static inline CURLcode notes_curl_get_offset(
    const struct notes_curl *api, CURL *handle, CURLINFO info, curl_off_t *value) {
    return api->easy_getinfo(handle, info, value);
}

static inline CURLcode notes_curl_get_long(const struct notes_curl *api, CURL *handle, CURLINFO info, long *value) {
    return api->easy_getinfo(handle, info, value);
}

#endif
