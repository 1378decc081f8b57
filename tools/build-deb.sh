#!/usr/bin/env bash
# Builds weathertag's Debian package from a clean copy of the tree: tools/build-deb.sh FOLDER prints the path of
# FOLDER/weathertag_VERSION_ARCH.deb. The copy holds the files git knows (committed or not, less what .gitignore
# leaves out), so a build never sees another build's .build/; dpkg-buildpackage writes beside the copy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-deb.sh FOLDER}
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
source="$out/weathertag-$version"

rm -rf "$out"
mkdir -p "$source"
out=$(cd "$out" && pwd)
source="$out/weathertag-$version"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    [ -e "$file" ] || [ -L "$file" ] && printf '%s\0' "$file"
done | tar --null -T - -cf -) | tar -xf - -C "$source"

# The towns index `make setup` built (tools/towns.py, from PyPI): shipped in /usr/share/weathertag/towns by
# `make install`.
if [ -f "$root/.build/towns/cities15000.txt" ]; then
    mkdir -p "$source/.build/towns"
    cp "$root/.build/towns/cities15000.txt" "$root/.build/towns/admin1CodesASCII.txt" \
        "$root/.build/towns/alternateNamesV2.txt" "$source/.build/towns/"
fi
# The offline map's coastlines and borders (tools/coastlines.py, from PyPI): /usr/share/weathertag/map.
if [ -f "$root/.build/map/coastlines.bin" ]; then
    mkdir -p "$source/.build/map"
    cp "$root/.build/map/coastlines.bin" "$source/.build/map/"
fi

# -b: the binary package only (a native package's source is this repository); -us -uc: nothing to sign.
(cd "$source" && dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1) || {
    tail -40 "$out/build.log" >&2
    echo "build-deb.sh: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
    exit 1
}
ls "$out"/weathertag_"$version"_*.deb
