#!/bin/sh
# Fetches the static busybox of the agent image (scripts/image -busybox) for linux/amd64
# and linux/arm64: Debian 12's busybox-static package, pinned by version and SHA-256, from
# Debian's mirror, unpacked with dpkg-deb. Prints the -busybox flags for scripts/image, one
# argument a line.
# When Debian replaces the package (a point release), the download or the checksum fails:
# move the pins on (apt-cache show busybox-static gives the version and SHA256).
# Usage: scripts/busybox.sh OUTDIR
set -eu
out=${1:?usage: busybox.sh OUTDIR}
version=1.35.0-4+deb12u1+b1
mkdir -p "$out"
for pair in \
  amd64:3d3fdbe91d4660c873e14b092c213fe81c1da6362daa236eb25d0171eb108744 \
  arm64:732c9135564fc71337e0e05fb4da4d11e6c28c1834bce3e405e575afef2a52f5; do
  arch=${pair%%:*} sum=${pair#*:}
  deb="busybox-static_${version}_${arch}.deb"
  path="pool/main/b/busybox/$deb"
  curl -fsSL --retry 3 -o "$out/$deb" "https://deb.debian.org/debian/$path"
  echo "$sum  $out/$deb" | sha256sum -c - >&2
  dpkg-deb -x "$out/$deb" "$out/$arch"
  printf '%s\n' -busybox "linux/$arch=$out/$arch/bin/busybox"
done
