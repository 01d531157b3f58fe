#!/usr/bin/env bash
# Checks that the .deb built by cpack installs what a desktop user needs, so packaging cannot rot.
set -euo pipefail
build=${1:-build}
deb=$(ls -t "$build"/spyglass_*.deb | head -n 1)
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/spyglass ./usr/bin/spyglass-cli \
         ./usr/share/applications/spyglass.desktop \
         ./usr/share/metainfo/io.github.spyglass.Spyglass.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/spyglass.svg \
         ./usr/share/spyglass/examples/qft4.qasm; do
  if ! grep -q " $f\$" <<<"$contents"; then
    echo "check-package: $deb lacks $f" >&2
    exit 1
  fi
done
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libqt6widgets6 <<<"$depends" || { echo "check-package: Depends lacks Qt: $depends" >&2; exit 1; }
echo "check-package: $deb ok ($(du -h "$deb" | cut -f1), depends on $(tr ',' '\n' <<<"$depends" | wc -l) packages)"
