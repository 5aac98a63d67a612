# countersign_add_test(<name> LABEL unit|integration|gui [more labels] [TIMEOUT s]
#                      [ENGINES sqlite postgres] SOURCES ... LIBS ... [DEFINES ...])
# One QtTest executable registered with CTest under its labels. GUI tests run offscreen.
# ENGINES: the ledger engines the test runs against (tests/support/testledger.h). Without it, or
# with sqlite, the test <name> runs on SQLite; with postgres the same binary is registered again
# as <name>_postgres with COUNTERSIGN_TEST_ENGINE=postgres and the label postgres added, so
# `ctest -L postgres` runs the PostgreSQL half (each binary starts one private cluster).
function(countersign_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "LABEL;SOURCES;LIBS;DEFINES;ENGINES" ${ARGN})
  if(NOT T_LABEL)
    message(FATAL_ERROR "countersign_add_test(${name}): LABEL is required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(NOT T_ENGINES)
    set(T_ENGINES sqlite)
  endif()
  foreach(engine IN LISTS T_ENGINES)
    if(NOT engine MATCHES "^(sqlite|postgres)$")
      message(FATAL_ERROR "countersign_add_test(${name}): unknown engine '${engine}' (sqlite or postgres)")
    endif()
  endforeach()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE Qt6::Test countersign_strict ${T_LIBS})
  if(T_DEFINES)
    target_compile_definitions(${name} PRIVATE ${T_DEFINES})
  endif()
  if(sqlite IN_LIST T_ENGINES)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES
      LABELS "${T_LABEL}"
      TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
  endif()
  if(postgres IN_LIST T_ENGINES)
    set(labels ${T_LABEL})
    list(APPEND labels postgres)
    list(REMOVE_DUPLICATES labels)
    add_test(NAME ${name}_postgres COMMAND ${name})
    set_tests_properties(${name}_postgres PROPERTIES
      LABELS "${labels}"
      TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "QT_QPA_PLATFORM=offscreen;COUNTERSIGN_TEST_ENGINE=postgres")
  endif()
endfunction()
