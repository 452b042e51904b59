#ifndef NOTES_PAGE_CYAML_SHIM_H
#define NOTES_PAGE_CYAML_SHIM_H

#include <yaml.h>

#endif
