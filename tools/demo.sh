#!/usr/bin/env bash
# Runs `weathertag serve` on a demo diary in ./demo: drop a Markdown file into demo/inbox and watch it get stamped.
# With $OPENWEATHER_API_KEY set it asks the real OpenWeather (gpsd on 127.0.0.1:2947 → IP geolocation → Seoul);
# without it, the loopback stand-in in tools/ answers as Open-Meteo (no key, back-dated entries from its archive)
# and as IP geolocation, so the demo works offline.
set -euo pipefail
binary=${1:?usage: demo.sh PATH-TO-weathertag}
root=$(cd "$(dirname "$0")/.." && pwd)
demo="$root/demo"
mkdir -p "$demo/inbox" "$demo/cache"

standin_pid=""
cleanup() { [ -n "$standin_pid" ] && kill "$standin_pid" 2>/dev/null || true; }
trap cleanup EXIT

if [ -n "${OPENWEATHER_API_KEY:-}" ]; then
    base="https://api.openweathermap.org"
    icons="https://openweathermap.org/img/wn"
    ip_url="http://ip-api.com/json/"
    meteo="https://api.open-meteo.com"
    archive="https://archive-api.open-meteo.com"
    air="https://air-quality-api.open-meteo.com"
    echo "Using OpenWeather with your key from \$OPENWEATHER_API_KEY."
else
    coproc STANDIN { exec python3 "$root/tools/openweather-standin.py" --key demo-key --sun; }
    standin_pid=$STANDIN_PID
    read -r line <&"${STANDIN[0]}"
    port=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["port"])' "$line")
    base="http://127.0.0.1:$port"
    icons="$base/img/wn"
    ip_url="$base/json/"
    meteo=$base archive=$base air=$base
    echo "No \$OPENWEATHER_API_KEY: Open-Meteo (no key needed), played offline by the stand-in on $base."
fi

cat > "$demo/config.json" <<JSON
{
  "openweather": {"base_url": "$base", "icon_base_url": "$icons"},
  "weather": {"units": "metric", "lang": "en"},
  "open_meteo": {"base_url": "$meteo", "archive_url": "$archive", "air_quality_url": "$air"},
  "history": {"enabled": true},
  "location": {"providers": [
    {"type": "gpsd", "host": "127.0.0.1", "port": 2947, "timeout_seconds": 2},
    {"type": "ip", "service": "ip-api", "url": "$ip_url", "timeout_seconds": 5},
    {"type": "fixed", "latitude": 37.5665, "longitude": 126.978, "name": "Seoul"}
  ]},
  "cache": {"directory": "$demo/cache"},
  "state": {"directory": "$demo/state"},
  "inbox": {"path": "$demo/inbox"},
  "socket": {"path": "$demo/weathertag.sock"}
}
JSON

[ -e "$demo/inbox/welcome.md" ] || printf '# Welcome\n\nThis entry gets the weather stamped into it.\n' > "$demo/inbox/welcome.md"
cat <<TEXT
weathertag is watching $demo/inbox. In another terminal:
  printf 'Dear diary\n' > demo/inbox/today.md && cat demo/inbox/today.md
  printf 'A spring day\n' > demo/inbox/2019-05-01.md && cat demo/inbox/2019-05-01.md   # back-dated
  $binary tag --config demo/config.json
  curl --unix-socket demo/weathertag.sock http://localhost/v1/status
Ctrl-C stops it.
TEXT
"$binary" serve --config "$demo/config.json"
