#ifndef NOTES_PAGE_CYAJL_SHIM_H
#define NOTES_PAGE_CYAJL_SHIM_H

#include <yajl/yajl_parse.h>

/// `yajl_config` is variadic, which Swift cannot call: this typed wrapper can be.
static inline int notes_yajl_config(yajl_handle handle, yajl_option option, int value) {
    return yajl_config(handle, option, value);
}

#endif
