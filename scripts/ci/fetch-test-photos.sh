#!/usr/bin/env bash
# Real face photos for the tests, from Debian packages, fetched at test time and never committed:
#   astronaut.png   (python3-skimage; Eileen Collins, NASA, public domain)
#   grace_hopper.jpg (python-matplotlib-data; US Navy, public domain)
# The packages are only downloaded and unpacked into .cache/photos (nothing is installed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/.cache/photos"
[ -f "$out/astronaut.png" ] && [ -f "$out/grace_hopper.jpg" ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
if ! apt-get download -qq python3-skimage python-matplotlib-data 2>/dev/null; then
  apt-get update -qq && apt-get download -qq python3-skimage python-matplotlib-data
fi
for deb in *.deb; do dpkg-deb -x "$deb" x; done
mkdir -p "$out"
cp "$(find x -name astronaut.png | head -1)" "$out/astronaut.png"
cp "$(find x -name grace_hopper.jpg | head -1)" "$out/grace_hopper.jpg"
echo "test photos in $out"
