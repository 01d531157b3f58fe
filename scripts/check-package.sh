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
for f in ./usr/include/spyglass/spyglass/pass_plugin.h ./usr/include/spyglass/core/spyre/loop_ir.h \
         ./usr/include/spyglass/core/common/version.h ./usr/share/pkgconfig/spyglass-plugin.pc \
         ./usr/share/doc/spyglass/examples/plugins/pin_weight_sticks.cpp; do
  if ! grep -q " $f\$" <<<"$contents"; then
    echo "check-package: $deb lacks the plugin SDK file $f" >&2
    exit 1
  fi
done
# The SDK works as shipped: build the example plugins from the unpacked package alone (its headers, its pkg-config
# file) and load them into this build's CLI.
sdk=$(mktemp -d)
trap 'rm -rf "$sdk"' EXIT
dpkg-deb -x "$deb" "$sdk"
export PKG_CONFIG_PATH="$sdk/usr/share/pkgconfig"
for p in pin_weight_sticks hcxh_to_cz; do
  c++ -O1 -shared $(pkg-config --cflags spyglass-plugin) "$sdk/usr/share/doc/spyglass/examples/plugins/$p.cpp" -o "$sdk/$p.so"
done
"$build"/app/spyglass-cli compile resources/examples/mlp.onnxtxt --pass-plugin "$sdk/pin_weight_sticks.so" | grep -q pin_weight_sticks \
  || { echo "check-package: the packaged pin_weight_sticks plugin did not run" >&2; exit 1; }
"$build"/app/spyglass-cli qcompile resources/examples/qft4.qasm --pass-plugin "$sdk/hcxh_to_cz.so" | grep -q hcxh_to_cz \
  || { echo "check-package: the packaged hcxh_to_cz plugin did not run" >&2; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libqt6widgets6 <<<"$depends" || { echo "check-package: Depends lacks Qt: $depends" >&2; exit 1; }
echo "check-package: $deb ok ($(du -h "$deb" | cut -f1), depends on $(tr ',' '\n' <<<"$depends" | wc -l) packages)"
