#!/usr/bin/env bash
# Installs every Debian 12 package Countersign needs to build, test, run and take screenshots.
# Safe to run twice; fast when everything is already present (no apt-get update then).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libqt6sql6-psql
  # Debian's qt6-httpserver-dev forgets to depend on qt6-websockets-dev (STYLE.md).
  qt6-httpserver-dev qt6-websockets-dev
  # Debian's qt6-charts-dev forgets libqt6opengl6-dev.
  qt6-charts-dev libqt6opengl6-dev libgl-dev
  qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools
  # The console's translations (resources/translations): lupdate and lrelease come with
  # qt6-l10n-tools (find_package(Qt6 LinguistTools) with qt6-tools-dev); Qt's own German for its
  # standard buttons and dialogs (qtbase_de.qm, which tst_translations expects) with qt6-translations-l10n.
  qt6-l10n-tools qt6-translations-l10n
  qtkeychain-qt6-dev
  libqt6svg6 qt6-qpa-plugins
  sqlite3 libbenchmark-dev
  # countersignd backup links libsqlite3 itself: SQLite's online backup API (server/ledger/ledgerbackup.cpp).
  libsqlite3-dev
  # The shared ledger (issue 13): libpq's headers for cs_ledger (it asks a QPSQL session whether
  # it is still alive), the server binaries the tests' private clusters run (tests/support/
  # pgcluster.h, scripts/pg-cluster.sh), pg_trgm (contrib) for the text search. No system cluster
  # is created or started: see createcluster.conf below.
  libpq-dev postgresql postgresql-contrib
  # scripts/deployment-demo.sh (ctest deployment_demo) talks to the API with curl and jq.
  curl jq
  # GUI tests and screenshots without a display.
  # xdotool drives a real console window with the keyboard for scripts/screenshot-two-refunds.sh.
  xvfb xauth x11-apps imagemagick fonts-dejavu-core xdotool
  # TLS: Qt's OpenSSL backend at run time, and the throwaway CA and certificates that
  # tests/client/tst_tls and tst_hostile_http make; bench_http runs countersignd under prlimit.
  openssl libssl3 util-linux
  # The Stripe SDK compatibility test and the OpenAPI validator run on Node.js.
  nodejs
  # bench_http's comparison server on Boost.Beast (header-only).
  libboost1.81-dev
  # The libFuzzer targets (scripts/fuzz.sh): clang-14's -fsanitize=fuzzer,address,undefined links
  # the runtimes in libclang-rt-14-dev, which clang-14 only recommends (not installed here).
  clang-14 libclang-rt-14-dev libfuzzer-14-dev
  # The Promela model of the execution protocol (tests/model/): spin writes pan.c, gcc builds it.
  spin
  # The .deb packages and their checks (scripts/check-packaging.sh, ctest packaging): CPack finds
  # the ELF files with `file` and hands them to dpkg-shlibdeps (dpkg-dev, via build-essential);
  # lintian, desktop-file-validate (desktop-file-utils), appstreamcli (appstream), systemd-analyze
  # and systemd-sysusers (systemd) judge what is installed; man (man-db, with groff) renders the
  # man pages. deb-systemd-helper (init-system-helpers) is essential.
  file lintian desktop-file-utils appstream systemd man-db
  # promtool (Debian's prometheus package) lints GET /metrics (tst_api_metrics) and the alert
  # rules shipped in dist/prometheus (ctest prometheus_rules).
  prometheus
)

missing=()
for p in "${packages[@]}"; do
  # A package counts as present when dpkg says it is installed (any version: nodejs may come from
  # another repository on developer machines).
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

# Installing `postgresql` on Debian would create the cluster 15/main and start its service;
# postgresql-common reads create_main_cluster from this file first. Written before installing,
# kept by dpkg (--force-confold) when postgresql-common brings its own.
conf=/etc/postgresql-common/createcluster.conf
if ! grep -qs '^[[:space:]]*create_main_cluster[[:space:]]*=[[:space:]]*false' "$conf"; then
  $SUDO mkdir -p /etc/postgresql-common
  echo "create_main_cluster = false" | $SUDO tee -a "$conf" >/dev/null
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confold "${missing[@]}"
