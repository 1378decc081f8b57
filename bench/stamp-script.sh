#!/bin/sh
# The script a careful user writes instead of weathertag: watch the inbox, ask OpenWeather about each new entry,
# add a weather block with awk, write a temp file, fsync it, and rename it over the entry. It skips hidden and
# temp names and entries that already have a weather block (its own rename comes back as an event).
#
# usage: stamp-script.sh INBOX BASE_URL API_KEY LATITUDE LONGITUDE
set -u
inbox=$1 base=$2 key=$3 lat=$4 lon=$5
inotifywait -m -q -e close_write -e moved_to --format '%f' "$inbox" | while IFS= read -r name; do
    case "$name" in
        .* | *~ | *.tmp | *.swp) continue ;;
        *.md | *.markdown) ;;
        *) continue ;;
    esac
    file="$inbox/$name"
    [ -f "$file" ] && [ ! -L "$file" ] || continue
    grep -q '^weather:' "$file" && continue
    json=$(curl -fsS --max-time 10 "$base/data/2.5/weather?lat=$lat&lon=$lon&units=metric&appid=$key") || continue
    description=$(printf '%s' "$json" | sed -n 's/.*"description": *"\([^"]*\)".*/\1/p')
    temperature=$(printf '%s' "$json" | sed -n 's/.*"temp": *\([-0-9.]*\).*/\1/p')
    icon=$(printf '%s' "$json" | sed -n 's/.*"icon": *"\([^"]*\)".*/\1/p')
    tmp="$inbox/.$name.stamp-tmp"
    awk -v d="$description" -v t="$temperature" -v i="$icon" '
        function block() {
            print "weather:"; print "  description: \"" d "\""; print "  temperature: " t; print "  icon: " i
        }
        NR == 1 && $0 == "---" { print; open = 1; next }
        NR == 1 { print "---"; block(); print "---"; print; next }
        open && ($0 == "---" || $0 == "...") { block(); print; open = 0; next }
        { print }
    ' "$file" >"$tmp" && sync "$tmp" && mv "$tmp" "$file"
done
