# countersign_add_test(<name> LABEL unit|integration|gui [TIMEOUT s] SOURCES ... LIBS ...)
# One QtTest executable registered with CTest under a label. GUI tests run offscreen.
function(countersign_add_test name)
  cmake_parse_arguments(T "" "LABEL;TIMEOUT" "SOURCES;LIBS;DEFINES" ${ARGN})
  if(NOT T_LABEL)
    message(FATAL_ERROR "countersign_add_test(${name}): LABEL is required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE Qt6::Test countersign_strict ${T_LIBS})
  if(T_DEFINES)
    target_compile_definitions(${name} PRIVATE ${T_DEFINES})
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    LABELS "${T_LABEL}"
    TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endfunction()
