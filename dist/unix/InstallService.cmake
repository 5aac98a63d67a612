# Installs countersignd's service files where systemd looks for the prefix being installed to,
# decided at install time (cmake --install --prefix P; CPack installs with /usr and DESTDIR):
#   /usr:       this system's unit and sysusers.d folders (pkg-config systemd; Debian 12:
#               /lib/systemd/system, /usr/lib/sysusers.d) and /etc/countersign;
#   any other:  P/lib/systemd/system, P/lib/sysusers.d (systemd searches /usr/local's too) and
#               P/etc/countersign.
# The unit's ExecStart and --config name the same prefix, so the installed unit starts the
# installed binary with the installed config file.
# Set by dist/unix/CMakeLists.txt (install(CODE) before this script): CS_DIST_SOURCE_DIR,
# CS_DIST_BINARY_DIR, CS_BINDIR, CS_DOCDIR, CS_SYSTEM_UNIT_DIR, CS_SYSTEM_SYSUSERS_DIR.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(cs_unit_dir "${CS_SYSTEM_UNIT_DIR}")
  set(cs_sysusers_dir "${CS_SYSTEM_SYSUSERS_DIR}")
  set(cs_conf_dir "/etc/countersign")
else()
  set(cs_unit_dir "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
  set(cs_sysusers_dir "${CMAKE_INSTALL_PREFIX}/lib/sysusers.d")
  set(cs_conf_dir "${CMAKE_INSTALL_PREFIX}/etc/countersign")
endif()
set(COUNTERSIGND "${CMAKE_INSTALL_PREFIX}/${CS_BINDIR}/countersignd")
set(COUNTERSIGND_CONF "${cs_conf_dir}/countersignd.conf")
set(COUNTERSIGN_DOCDIR "${CMAKE_INSTALL_PREFIX}/${CS_DOCDIR}/countersignd")
configure_file("${CS_DIST_SOURCE_DIR}/countersignd.service.in" "${CS_DIST_BINARY_DIR}/countersignd.service" @ONLY)
file(INSTALL DESTINATION "${cs_unit_dir}" TYPE FILE FILES "${CS_DIST_BINARY_DIR}/countersignd.service")
file(INSTALL DESTINATION "${cs_sysusers_dir}" TYPE FILE RENAME countersign.conf
     FILES "${CS_DIST_SOURCE_DIR}/countersign.sysusers")
file(INSTALL DESTINATION "${cs_conf_dir}" TYPE FILE FILES "${CS_DIST_SOURCE_DIR}/countersignd.conf")
