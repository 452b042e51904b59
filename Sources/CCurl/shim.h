#ifndef NOTES_PAGE_CCURL_SHIM_H
#define NOTES_PAGE_CCURL_SHIM_H

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/socket.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these typed wrappers can be.

static inline CURLcode notes_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_data_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_progress_callback(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

#if LIBCURL_VERSION_NUM < 0x075000
#error "notes-page needs libcurl 7.80 or later (CURLOPT_PREREQFUNCTION counts every request sent)"
#endif

/// libcurl calls it right before each request goes out, a re-send on a fresh connection included.
static inline CURLcode notes_curl_set_prereq_callback(
    CURL *handle, int (*value)(void *, char *, char *, int, int), void *data) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
    return code == CURLE_OK ? curl_easy_setopt(handle, CURLOPT_PREREQDATA, data) : code;
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

static inline CURLcode notes_curl_open_sockets_closed_on_exec(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, notes_curl_open_socket);
}

/// Each transfer on a connection of its own: a paused HTTP/2 stream that shared a connection would stall the
/// others on it (libcurl 7.88 pauses the whole connection once the paused stream's buffer is full).
static inline CURLMcode notes_curl_multi_no_sharing(CURLM *multi) {
    return curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_NOTHING);
}

static inline CURLcode notes_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode notes_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
