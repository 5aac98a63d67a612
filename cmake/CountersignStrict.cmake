# One INTERFACE target carries the strictness every Countersign target links.
add_library(countersign_strict INTERFACE)
add_library(Countersign::Strict ALIAS countersign_strict)

target_compile_features(countersign_strict INTERFACE cxx_std_20)
target_compile_options(countersign_strict INTERFACE -Wall -Wextra -Wpedantic)
if(COUNTERSIGN_WERROR)
  target_compile_options(countersign_strict INTERFACE -Werror)
endif()
target_compile_definitions(countersign_strict INTERFACE
  QT_NO_CAST_FROM_ASCII
  QT_NO_CAST_TO_ASCII
  QT_NO_CAST_FROM_BYTEARRAY
  QT_USE_QSTRINGBUILDER
  QT_NO_URL_CAST_FROM_STRING
  QT_DISABLE_DEPRECATED_BEFORE=0x060400
  COUNTERSIGN_VERSION="${PROJECT_VERSION}"
)
