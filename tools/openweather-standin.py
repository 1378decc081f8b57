#!/usr/bin/env python3
"""A loopback stand-in for OpenWeather, Open-Meteo, MET Norway and the IP geolocation services, speaking their
documented shapes.

Sunrise and sunset, in every answer that has them, are the sun's at the place on its own day (the sunrise
equation, in sun_events), and so is every hour's `is_day` in Open-Meteo's hourly answers. The current weather's
day or night follows the sun with --sun (make run); the tests pin it to daytime (the default) so that what they
expect holds at any hour.

Listens on 127.0.0.1:0 (or --port) and prints {"port": N} on its first stdout line. Used by the tests and by
`make run` when no real API key is given. Nothing here reaches the internet.

  GET  /data/2.5/weather?lat=&lon=&appid=&units=&lang=   current weather (401 for a key other than --key)
  GET  /data/3.0/onecall/timemachine?lat=&lon=&dt=&units=&lang=&appid=   One Call 3.0: the weather at `dt`
  GET  /geo/1.0/reverse?lat=&lon=&limit=1&appid=         reverse geocoding: [{name, local_names, state, country}]
  GET  /data/2.5/air_pollution?lat=&lon=&appid=           air quality: list[0].main.aqi and components
  GET  /img/wn/{icon}@2x.png                             a small PNG
  GET  /v1/forecast?latitude=&longitude=&current=…        Open-Meteo current weather (service "open-meteo")
  GET  /v1/forecast?…&hourly=…&start_date=&end_date=      Open-Meteo's last days, hour by hour ("open-meteo")
  GET  /v1/archive?…&hourly=…&start_date=&end_date=       Open-Meteo's ERA5 archive ("open-meteo-archive"): null
                                                          for the last 5 days, 400 for an end before the start
                                                          and for a start before 1940-01-01. As Open-Meteo: the
                                                          days are the place's (`timezone=auto` names the zone of
                                                          the tests' places, else GMT), ONE utc_offset_seconds for
                                                          the answer, times as Unix seconds with
                                                          `timeformat=unixtime` (else local ISO 8601), `is_day` by
                                                          the sun at the place
  GET  /v1/air-quality?latitude=&longitude=&current=…     Open-Meteo air quality ("open-meteo-air")
  GET  /weatherapi/locationforecast/2.0/compact?lat=&lon= MET Norway ("met-norway"): 403 without an identifying
                                                          User-Agent or with more than 4 decimals; Expires,
                                                          Last-Modified, and 304 for a matching If-Modified-Since
  GET  /_queries/{service}                               a keyless service's queries so far (query as sent)
  GET  /json/                                            ip-api.com shape
  GET  /ipinfo/json                                      ipinfo.io shape
  GET  /_stats                                           calls per endpoint
  GET  /_timemachine                                     the timemachine's queries so far (lat, lon, dt)
  GET  /_weather                                         current weather's queries so far (lat, lon as sent)
  GET  /_geo                                             the geocoder's queries so far (lat, lon as sent)
  POST /_control  {"weather": {...}, "ip": {...}}        change behaviour (see Control below)

Control keys, per service: "mode" (ok | 401 | 404 | 429 | 500 | 503 | nonjson | wrongshape | hang | drop),
"retry_after" (seconds, with 429), "delay" (seconds before answering), and for weather "name", "icon", "id",
"main", "description", "temp_c", "sun" (true: the icon's d or n from the sun, as --sun); for ip "lat", "lon", "city"; for timemachine "main", "description", "icon",
"id", "temp_c" (mode 401 is the answer to a key without a One Call 3.0 subscription); for geo "name",
"local_names", "state", "country" (mode "empty": no place there); for air "aqi", "pm2_5", "pm10", "o3", "no2";
for open-meteo "weather_code", "temp_c", "is_day" (null: from the sun, as --sun); for open-meteo-archive "weather_code", "temp_c" (an hour's
temperature is temp_c + (hour of the day) / 10, so a test can tell hours apart), "null_hours" (Unix seconds whose
values are null: a gap), "no_is_day" (answer without it); for open-meteo-air
"european_aqi", "pm2_5", "pm10", "ozone", "nitrogen_dioxide"; for met-norway "symbol_code", "temp_c". Open-Meteo
modes 400 and 429 answer with their {"error": true, "reason": ...} body.
"""
import datetime
import argparse
import base64
import json
import math
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse
import zoneinfo

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

STATE_LOCK = threading.Lock()
STATE = {
    "weather": {"mode": "ok", "delay": 0, "name": "Seoul", "icon": "04d", "id": 803, "main": "Clouds",
                "description": "broken clouds", "temp_c": 12.3},
    "ip": {"mode": "ok", "delay": 0, "lat": 37.5665, "lon": 126.978, "city": "Seoul"},
    "geo": {"mode": "ok", "delay": 0, "name": "Seoul", "local_names": {"ko": "서울", "en": "Seoul", "fr": "Séoul"},
            "state": "Seoul", "country": "KR"},
    "air": {"mode": "ok", "delay": 0, "aqi": 2, "pm2_5": 7.3, "pm10": 12.1, "o3": 61.5, "no2": 14.2},
    "timemachine": {"mode": "ok", "delay": 0, "icon": "10d", "id": 500, "main": "Rain",
                    "description": "light rain", "temp_c": 8.5},
}
STATE.update({
    "open-meteo": {"mode": "ok", "delay": 0, "weather_code": 3, "temp_c": 4.2, "is_day": 1},
    "open-meteo-archive": {"mode": "ok", "delay": 0, "weather_code": 61, "temp_c": 8.5},
    "open-meteo-air": {"mode": "ok", "delay": 0, "european_aqi": 34, "pm2_5": 8.1, "pm10": 14.9, "ozone": 58.0,
                       "nitrogen_dioxide": 12.4},
    "met-norway": {"mode": "ok", "delay": 0, "symbol_code": "lightrainshowers_day", "temp_c": 6.7},
})
KEYLESS_QUERIES = {}
TIMEMACHINE_QUERIES = []
WEATHER_QUERIES = []
GEO_QUERIES = []
AIR_QUERIES = []
STATS = {}


def count(name):
    with STATE_LOCK:
        STATS[name] = STATS.get(name, 0) + 1


def convert(temp_c, units):
    if units == "imperial":
        return round(temp_c * 9 / 5 + 32, 2)
    if units == "metric":
        return round(temp_c, 2)
    return round(temp_c + 273.15, 2)


def day_start(text):
    return int(datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc).timestamp())


def hour_temperature(conf, t):
    return round(conf["temp_c"] + ((t // 3600) % 24) / 10, 2)


# Where the tests' places are, as Open-Meteo's `timezone=auto` names them (it looks the coordinates up; a table is
# enough for the places the tests use). Anywhere else: GMT, as Open-Meteo answers without `timezone`.
PLACES = [((46.2, 6.14), "Europe/Zurich"), ((37.57, 126.98), "Asia/Seoul"), ((52.52, 13.4), "Europe/Berlin"),
          ((59.91, 10.75), "Europe/Oslo"), ((40.71, -74.01), "America/New_York"), ((-33.87, 151.21), "Australia/Sydney"),
          ((47.37, 8.54), "Europe/Zurich"), ((22.28, 114.14), "Asia/Hong_Kong"), ((-36.72, 174.7), "Pacific/Auckland"),
          ((-16.92, 145.77), "Australia/Brisbane")]
ARCHIVE_START = 1940


def place_zone(query):
    """The zone `timezone` asks for: auto (the place's), a name, or GMT."""
    asked = query.get("timezone", "GMT")
    if asked != "auto":
        try:
            return zoneinfo.ZoneInfo(asked), asked
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC"), "GMT"
    lat, lon = float(query["latitude"]), float(query["longitude"])
    for (plat, plon), name in PLACES:
        if abs(plat - lat) < 0.5 and abs(plon - lon) < 0.5:
            return zoneinfo.ZoneInfo(name), name
    return zoneinfo.ZoneInfo("UTC"), "GMT"


def local_midnight(day_text, zone):
    """The instant a local day begins (`start_date` and `end_date` are the place's days)."""
    day = datetime.datetime.strptime(day_text, "%Y-%m-%d")
    return int(day.replace(tzinfo=zone).timestamp())


def sun_events(lat, lon, day):
    """Sunrise and sunset (Unix seconds) on the civil `day` (a date) at the place, by the sunrise equation: the
    Sun's mean anomaly, equation of centre, ecliptic longitude and declination for the solar noon nearest that
    day's noon at `lon`, and the hour angle at which the Sun's upper limb, refracted, meets the horizon (-0.833°).
    Within a minute or two of NOAA's tables away from the poles. ("up", "up") all day in a midnight sun, ("down",
    "down") in a polar night."""
    rad = math.radians
    n = (day - datetime.date(2000, 1, 1)).days
    mean_noon = n - lon / 360
    anomaly = (357.5291 + 0.98560028 * mean_noon) % 360
    centre = 1.9148 * math.sin(rad(anomaly)) + 0.02 * math.sin(rad(2 * anomaly)) + 0.0003 * math.sin(rad(3 * anomaly))
    ecliptic = (anomaly + centre + 180 + 102.9372) % 360
    transit = 2451545.0 + mean_noon + 0.0053 * math.sin(rad(anomaly)) - 0.0069 * math.sin(rad(2 * ecliptic))
    declination = math.asin(math.sin(rad(ecliptic)) * math.sin(rad(23.4397)))
    cos_hour = ((math.sin(rad(-0.833)) - math.sin(rad(lat)) * math.sin(declination))
                / (math.cos(rad(lat)) * math.cos(declination)))
    if cos_hour < -1:
        return "up", "up"
    if cos_hour > 1:
        return "down", "down"
    half_day = math.degrees(math.acos(cos_hour)) / 360
    unix = lambda julian: int(round((julian - 2440587.5) * 86400))  # noqa: E731
    return unix(transit - half_day), unix(transit + half_day)


def place_day(t, lon, zone=None):
    """The civil day at the place at `t`: on its zone's clock, or its mean solar clock where no zone is known."""
    if zone is not None:
        return datetime.datetime.fromtimestamp(t, zone).date()
    return datetime.datetime.fromtimestamp(t + lon / 15 * 3600, datetime.timezone.utc).date()


def solar_day(t, lat, lon, zone=None):
    """1 while the sun is up at the place at `t` (between that day's sunrise and sunset), else 0."""
    rise, set_ = sun_events(lat, lon, place_day(t, lon, zone))
    if rise in ("up", "down"):
        return 1 if rise == "up" else 0
    return 1 if rise <= t < set_ else 0


def sun_or_none(lat, lon, day):
    """(sunrise, sunset) as Unix seconds, or (None, None) where the sun neither rises nor sets that day."""
    rise, set_ = sun_events(lat, lon, day)
    return (None, None) if rise in ("up", "down") else (rise, set_)


def open_meteo_hours(conf, query, archive):
    """Hour by hour over the place's days from start_date to end_date; the archive has nothing for the last 5 days
    and nothing before 1940. Times as Unix seconds (`timeformat=unixtime`) or local ISO 8601 (the default)."""
    zone, zone_name = place_zone(query)
    start = local_midnight(query["start_date"], zone)
    end = local_midnight((datetime.datetime.strptime(query["end_date"], "%Y-%m-%d")
                          + datetime.timedelta(days=1)).strftime("%Y-%m-%d"), zone)
    lat, lon = float(query["latitude"]), float(query["longitude"])
    hourly_names = [n for n in query.get("hourly", "").split(",") if n]
    fahrenheit = query.get("temperature_unit") == "fahrenheit"
    latest = int(time.time()) - 5 * 86400 if archive else None
    times = list(range(start, end, 3600))
    gaps = set(conf.get("null_hours", []))
    def value(name, t):
        if (latest is not None and t > latest) or t in gaps:
            return None
        if name in ("temperature_2m", "apparent_temperature"):
            c = hour_temperature(conf, t) - (1.0 if name == "apparent_temperature" else 0)
            return round(c * 9 / 5 + 32, 2) if fahrenheit else c
        return {"relative_humidity_2m": 81, "is_day": solar_day(t, lat, lon, zone),
                "weather_code": conf["weather_code"], "cloud_cover": 88, "pressure_msl": 1008.4,
                "wind_speed_10m": 4.2, "wind_direction_10m": 225, "wind_gusts_10m": 9.1, "rain": 0.4,
                "snowfall": 0.0, "precipitation": 0.4}.get(name, 0)
    unix = query.get("timeformat") == "unixtime"
    def stamp(t, fmt):
        if unix:
            return t
        return datetime.datetime.fromtimestamp(t, zone).strftime(fmt)
    hourly = {"time": [stamp(t, "%Y-%m-%dT%H:%M") for t in times]}
    for name in hourly_names:
        if name == "is_day" and conf.get("no_is_day"):
            continue
        hourly[name] = [value(name, t) for t in times]
    days = []
    day = start
    while day < end:
        days.append(day)
        day = local_midnight((datetime.datetime.fromtimestamp(day, zone) + datetime.timedelta(days=1))
                             .strftime("%Y-%m-%d"), zone)
    # One offset for the whole answer, as Open-Meteo gives it: the one in force at its start.
    offset = int(datetime.datetime.fromtimestamp(start, zone).utcoffset().total_seconds())
    body = {"latitude": float(query["latitude"]), "longitude": float(query["longitude"]), "generationtime_ms": 0.5,
            "utc_offset_seconds": offset, "timezone": zone_name,
            "timezone_abbreviation": datetime.datetime.fromtimestamp(start, zone).tzname(), "elevation": 38.0,
            "hourly_units": {n: "" for n in hourly_names}, "hourly": hourly}
    if query.get("daily"):
        body["daily"] = daily_sun(lat, lon, [datetime.datetime.fromtimestamp(d, zone).date() for d in days], zone,
                                  unix)
    return body


def daily_sun(lat, lon, days, zone, unix):
    """Open-Meteo's `daily` sunrise and sunset for these days: Unix seconds, or the place's ISO 8601 minutes."""
    def stamp(t):
        if t is None:
            return None
        return t if unix else datetime.datetime.fromtimestamp(t, zone).strftime("%Y-%m-%dT%H:%M")
    events = [sun_or_none(lat, lon, day) for day in days]
    midnight = lambda day: int(datetime.datetime(day.year, day.month, day.day, tzinfo=zone).timestamp())  # noqa: E731
    return {"time": [midnight(d) if unix else d.isoformat() for d in days],
            "sunrise": [stamp(rise) for rise, _ in events], "sunset": [stamp(set_) for _, set_ in events]}


def open_meteo_error(handler, mode, reason):
    if mode == "400":
        return handler.send(400, json.dumps({"error": True, "reason": reason or "Parameter 'latitude' is invalid"}))
    if mode == "429":
        return handler.send(429, json.dumps({"error": True, "reason": "Minutely API request limit exceeded. "
                                                                      "Please try again in one minute."}))
    return handler.failure("open-meteo", mode, None)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    key = "test-key"

    def log_message(self, fmt, *args):  # quiet: the tests read stdout for the port only
        pass

    def send(self, status, body, content_type="application/json", headers=None):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def failure(self, service, mode, retry_after):
        if mode == "hang":
            time.sleep(3600)
        if mode == "drop":  # the connection closes without an answer
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return None
        if mode == "401":
            return self.send(401, json.dumps({"cod": 401, "message": "Invalid API key. Please see "
                                              "https://openweathermap.org/faq#error401 for more info."}))
        if mode == "404":
            return self.send(404, json.dumps({"cod": "404", "message": "city not found"}))
        if mode == "429":
            headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
            return self.send(429, json.dumps({"cod": 429, "message": "Your account is temporary blocked"}),
                             headers=headers)
        if mode in ("500", "502", "503"):
            return self.send(int(mode), "<html><body>Bad Gateway</body></html>", "text/html")
        if mode == "nonjson":
            return self.send(200, "<html>not json</html>", "text/html")
        if mode == "wrongshape":
            return self.send(200, json.dumps({"hello": "world"}))
        return self.send(500, "unknown mode")

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/_stats":
            with STATE_LOCK:
                return self.send(200, json.dumps(STATS))
        if url.path.startswith("/_queries/"):
            with STATE_LOCK:
                return self.send(200, json.dumps(KEYLESS_QUERIES.get(url.path[len("/_queries/"):], [])))
        if url.path in ("/v1/forecast", "/v1/archive", "/v1/air-quality"):
            service = {"/v1/forecast": "open-meteo", "/v1/archive": "open-meteo-archive",
                       "/v1/air-quality": "open-meteo-air"}[url.path]
            count(service)
            with STATE_LOCK:
                conf = dict(STATE[service])
                KEYLESS_QUERIES.setdefault(service, []).append(query)
            if conf.get("delay"):
                time.sleep(conf["delay"])
            if conf["mode"] != "ok":
                return open_meteo_error(self, conf["mode"], None)
            try:
                lat, lon = float(query["latitude"]), float(query["longitude"])
                if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                    raise ValueError
            except (KeyError, ValueError):
                return open_meteo_error(self, "400", "Parameter 'latitude' and 'longitude' must have the same "
                                                     "number of elements")
            if service == "open-meteo-air":
                current = {"time": int(time.time()) // 3600 * 3600, "interval": 3600}
                for name in query.get("current", "").split(","):
                    if name in conf:
                        current[name] = conf[name]
                return self.send(200, json.dumps({"latitude": lat, "longitude": lon, "utc_offset_seconds": 0,
                                                  "timezone": "GMT", "current": current}))
            if "start_date" in query or "hourly" in query:
                try:
                    if day_start(query["end_date"]) < day_start(query["start_date"]):
                        return open_meteo_error(self, "400", "Parameter 'end_date' must be after 'start_date'")
                    if service == "open-meteo" and day_start(query["start_date"]) < time.time() - 93 * 86400:
                        return open_meteo_error(self, "400", "Parameter 'start_date' is out of allowed range")
                    if service == "open-meteo-archive" and int(query["start_date"][:4]) < ARCHIVE_START:
                        return open_meteo_error(
                            self, "400", "Parameter 'start_date' is out of allowed range from 1940-01-01 to %s"
                            % time.strftime("%Y-%m-%d", time.gmtime(time.time() - 5 * 86400)))
                except (KeyError, ValueError):
                    return open_meteo_error(self, "400", "Invalid date format, expected YYYY-MM-DD")
                return self.send(200, json.dumps(open_meteo_hours(conf, query, service == "open-meteo-archive")))
            now = int(time.time())
            zone, zone_name = place_zone(query)
            fahrenheit = query.get("temperature_unit") == "fahrenheit"
            temp = conf["temp_c"] * 9 / 5 + 32 if fahrenheit else conf["temp_c"]
            current = {"time": now // 900 * 900, "interval": 900, "temperature_2m": round(temp, 2),
                       "relative_humidity_2m": 76, "apparent_temperature": round(temp - 2.1, 2),
                       "is_day": solar_day(now // 900 * 900, lat, lon, zone) if conf["is_day"] is None else conf["is_day"],
                       "precipitation": 0.0, "rain": 0.0, "showers": 0.0, "snowfall": 0.0,
                       "weather_code": conf["weather_code"], "cloud_cover": 100, "pressure_msl": 1016.2,
                       "surface_pressure": 1011.9, "wind_speed_10m": 3.4, "wind_direction_10m": 250,
                       "wind_gusts_10m": 7.9}
            wanted = [n for n in query.get("current", "").split(",") if n]
            local = datetime.datetime.fromtimestamp(now, zone)
            unix = query.get("timeformat") == "unixtime"
            return self.send(200, json.dumps({
                "latitude": lat, "longitude": lon, "generationtime_ms": 0.1,
                "utc_offset_seconds": int(local.utcoffset().total_seconds()),
                "timezone": zone_name, "timezone_abbreviation": local.tzname(), "elevation": 38.0,
                "current_units": {n: "" for n in wanted}, "current": {k: v for k, v in current.items()
                                                                      if k in wanted or k in ("time", "interval")},
                "daily": daily_sun(lat, lon, [local.date()], zone, unix)}))
        if url.path == "/weatherapi/locationforecast/2.0/compact":
            count("met-norway")
            agent = self.headers.get("User-Agent", "")
            with STATE_LOCK:
                conf = dict(STATE["met-norway"])
                KEYLESS_QUERIES.setdefault("met-norway", []).append(
                    dict(query, user_agent=agent, if_modified_since=self.headers.get("If-Modified-Since", "")))
            if conf["mode"] != "ok":
                return self.failure("met-norway", conf["mode"], conf.get("retry_after"))
            lat, lon = query.get("lat", ""), query.get("lon", "")
            if "weathertag" not in agent or " " not in agent or any(len(v.partition(".")[2]) > 4 for v in (lat, lon)):
                return self.send(403, "<html><body>403 Forbidden: identify yourself, 4 decimals at most</body></html>",
                                 "text/html")
            modified = "Tue, 24 Nov 2026 10:00:00 GMT"
            expires = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 1800))
            headers = {"Last-Modified": modified, "Expires": expires}
            if self.headers.get("If-Modified-Since") == modified:
                self.send_response(304)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            hour = time.strftime("%Y-%m-%dT%H:00:00Z", time.gmtime())
            details = {"air_pressure_at_sea_level": 1012.3, "air_temperature": conf["temp_c"],
                       "cloud_area_fraction": 96.1, "relative_humidity": 83.0, "wind_from_direction": 214.5,
                       "wind_speed": 5.2}
            body = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [float(lon), float(lat), 12]},
                    "properties": {"meta": {"updated_at": "2026-11-24T10:00:00Z", "units": {
                        "air_pressure_at_sea_level": "hPa", "air_temperature": "celsius",
                        "cloud_area_fraction": "%", "relative_humidity": "%", "wind_from_direction": "degrees",
                        "wind_speed": "m/s"}},
                        "timeseries": [{"time": hour, "data": {
                            "instant": {"details": details},
                            "next_1_hours": {"summary": {"symbol_code": conf["symbol_code"]},
                                             "details": {"precipitation_amount": 0.3}},
                            "next_6_hours": {"summary": {"symbol_code": conf["symbol_code"]},
                                             "details": {"precipitation_amount": 1.2}}}}]}}
            return self.send(200, json.dumps(body), "application/json", headers)
        if url.path == "/data/2.5/weather":
            count("weather")
            with STATE_LOCK:
                conf = dict(STATE["weather"])
            if conf.get("delay"):
                time.sleep(conf["delay"])
            if query.get("appid") != self.key:
                return self.failure("weather", "401", None)
            if conf["mode"] != "ok":
                return self.failure("weather", conf["mode"], conf.get("retry_after"))
            try:
                lat, lon = float(query["lat"]), float(query["lon"])
            except (KeyError, ValueError):
                return self.send(400, json.dumps({"cod": "400", "message": "wrong latitude"}))
            with STATE_LOCK:
                WEATHER_QUERIES.append({"lat": query["lat"], "lon": query["lon"]})
            units = query.get("units", "standard")
            now = int(time.time())
            up = solar_day(now, lat, lon)
            icon = conf["icon"][:2] + ("d" if up else "n") if conf.get("sun") else conf["icon"]
            rise, set_ = sun_or_none(lat, lon, place_day(now, lon))
            body = {
                "coord": {"lon": lon, "lat": lat},
                "weather": [{"id": conf["id"], "main": conf["main"], "description": conf["description"],
                             "icon": icon}],
                "base": "stations",
                "main": {"temp": convert(conf["temp_c"], units), "feels_like": convert(conf["temp_c"] - 1.1, units),
                         "temp_min": convert(conf["temp_c"] - 2, units), "temp_max": convert(conf["temp_c"] + 2, units),
                         "pressure": 1013, "humidity": 71, "sea_level": 1013, "grnd_level": 1004},
                "visibility": 10000,
                "wind": {"speed": 3.6, "deg": 270},
                "clouds": {"all": 75},
                "dt": int(time.time()) - 60,
                "sys": {"type": 1, "id": 8105, "country": "KR", **({"sunrise": rise, "sunset": set_} if rise else {})},
                "timezone": 32400, "id": 1835848, "name": conf["name"], "cod": 200,
            }
            return self.send(200, json.dumps(body))
        if url.path == "/data/2.5/air_pollution":
            count("air")
            with STATE_LOCK:
                conf = dict(STATE["air"])
                AIR_QUERIES.append({"lat": query.get("lat", ""), "lon": query.get("lon", "")})
            if query.get("appid") != self.key:
                return self.failure("air", "401", None)
            if conf["mode"] != "ok":
                return self.failure("air", conf["mode"], conf.get("retry_after"))
            components = {"co": 201.9, "no": 0.02, "no2": conf["no2"], "o3": conf["o3"], "so2": 0.64,
                          "pm2_5": conf["pm2_5"], "pm10": conf["pm10"], "nh3": 0.12}
            return self.send(200, json.dumps({"coord": {"lon": float(query["lon"]), "lat": float(query["lat"])},
                                              "list": [{"main": {"aqi": conf["aqi"]}, "components": components,
                                                        "dt": int(time.time())}]}))
        if url.path == "/_air":
            with STATE_LOCK:
                return self.send(200, json.dumps(AIR_QUERIES))
        if url.path == "/_geo":
            with STATE_LOCK:
                return self.send(200, json.dumps(GEO_QUERIES))
        if url.path == "/geo/1.0/reverse":
            count("geo")
            with STATE_LOCK:
                conf = dict(STATE["geo"])
                GEO_QUERIES.append({"lat": query.get("lat", ""), "lon": query.get("lon", "")})
            if conf.get("delay"):
                time.sleep(conf["delay"])
            if query.get("appid") != self.key:
                return self.failure("geo", "401", None)
            if conf["mode"] == "empty":
                return self.send(200, "[]")
            if conf["mode"] != "ok":
                return self.failure("geo", conf["mode"], conf.get("retry_after"))
            place = {"name": conf["name"], "local_names": conf["local_names"], "lat": float(query["lat"]),
                     "lon": float(query["lon"]), "country": conf["country"]}
            if conf.get("state"):
                place["state"] = conf["state"]
            return self.send(200, json.dumps([place]))
        if url.path == "/_weather":
            with STATE_LOCK:
                return self.send(200, json.dumps(WEATHER_QUERIES))
        if url.path == "/_timemachine":
            with STATE_LOCK:
                return self.send(200, json.dumps(TIMEMACHINE_QUERIES))
        if url.path == "/data/3.0/onecall/timemachine":
            count("timemachine")
            with STATE_LOCK:
                conf = dict(STATE["timemachine"])
            if conf.get("delay"):
                time.sleep(conf["delay"])
            if query.get("appid") != self.key or conf["mode"] == "401":
                return self.send(401, json.dumps({
                    "cod": 401, "message": "Please note that using One Call 3.0 requires a separate subscription "
                    "to the One Call by Call plan. Learn more here https://openweathermap.org/price."}))
            if conf["mode"] != "ok":
                return self.failure("timemachine", conf["mode"], conf.get("retry_after"))
            try:
                lat, lon, dt = float(query["lat"]), float(query["lon"]), int(query["dt"])
            except (KeyError, ValueError):
                return self.send(400, json.dumps({"cod": "400", "message": "wrong latitude, longitude or dt"}))
            with STATE_LOCK:
                TIMEMACHINE_QUERIES.append({"lat": lat, "lon": lon, "dt": dt, "lat_sent": query["lat"],
                                            "lon_sent": query["lon"]})
            units = query.get("units", "standard")
            rise, set_ = sun_or_none(lat, lon, place_day(dt, lon))
            point = {"dt": dt, **({"sunrise": rise, "sunset": set_} if rise else {}), "temp": convert(conf["temp_c"], units),
                     "feels_like": convert(conf["temp_c"] - 1.5, units), "pressure": 1009, "humidity": 88,
                     "dew_point": convert(conf["temp_c"] - 2, units), "clouds": 90, "visibility": 8000,
                     "wind_speed": 5.1, "wind_deg": 200,
                     "weather": [{"id": conf["id"], "main": conf["main"], "description": conf["description"],
                                  "icon": conf["icon"]}]}
            # The place's zone, as One Call names it, and its offset at that moment.
            zone, zone_name = place_zone({"timezone": "auto", "latitude": lat, "longitude": lon})
            zone_name = "Etc/GMT" if zone_name == "GMT" else zone_name
            offset = int(datetime.datetime.fromtimestamp(dt, zone).utcoffset().total_seconds())
            return self.send(200, json.dumps({"lat": lat, "lon": lon, "timezone": zone_name,
                                              "timezone_offset": offset, "data": [point]}))
        if url.path.startswith("/img/wn/") and url.path.endswith("@2x.png"):
            count("icon")
            return self.send(200, PNG, "image/png")
        if url.path in ("/json/", "/json", "/ipinfo/json"):
            service = "ipinfo" if url.path.startswith("/ipinfo") else "ip-api"
            count(service)
            with STATE_LOCK:
                conf = dict(STATE["ip"])
            if conf.get("delay"):
                time.sleep(conf["delay"])
            if conf["mode"] == "fail" and service == "ip-api":
                return self.send(200, json.dumps({"status": "fail", "message": "private range", "query": "10.0.0.1"}))
            if conf["mode"] != "ok":
                return self.failure(service, conf["mode"], conf.get("retry_after"))
            if service == "ipinfo":
                return self.send(200, json.dumps({"ip": "203.0.113.7", "city": conf["city"], "country": "KR",
                                                  "loc": "%.4f,%.4f" % (conf["lat"], conf["lon"])}))
            return self.send(200, json.dumps({"status": "success", "country": "South Korea", "city": conf["city"],
                                              "lat": conf["lat"], "lon": conf["lon"], "query": "203.0.113.7"}))
        return self.send(404, json.dumps({"cod": "404", "message": "Internal error"}))

    def do_POST(self):
        if urlparse(self.path).path != "/_control":
            return self.send(404, "{}")
        length = int(self.headers.get("Content-Length", "0"))
        update = json.loads(self.rfile.read(length) or b"{}")
        with STATE_LOCK:
            for service, values in update.items():
                STATE.setdefault(service, {}).update(values)
            if update.get("reset_stats"):
                STATS.clear()
        return self.send(200, json.dumps(STATE))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", default="test-key", help="the API key it accepts")
    parser.add_argument("--sun", action="store_true",
                        help="day and night from the sun at the place: Open-Meteo's is_day and the d or n of "
                             "OpenWeather's icon (make run); without it they stay as set, daytime by default, so "
                             "that a test's expectations hold at any hour")
    args = parser.parse_args()
    Handler.key = args.key
    if args.sun:
        STATE["open-meteo"]["is_day"] = None
        STATE["weather"]["sun"] = True
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
