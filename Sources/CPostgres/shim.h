#ifndef NOTES_PAGE_CPOSTGRES_SHIM_H
#define NOTES_PAGE_CPOSTGRES_SHIM_H

// libpq from Debian's libpq-dev: every call is made in Sources/NotesStore/Postgres/PostgresConnection.swift.
#include <dlfcn.h>
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>  // Debian's place
#else
#include <libpq-fe.h>
#endif

// libpq is loaded by the first connection (dlopen), not linked: a command that never opens one does not map
// libpq and what it brings (TLS, Kerberos, LDAP), about 5 MB resident. Each function the project calls is
// reached through this table, under its own name.
struct notes_pq {
    __typeof__(PQconnectdbParams) *PQconnectdbParams;
    __typeof__(PQstatus) *PQstatus;
    __typeof__(PQerrorMessage) *PQerrorMessage;
    __typeof__(PQpass) *PQpass;
    __typeof__(PQfinish) *PQfinish;
    __typeof__(PQbackendPID) *PQbackendPID;
    __typeof__(PQnotifies) *PQnotifies;
    __typeof__(PQfreemem) *PQfreemem;
    __typeof__(PQconsumeInput) *PQconsumeInput;
    __typeof__(PQsocket) *PQsocket;
    __typeof__(PQexec) *PQexec;
    __typeof__(PQclear) *PQclear;
    __typeof__(PQexecPrepared) *PQexecPrepared;
    __typeof__(PQexecParams) *PQexecParams;
    __typeof__(PQntuples) *PQntuples;
    __typeof__(PQnfields) *PQnfields;
    __typeof__(PQgetisnull) *PQgetisnull;
    __typeof__(PQgetvalue) *PQgetvalue;
    __typeof__(PQresultStatus) *PQresultStatus;
    __typeof__(PQputCopyData) *PQputCopyData;
    __typeof__(PQputCopyEnd) *PQputCopyEnd;
    __typeof__(PQgetResult) *PQgetResult;
    __typeof__(PQtransactionStatus) *PQtransactionStatus;
    __typeof__(PQprepare) *PQprepare;
    __typeof__(PQresultErrorMessage) *PQresultErrorMessage;
    __typeof__(PQresultErrorField) *PQresultErrorField;
    __typeof__(PQconninfoParse) *PQconninfoParse;
    __typeof__(PQconninfoFree) *PQconninfoFree;
};

/// Fills `api` from `library` (dlopen's handle): returns NULL, or the name of a function the library lacks.
static inline const char *notes_pq_find(struct notes_pq *api, void *library) {
#define NOTES_PQ_FIND(name) \
    if ((*(void **)&api->name = dlsym(library, #name)) == NULL) return #name;
    NOTES_PQ_FIND(PQconnectdbParams)
    NOTES_PQ_FIND(PQstatus)
    NOTES_PQ_FIND(PQerrorMessage)
    NOTES_PQ_FIND(PQpass)
    NOTES_PQ_FIND(PQfinish)
    NOTES_PQ_FIND(PQbackendPID)
    NOTES_PQ_FIND(PQnotifies)
    NOTES_PQ_FIND(PQfreemem)
    NOTES_PQ_FIND(PQconsumeInput)
    NOTES_PQ_FIND(PQsocket)
    NOTES_PQ_FIND(PQexec)
    NOTES_PQ_FIND(PQclear)
    NOTES_PQ_FIND(PQexecPrepared)
    NOTES_PQ_FIND(PQexecParams)
    NOTES_PQ_FIND(PQntuples)
    NOTES_PQ_FIND(PQnfields)
    NOTES_PQ_FIND(PQgetisnull)
    NOTES_PQ_FIND(PQgetvalue)
    NOTES_PQ_FIND(PQresultStatus)
    NOTES_PQ_FIND(PQputCopyData)
    NOTES_PQ_FIND(PQputCopyEnd)
    NOTES_PQ_FIND(PQgetResult)
    NOTES_PQ_FIND(PQtransactionStatus)
    NOTES_PQ_FIND(PQprepare)
    NOTES_PQ_FIND(PQresultErrorMessage)
    NOTES_PQ_FIND(PQresultErrorField)
    NOTES_PQ_FIND(PQconninfoParse)
    NOTES_PQ_FIND(PQconninfoFree)
#undef NOTES_PQ_FIND
    return NULL;
}

#endif
