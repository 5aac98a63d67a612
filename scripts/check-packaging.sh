#!/usr/bin/env bash
# The two .deb packages, built and checked (ctest `packaging`; docs/OPERATIONS.md "Packages"):
#   1. cpack -G DEB in the build folder: exactly countersign and countersignd, library
#      dependencies from dpkg-shlibdeps;
#   2. lintian: no error, no warning, no hardening-no-* note;
#   3. both installed into a fresh, empty root with dpkg --root (maintainer scripts chrootless,
#      DPKG_ROOT set: they create the service user and its state folder in that root, enable the
#      unit there, touch nothing of this system);
#   4. the files where the desktop and systemd look for them, validated there:
#      desktop-file-validate, appstreamcli validate, systemd-analyze verify, the man pages render
#      without warnings, the shipped config file starts the installed countersignd;
#   5. installed again over itself (the upgrade path: the user is not made twice, an edited
#      conffile is kept), removed (the conffile stays) and purged (it goes, the ledger stays).
# Usage: scripts/check-packaging.sh BUILD_DIR        Exit 0 when all holds, 1 at the first failure,
# 77 (skipped) without root (the maintainer scripts chown) or without one of the tools below.
set -euo pipefail
build=$(cd "${1:?usage: check-packaging.sh BUILD_DIR}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/countersign-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; }
for tool in cpack dpkg-shlibdeps file lintian dpkg dpkg-deb deb-systemd-helper desktop-file-validate appstreamcli \
            systemd-analyze systemd-sysusers man; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/install-deps.sh installs it)"; exit 77; }
done
# The maintainer scripts chown the config file and the state folder to the service user.
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (CI runs it as root): the maintainer scripts chown"; exit 77; }

# 1. Build the packages.
(cd "$build" && cpack -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
mapfile -t debs < <(ls "$work"/debs/*.deb)
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
[ "$names" = "countersign countersignd " ] || fail "packages built: $names (expected countersign countersignd)"
console=$(ls "$work"/debs/countersign_*.deb)
backend=$(ls "$work"/debs/countersignd_*.deb)
pass "cpack built $(basename "$console") and $(basename "$backend")"
for d in "$console" "$backend"; do
  depends=$(dpkg-deb -f "$d" Depends)
  case "$depends" in *libqt6core6*) ;; *) fail "$(basename "$d"): Depends has no libqt6core6 (dpkg-shlibdeps): $depends" ;; esac
done
case "$(dpkg-deb -f "$console" Depends)" in *libqt6widgets6*) ;; *) fail "countersign does not depend on libqt6widgets6" ;; esac
case "$(dpkg-deb -f "$backend" Depends)" in *libqt6sql6-sqlite*) ;; *) fail "countersignd does not depend on the SQLite driver" ;; esac
pass "Depends worked out by dpkg-shlibdeps, plus the Qt plugins it cannot see"

# 2. lintian: an error or a warning fails (there are none; info tags are not shown).
if ! lintian --allow-root --fail-on error,warning --tag-display-limit 0 "$console" "$backend" >"$work/lintian.log" 2>&1; then
  cat "$work/lintian.log" >&2
  fail "lintian reports errors or warnings"
fi
sed 's/^/  lintian: /' "$work/lintian.log"
pass "lintian: no errors, no warnings"
# The hardening dpkg-buildflags asks for (cmake/CountersignStrict.cmake): lintian reports its
# absence only at info level, so look for those tags explicitly.
lintian --allow-root -I --tag-display-limit 0 "$console" "$backend" >"$work/lintian-info.log" 2>&1 || true
if grep -E 'hardening-no-(relro|fortify-functions|bindnow)' "$work/lintian-info.log" >&2; then
  fail "the binaries are not hardened (stack protector, _FORTIFY_SOURCE, -z relro -z now)"
fi
pass "hardened: relro, bindnow and fortified functions"

# 3. Install into a fresh root.
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/etc"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
# What the maintainer scripts would change on this system if they ignored DPKG_ROOT.
host_state() {
  cat /etc/passwd /etc/group | sha256sum
  { ls -la /etc/systemd/system /etc/systemd/system/multi-user.target.wants /var/lib/systemd/deb-systemd-helper-enabled \
      /var/lib/countersign /etc/countersign 2>&1 || true; } | sha256sum
}
host_before=$(host_state)
dpk() { dpkg --root="$root" --force-script-chrootless --force-depends --force-not-root --log=/dev/null "$@"; }
dpk -i "$backend" "$console" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg --root -i"; }
[ "$(host_state)" = "$host_before" ] || fail "installing into a root changed this system's users, units or folders"
pass "installed into a fresh root with dpkg --root (maintainer scripts chrootless)"

# 4. Where things land, and whether the tools that read them accept them.
id=org.countersign.Countersign
for f in usr/bin/countersign usr/bin/countersign-demo usr/bin/countersignd usr/bin/countersign-mcp usr/bin/paysim \
         usr/share/applications/$id.desktop usr/share/metainfo/$id.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/$id.svg \
         lib/systemd/system/countersignd.service usr/lib/sysusers.d/countersign.conf etc/countersign/countersignd.conf \
         usr/share/doc/countersign/copyright usr/share/doc/countersignd/copyright usr/share/doc/countersignd/OPERATIONS.md \
         usr/share/doc/countersignd/examples/countersign-alerts.yml; do
  [ -e "$root/$f" ] || fail "/$f is not installed"
done
for size in 16 22 24 32 48 64 128 256 512; do
  png="$root/usr/share/icons/hicolor/${size}x${size}/apps/$id.png"
  [ -f "$png" ] || fail "no ${size}x${size} icon"
  case "$(file -b "$png")" in "PNG image data, $size x $size,"*) ;; *) fail "$png is not a ${size}x${size} PNG: $(file -b "$png")" ;; esac
done
for page in countersign countersign-demo countersignd countersign-mcp paysim; do
  gz="$root/usr/share/man/man1/$page.1.gz"
  [ -f "$gz" ] || fail "no man page for $page"
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$gz" 2>&1 >/dev/null || true)
  [ -z "$warnings" ] || fail "man $page: $warnings"
done
pass "binaries, desktop entry, metainfo, icons (SVG + 9 PNG sizes), 5 man pages, unit, sysusers, config, docs in place"

desktop-file-validate "$root/usr/share/applications/$id.desktop" || fail "desktop-file-validate"
grep -qx "Icon=$id" "$root/usr/share/applications/$id.desktop" || fail "the desktop entry's Icon is not $id"
appstreamcli validate --no-net "$root/usr/share/metainfo/$id.metainfo.xml" >"$work/appstream.log" 2>&1 \
  || { cat "$work/appstream.log" >&2; fail "appstreamcli validate"; }
grep -q "<id>$id</id>" "$root/usr/share/metainfo/$id.metainfo.xml" || fail "metainfo id is not $id"
grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$root/usr/share/metainfo/$id.metainfo.xml" \
  || fail "metainfo does not launch $id.desktop"
pass "desktop-file-validate and appstreamcli validate --no-net; one id ($id) in desktop entry, metainfo and icon names"

# systemd-analyze resolves the unit's dependencies (sysinit.target, network-online.target, …) and
# checks its commands in the root: give it what any system that runs the unit has, this system's
# own units (ours are not overwritten) and /bin/kill (ExecReload; procps).
cp -rn /lib/systemd/system/. "$root/lib/systemd/system/"
install -D /bin/kill "$root/bin/kill"
systemd-analyze verify --root="$root" --man=no --generators=no /lib/systemd/system/countersignd.service \
  >"$work/verify.log" 2>&1 || { cat "$work/verify.log" >&2; fail "systemd-analyze verify"; }
[ ! -s "$work/verify.log" ] || { cat "$work/verify.log" >&2; fail "systemd-analyze verify printed warnings"; }
grep -qx 'ExecStart=/usr/bin/countersignd serve --config /etc/countersign/countersignd.conf' \
  "$root/lib/systemd/system/countersignd.service" || fail "the unit does not start /usr/bin/countersignd with /etc/countersign/countersignd.conf"
wants="$root/etc/systemd/system/multi-user.target.wants/countersignd.service"
[ "$(readlink "$wants")" = /lib/systemd/system/countersignd.service ] || fail "the unit is not enabled in the root"
grep -q '^countersign:x:[0-9]*:[0-9]*:Countersign backend:/var/lib/countersign:/usr/sbin/nologin$' "$root/etc/passwd" \
  || fail "no countersign service user in the root's /etc/passwd: $(cat "$root/etc/passwd")"
uid=$(awk -F: '$1 == "countersign" { print $3 }' "$root/etc/passwd")
gid=$(awk -F: '$1 == "countersign" { print $3 }' "$root/etc/group")
[ "$(stat -c '%u:%g %a' "$root/etc/countersign/countersignd.conf")" = "0:$gid 640" ] \
  || fail "countersignd.conf is $(stat -c '%u:%g %a' "$root/etc/countersign/countersignd.conf"), expected 0:$gid 640"
[ "$(stat -c '%u:%g %a' "$root/var/lib/countersign")" = "$uid:$gid 700" ] \
  || fail "/var/lib/countersign is $(stat -c '%u:%g %a' "$root/var/lib/countersign" 2>&1), expected $uid:$gid 700"
pass "systemd-analyze verify clean; unit enabled; service user and /var/lib/countersign (0700) made by the maintainer script; config root:countersign 0640"

# The shipped config file, read by the installed binary (its db and listen overridden).
"$root/usr/bin/countersignd" serve --config "$root/etc/countersign/countersignd.conf" \
  --db "$work/ledger.db" --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
for _ in $(seq 1 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
url=$(head -1 "$work/serve.out")
case "$url" in http://127.0.0.1:*) ;; *) kill "$pid" 2>/dev/null || true; cat "$work/serve.err" >&2; fail "the installed countersignd did not start from the shipped config" ;; esac
kill -TERM "$pid"
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "countersignd did not stop within 30 s of SIGTERM"; }
wait "$pid" || fail "countersignd did not exit 0 on SIGTERM"
pass "the installed countersignd starts from the shipped config ($url) and stops cleanly"

# 5. The upgrade path (postinst configure with the old version): an edited conffile is kept, the
# user is not made again, the unit stays enabled.
echo '# edited here' >>"$root/etc/countersign/countersignd.conf"
dpk -i "$backend" >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg --root -i over the installed package"; }
grep -qx '# edited here' "$root/etc/countersign/countersignd.conf" || fail "reinstalling lost the edited conffile"
[ "$(grep -c '^countersign:' "$root/etc/passwd")" = 1 ] || fail "reinstalling made the user again"
[ "$(stat -c '%u:%g %a' "$root/etc/countersign/countersignd.conf")" = "0:$gid 640" ] || fail "reinstalling changed the config's mode"
[ -L "$wants" ] || fail "reinstalling disabled the unit"
pass "installed again over itself: edited conffile kept, one user, still enabled"

# Remove, then purge.
dpk -r countersign countersignd >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg --root -r"; }
[ ! -e "$root/usr/bin/countersignd" ] || fail "countersignd is still installed after dpkg -r"
[ -f "$root/etc/countersign/countersignd.conf" ] || fail "dpkg -r removed the conffile"
dpk -P countersignd >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg --root -P"; }
[ ! -e "$root/etc/countersign/countersignd.conf" ] || fail "the conffile survived the purge"
[ ! -e "$wants" ] && [ ! -L "$wants" ] || fail "the enablement survived the purge"
[ ! -L "$root/etc/systemd/system/countersignd.service" ] || fail "a mask of the unit survived the purge"
[ -d "$root/var/lib/countersign" ] || fail "the purge removed /var/lib/countersign (the ledger is kept)"
[ "$(host_state)" = "$host_before" ] || fail "the maintainer scripts changed this system's users, units or folders"
pass "removed (conffile kept) and purged (conffile, enablement gone; the ledger's folder kept); this system untouched"
