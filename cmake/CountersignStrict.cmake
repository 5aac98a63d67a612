# One INTERFACE target carries the strictness every Countersign target links.
add_library(countersign_strict INTERFACE)
add_library(Countersign::Strict ALIAS countersign_strict)

target_compile_features(countersign_strict INTERFACE cxx_std_20)
target_compile_options(countersign_strict INTERFACE -Wall -Wextra -Wpedantic)
if(COUNTERSIGN_WERROR)
  target_compile_options(countersign_strict INTERFACE -Werror)
endif()
# Hardening as Debian's dpkg-buildflags asks of a packaged program (lintian's hardening-no-fortify-
# functions and hardening-no-bindnow): checked libc calls, stack protector, read-only relocations
# resolved at start. _FORTIFY_SOURCE needs optimisation, so a Debug build (-O0) leaves it out, as
# does the fuzz build (AddressSanitizer checks those calls itself).
if(COUNTERSIGN_FUZZ)
  target_compile_options(countersign_strict INTERFACE -fstack-protector-strong)
else()
  target_compile_options(countersign_strict INTERFACE -fstack-protector-strong
    $<$<NOT:$<CONFIG:Debug>>:-D_FORTIFY_SOURCE=2>)
endif()
target_link_options(countersign_strict INTERFACE -Wl,-z,relro -Wl,-z,now)
target_compile_definitions(countersign_strict INTERFACE
  QT_NO_CAST_FROM_ASCII
  QT_NO_CAST_TO_ASCII
  QT_NO_CAST_FROM_BYTEARRAY
  QT_USE_QSTRINGBUILDER
  QT_NO_URL_CAST_FROM_STRING
  QT_DISABLE_DEPRECATED_BEFORE=0x060400
  COUNTERSIGN_VERSION="${PROJECT_VERSION}"
)
