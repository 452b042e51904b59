#ifndef NOTES_PAGE_CPOSTGRES_SHIM_H
#define NOTES_PAGE_CPOSTGRES_SHIM_H

// libpq from Debian's libpq-dev: every call is made in Sources/NotesStore/Postgres/PostgresConnection.swift.
#include <libpq-fe.h>

#endif
