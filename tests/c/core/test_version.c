/*
 * test_version.c — the version macros of ntensor/version.h and nt_version() agree with each
 * other and with CMakeLists.txt's project() version (NT_TEST_PROJECT_VERSION, given by
 * tests/c/CMakeLists.txt).
 */
#include <stdio.h>

#include "nt_test.h"

static void test_version_string_is_project_version(void) {
    EXPECT(strcmp(NT_VERSION_STRING, NT_TEST_PROJECT_VERSION) == 0);
    EXPECT(strcmp(nt_version(), NT_VERSION_STRING) == 0);
}

static void test_version_parts_make_the_string(void) {
    char text[64];
    snprintf(text, sizeof text, "%d.%d.%d", NT_VERSION_MAJOR, NT_VERSION_MINOR, NT_VERSION_PATCH);
    EXPECT(strcmp(text, NT_VERSION_STRING) == 0);
    EXPECT(NT_VERSION_NUMBER ==
           NT_VERSION_MAJOR * 10000 + NT_VERSION_MINOR * 100 + NT_VERSION_PATCH);
}

int main(void) {
    NT_RUN(test_version_string_is_project_version);
    NT_RUN(test_version_parts_make_the_string);
    return nt_test_summary();
}
