# Two Debian packages from `cpack -G DEB` in the build folder (docs/OPERATIONS.md, "Packages"):
#   countersign  — the console (countersign, countersign-demo), its desktop entry, metainfo, icons;
#   countersignd — the backend service (countersignd, countersign-mcp, paysim), the systemd unit,
#                  /etc/countersign/countersignd.conf, maintainer scripts creating the service user.
# Library dependencies come from dpkg-shlibdeps; Qt's plugins (which it cannot see) are named.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME countersign)
set(CPACK_PACKAGE_VENDOR "The Countersign authors")
set(CPACK_PACKAGE_CONTACT "The Countersign authors <packaging@countersign.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's synopsis is the first line of its component description below. CPackDeb (3.25)
# puts CPACK_PACKAGE_DESCRIPTION_SUMMARY in front of it unless the summary is CPack's own
# default, which this is; otherwise both packages would share the project's one-line summary.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Installed with CMAKE_INSTALL_PREFIX=/usr into a DESTDIR, so that dist/unix/InstallService.cmake
# sees /usr and puts the unit, sysusers.d entry and conffile in the system's folders (/lib, /etc).
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr) # with DESTDIR, the prefix installed to (not CMAKE_INSTALL_PREFIX's)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL console backend)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_CONSOLE_PACKAGE_NAME countersign)
set(CPACK_DEBIAN_CONSOLE_PACKAGE_SECTION utils)
# libqt6svg6 also holds the SVG icon and image plugins the console's icons need.
set(CPACK_DEBIAN_CONSOLE_PACKAGE_DEPENDS "libqt6svg6")
# --demo drives countersignd and paysim as child processes; Wayland sessions want Qt's Wayland
# platform plugin (without it the console runs through XWayland with libqt6gui6's xcb plugin).
# The console's own German is built in; qt6-translations-l10n gives Qt's standard buttons and
# dialogs (qtbase_de.qm) the same language.
set(CPACK_DEBIAN_CONSOLE_PACKAGE_RECOMMENDS "countersignd, qt6-wayland, qt6-translations-l10n")
set(CPACK_COMPONENT_CONSOLE_DESCRIPTION "review console for the refunds AI agents propose
Countersign is the desktop console for the people who sign off on consequential
actions that AI agents take through payment APIs: approve or reject proposed
refunds, look them up at the provider, reconcile lost answers with evidence.
It connects to a countersignd backend. A demo mode plays training scenarios
against a simulated provider (it needs the countersignd package).")

set(CPACK_DEBIAN_BACKEND_PACKAGE_NAME countersignd)
set(CPACK_DEBIAN_BACKEND_PACKAGE_SECTION net)
set(CPACK_DEBIAN_BACKEND_PACKAGE_DEPENDS "adduser, libqt6sql6-sqlite, libqt6sql6-psql")
set(CPACK_COMPONENT_BACKEND_DESCRIPTION "backend service that sends agents' approved refunds exactly once
countersignd keeps a durable ledger of the actions AI agents propose (refunds
first), serves the REST API and MCP endpoint agents and the console use, and
sends each approved action to the payment provider exactly once, under one
idempotency key, reconciling lost answers. This package also has
countersign-mcp (a stdio MCP server for agent hosts) and paysim (a
Stripe-compatible simulator for demos and tests).")
set(CPACK_DEBIAN_BACKEND_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/dist/debian/countersignd/postinst
  ${PROJECT_SOURCE_DIR}/dist/debian/countersignd/prerm
  ${PROJECT_SOURCE_DIR}/dist/debian/countersignd/postrm
  ${PROJECT_SOURCE_DIR}/dist/debian/countersignd/conffiles)
set(CPACK_DEBIAN_BACKEND_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# /usr/share/doc/<package>: copyright and the changelog, as Debian policy requires. The packages
# are native (built by the project itself, version without a Debian revision), so the changelog
# is changelog.gz, not changelog.Debian.gz.
set(changelog_gz ${CMAKE_BINARY_DIR}/dist/debian/changelog.gz)
add_custom_command(OUTPUT ${changelog_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/dist/debian
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/dist/debian/changelog > ${changelog_gz}
  DEPENDS ${PROJECT_SOURCE_DIR}/dist/debian/changelog VERBATIM)
add_custom_target(countersign-changelog ALL DEPENDS ${changelog_gz})
set(countersign_packages countersign countersignd)
foreach(component package IN ZIP_LISTS CPACK_COMPONENTS_ALL countersign_packages)
  install(FILES ${PROJECT_SOURCE_DIR}/dist/debian/copyright ${changelog_gz}
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/docs/OPERATIONS.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/countersignd COMPONENT backend)
# lintian's overrides, each with its reason in the file.
install(FILES ${PROJECT_SOURCE_DIR}/dist/debian/countersignd/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides RENAME countersignd COMPONENT backend)
# The Prometheus alert rules (docs/OPERATIONS.md, "Monitor"), for a rule_files: entry.
install(FILES ${PROJECT_SOURCE_DIR}/dist/prometheus/countersign-alerts.yml
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/countersignd/examples COMPONENT backend)

include(CPack)
