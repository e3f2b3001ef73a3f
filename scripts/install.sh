#!/bin/sh
# Installs a readygap release without Go: downloads this machine's archive
# and the release's checksums, checks the archive's sha256, and puts the
# binary in DIR.
#
#   sh install.sh VERSION [DIR]     (DIR: default ~/.local/bin)
#
# READYGAP_SHA256, when set, is the archive's sha256 you pinned: it must
# also match. READYGAP_DOWNLOAD_URL replaces the releases' address (a
# mirror, or file:// for a test).
set -eu

version=${1:?usage: install.sh VERSION [DIR], e.g. install.sh v0.1.0}
dir=${2:-$HOME/.local/bin}
base=${READYGAP_DOWNLOAD_URL:-https://github.com/readygap/readygap/releases/download}

fail() { echo "install.sh: $*" >&2; exit 1; }

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
*) fail "no release for $(uname -s)" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no release for $(uname -m)" ;;
esac
plain=${version#v}
exe=readygap
archive=readygap_${plain}_${os}_${arch}.tar.gz
if [ "$os" = windows ]; then
  exe=readygap.exe
  archive=readygap_${plain}_${os}_${arch}.zip
fi
checksums=readygap_${plain}_checksums.txt

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/$archive" "$base/$version/$archive" || fail "cannot download $base/$version/$archive"
curl -fsSL --retry 3 -o "$tmp/$checksums" "$base/$version/$checksums" || fail "cannot download $base/$version/$checksums"

want=$(awk -v f="$archive" '$2 == f { print $1 }' "$tmp/$checksums")
[ -n "$want" ] || fail "$checksums lists no $archive"
if [ -n "${READYGAP_SHA256:-}" ] && [ "$READYGAP_SHA256" != "$want" ]; then
  fail "$archive: the release's checksum $want is not the pinned $READYGAP_SHA256"
fi
if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$tmp/$archive" | cut -d' ' -f1)
else
  got=$(shasum -a 256 "$tmp/$archive" | cut -d' ' -f1)
fi
[ "$got" = "$want" ] || fail "$archive: sha256 $got, the release says $want"

if [ "$os" = windows ]; then
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$tmp/$archive" "$exe" -d "$tmp"
  else
    powershell.exe -NoProfile -Command "Expand-Archive -Force -Path '$tmp/$archive' -DestinationPath '$tmp'"
  fi
else
  tar -xzf "$tmp/$archive" -C "$tmp" "$exe"
fi
mkdir -p "$dir"
cp "$tmp/$exe" "$dir/$exe"
chmod 0755 "$dir/$exe"
"$dir/$exe" version
