#!/bin/bash
# Builds the ncclx container image from container/Dockerfile without Docker
# Hub, from a Debian mirror only:
#   1. debootstrap makes a minimal Debian (the Dockerfile's base), trimmed as
#      debian:<suite>-slim is (no docs, man pages or locales, no apt lists);
#   2. buildah imports it and builds container/Dockerfile FROM it, with chroot
#      isolation (no daemon, no OCI runtime, no cgroups needed), the Debian
#      packages of container/packages.txt fetched from the same mirror;
#   3. the image is checked (ncclx --version and doctor --json inside it, the
#      tools present) and written as a docker-archive tarball that
#      `docker load`, `podman load` and `ctr -n k8s.io images import` read.
# Run as root, after `npm run build:exe`. Needs debootstrap and buildah
# (Debian packages of the same names).
#
#   scripts/build-image.sh [--exe FILE] [--tag NAME:TAG] [--out FILE] [--mirror URL]
#                          [--suite SUITE] [--storage DIR]
#
#   --exe      the single executable (default release/ncclx-linux-<arch>)
#   --tag      the image name (default ncclx:<package version>)
#   --out      the tarball (default release/ncclx-image-<version>-<amd64|arm64>.tar)
#   --mirror   a Debian mirror (default $NCCLX_DEBIAN_MIRROR or http://deb.debian.org/debian)
#   --suite    the Debian release (default bookworm)
#   --storage  a private buildah storage directory (default: buildah's own)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() {
  echo "build-image: $*" >&2
  exit 2
}

version="$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' "$root/package.json")"
[ -n "$version" ] || die "no version in $root/package.json"
case "$(uname -m)" in
  x86_64) exe_arch=x64 image_arch=amd64 ;;
  aarch64) exe_arch=arm64 image_arch=arm64 ;;
  *) die "no image for $(uname -m) (amd64 and arm64 are built)" ;;
esac
exe="$root/release/ncclx-linux-$exe_arch"
tag="ncclx:$version"
out="$root/release/ncclx-image-$version-$image_arch.tar"
mirror="${NCCLX_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
storage=''

while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value"
  case "$1" in
    --exe) exe=$2 ;;
    --tag) tag=$2 ;;
    --out) out=$2 ;;
    --mirror) mirror=$2 ;;
    --suite) suite=$2 ;;
    --storage) storage=$2 ;;
    *) die "unknown argument '$1'" ;;
  esac
  shift 2
done

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and buildah's chroot isolation need it)"
for tool in debootstrap buildah; do
  command -v "$tool" >/dev/null || die "$tool is not installed (apt-get install $tool)"
done
[ -x "$exe" ] || die "$exe is missing: run npm run build:exe first"
got="$(cd / && env -i "$exe" --version 2>&1)" || die "$exe does not run: $got"
[ "$got" = "$version" ] || die "$exe is ncclx $got, the package is $version: run npm run build:exe again"

buildah=(buildah)
[ -n "$storage" ] && buildah+=(--root "$storage/root" --runroot "$storage/run" --storage-driver vfs)
work="$(mktemp -d /tmp/ncclx-image.XXXXXX)"
base="localhost/ncclx-base:$suite-$$"
cleanup() {
  "${buildah[@]}" rmi -f "$base" >/dev/null 2>&1 || true
  rm -rf -- "$work"
}
trap cleanup EXIT

step() { printf 'build-image: %s\n' "$*"; }

step "debootstrap $suite (minbase, $image_arch) from $mirror"
debootstrap --variant=minbase --arch="$image_arch" "$suite" "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  die "debootstrap failed (log: tail of $work/debootstrap.log below)
$(tail -n 20 "$work/debootstrap.log")"

# As debian:<suite>-slim: dpkg leaves out documentation, manual pages and
# translations (for the Dockerfile's packages too); what is there already goes.
cat > "$work/rootfs/etc/dpkg/dpkg.cfg.d/ncclx-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
find "$work/rootfs/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$work/rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
find "$work/rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
rm -rf "$work/rootfs/usr/share/man/"* "$work/rootfs/usr/share/info/"* "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/"*.bin "$work/rootfs/var/cache/apt/archives/"*.deb

step "importing the base as $base"
ctr="$("${buildah[@]}" from scratch)"
"${buildah[@]}" copy "$ctr" "$work/rootfs/" / >/dev/null
"${buildah[@]}" config --arch "$image_arch" --os linux "$ctr"
"${buildah[@]}" commit -q "$ctr" "$base" >/dev/null
"${buildah[@]}" rm "$ctr" >/dev/null

# The build context: what the Dockerfile copies, nothing else.
mkdir -p "$work/context/container" "$work/context/release"
cp "$root/container/packages.txt" "$root/container/node-verdict.sh" "$work/context/container/"
cp "$exe" "$work/context/release/ncclx-linux-$exe_arch"

step "building container/Dockerfile FROM $base as $tag"
"${buildah[@]}" bud --isolation chroot --network host --layers=false --quiet \
  --build-arg "BASE=$base" --build-arg "EXE=release/ncclx-linux-$exe_arch" \
  -f "$root/container/Dockerfile" -t "$tag" "$work/context" > "$work/bud.log" 2>&1 ||
  die "buildah bud failed:
$(tail -n 30 "$work/bud.log")"

step "checking $tag"
ctr="$("${buildah[@]}" from "$tag")"
check() { "${buildah[@]}" run --isolation chroot --network host --cap-add CAP_NET_ADMIN "$ctr" -- "$@"; }
[ "$(check /usr/local/bin/ncclx --version)" = "$version" ] || die "ncclx --version in the image is not $version"
for tool in ip tc nft iptables-save ip6tables-save ibv_devinfo ibstat rping curl jq ncclx-node-verdict; do
  check sh -c "command -v $tool" >/dev/null || die "$tool is missing from the image"
done
set +e
check /usr/local/bin/ncclx doctor --json > "$work/doctor.json"
code=$?
set -e
[ "$code" -le 1 ] && grep -q '^  "results": \[' "$work/doctor.json" || die "ncclx doctor --json in the image exited $code without a report"
"${buildah[@]}" rm "$ctr" >/dev/null

mkdir -p "$(dirname "$out")"
rm -f -- "$out"
"${buildah[@]}" push -q "$tag" "docker-archive:$out:$tag" >/dev/null
(cd "$(dirname "$out")" && sha256sum "$(basename "$out")" > "$(basename "$out").sha256")
size="$(du -m "$out" | cut -f1)"
step "$tag: $out (${size} MiB), doctor exit $code inside it; load it with: docker load -i $out (or podman load, ctr -n k8s.io images import)"
