// The classifier is static inline in include/json_blocks.h; SwiftPM needs a source file for the target.
#include "json_blocks.h"
