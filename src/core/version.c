/*
 * version.c — nt_version(): the version this library was built as (ntensor/version.h,
 * generated from CMakeLists.txt's project() line).
 */
#include "ntensor/version.h"

const char *nt_version(void) {
    return NT_VERSION_STRING;
}
