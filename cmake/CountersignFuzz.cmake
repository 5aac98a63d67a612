# COUNTERSIGN_FUZZ: the libFuzzer targets in tests/fuzz/ (docs/SECURITY.md, "Fuzzing";
# scripts/fuzz.sh builds and runs them). Clang only, in a build directory of its own:
#   CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCOUNTERSIGN_FUZZ=ON
# Everything compiled in that directory is instrumented for coverage and checked by AddressSanitizer
# and UndefinedBehaviorSanitizer (Qt's own libraries are not; that is fine). Build only the fuzz
# targets there (target fuzz_targets): they link a few of our sources, not the whole project.
option(COUNTERSIGN_FUZZ "Build the libFuzzer targets in tests/fuzz (clang; a separate build directory)" OFF)

if(COUNTERSIGN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "COUNTERSIGN_FUZZ needs clang (-fsanitize=fuzzer): configure a separate build "
                        "directory with CC=clang-14 CXX=clang++-14, or run scripts/fuzz.sh")
  endif()
  set(COUNTERSIGN_SANITIZERS address,undefined)
  # -fno-sanitize-recover: an undefined-behaviour report stops the run like a crash does.
  add_compile_options(-fsanitize=fuzzer-no-link,${COUNTERSIGN_SANITIZERS} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${COUNTERSIGN_SANITIZERS})
  message(STATUS "countersign: fuzz build (-fsanitize=fuzzer-no-link,${COUNTERSIGN_SANITIZERS})")
endif()
