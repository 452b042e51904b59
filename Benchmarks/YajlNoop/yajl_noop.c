#include "yajl_noop.h"

#include <yajl/yajl_parse.h>

static int on_event(void *context) { ++*(long *)context; return 1; }
static int on_boolean(void *context, int value) { (void)value; return on_event(context); }
static int on_text(void *context, const char *text, size_t length) { (void)text; (void)length; return on_event(context); }
static int on_string(void *context, const unsigned char *text, size_t length) { (void)text; (void)length; return on_event(context); }

static const yajl_callbacks callbacks = {
    on_event, on_boolean, NULL, NULL, on_text, on_string, on_event, on_string, on_event, on_event, on_event,
};

long yajl_noop_parse(const unsigned char *bytes, size_t length, size_t chunk) {
    long events = 0;
    yajl_handle handle = yajl_alloc(&callbacks, NULL, &events);
    if (handle == NULL) return -1;
    if (chunk == 0) chunk = length;
    for (size_t offset = 0; offset < length; offset += chunk) {
        size_t size = length - offset < chunk ? length - offset : chunk;
        if (yajl_parse(handle, bytes + offset, size) != yajl_status_ok) { events = -1; break; }
    }
    if (events >= 0 && yajl_complete_parse(handle) != yajl_status_ok) events = -1;
    yajl_free(handle);
    return events;
}
