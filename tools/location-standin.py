#!/usr/bin/env python3
"""A loopback stand-in for the two tracking services weathertag asks where the author was, speaking their
documented APIs on 127.0.0.1:0 (prints {"port": N} on its first stdout line):

OwnTracks Recorder (https://github.com/owntracks/recorder, "API"):
    GET /api/0/last?user=U&device=D             -> [{"_type": "location", "lat", "lon", "tst", "acc", ...}]
    GET /api/0/locations?user=U&device=D&from=T&to=T
                                                -> {"count": N, "data": [locations with from <= tst <= to]}
    With --owntracks-auth USER:PASSWORD, requests without that HTTP basic auth get 401.

Home Assistant REST API (https://developers.home-assistant.io/docs/api/rest/):
    GET /api/states/<entity_id>                 -> {"entity_id", "state", "attributes": {"latitude",
                                                    "longitude", "gps_accuracy"}, "last_updated", ...}
    GET /api/history/period/<start>?filter_entity_id=E&end_time=T
                                                -> [[states of E with start <= last_updated <= end]]
    Every request needs "Authorization: Bearer <--ha-token>", else 401.

Both answer from the same points, set with POST /_control {"points": [{"lat", "lon", "tst", "acc"}...]}; per
service a "mode" (ok | 401 | 500 | empty | garbage): {"owntracks": {"mode": "500"}}. GET /_requests lists the
requests seen (path, query, whether the right credentials came); the credentials themselves are never echoed.
"""
import argparse
import base64
import json
import sys
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse

LOCK = threading.Lock()
STATE = {"points": [], "owntracks": {"mode": "ok"}, "homeassistant": {"mode": "ok"}}
REQUESTS = []


def iso(tst):
    return datetime.fromtimestamp(tst, timezone.utc).isoformat()


def parse_time(text):
    text = text.replace("Z", "+00:00")
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    owntracks_auth = None
    ha_token = "ha-token"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def failure(self, mode):
        if mode == "401":
            return self.send(401, json.dumps({"message": "Unauthorized"}))
        if mode == "500":
            return self.send(500, "<html><body>500 Internal Server Error</body></html>", "text/html")
        if mode == "garbage":
            return self.send(200, "<html>this is not JSON</html>", "text/html")
        return self.send(500, "unknown mode")

    def do_GET(self):
        url = urlparse(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if url.path == "/_requests":
            with LOCK:
                return self.send(200, json.dumps(REQUESTS))
        authorization = self.headers.get("Authorization", "")
        with LOCK:
            points = list(STATE["points"])
            owntracks = dict(STATE["owntracks"])
            homeassistant = dict(STATE["homeassistant"])
        if url.path.startswith("/api/0/"):
            authorized = self.owntracks_auth is None or authorization == "Basic " + base64.b64encode(
                self.owntracks_auth.encode()).decode()
            with LOCK:
                REQUESTS.append({"service": "owntracks", "path": url.path, "query": query, "authorized": authorized})
            if not authorized:
                return self.failure("401")
            if owntracks["mode"] not in ("ok", "empty"):
                return self.failure(owntracks["mode"])
            if owntracks["mode"] == "empty":
                points = []
            locations = [
                {"_type": "location", "lat": p["lat"], "lon": p["lon"], "tst": p["tst"], "acc": p.get("acc"),
                 "tid": "ph", "username": query.get("user"), "device": query.get("device")}
                for p in points]
            if url.path == "/api/0/last":
                return self.send(200, json.dumps(sorted(locations, key=lambda p: p["tst"])[-1:]))
            if url.path == "/api/0/locations":
                start, end = parse_time(query["from"]), parse_time(query["to"])
                data = [p for p in locations if start <= p["tst"] <= end]
                return self.send(200, json.dumps({"count": len(data), "data": data, "status": 200}))
            return self.send(404, "{}")
        if url.path.startswith("/api/"):
            authorized = authorization == "Bearer " + self.ha_token
            with LOCK:
                REQUESTS.append({"service": "homeassistant", "path": unquote(url.path), "query": query,
                                 "authorized": authorized})
            if not authorized:
                return self.failure("401")
            if homeassistant["mode"] not in ("ok", "empty"):
                return self.failure(homeassistant["mode"])
            if homeassistant["mode"] == "empty":
                points = []
            states = [
                {"entity_id": "device_tracker.phone", "state": "not_home",
                 "attributes": {"source_type": "gps", "latitude": p["lat"], "longitude": p["lon"],
                                "gps_accuracy": p.get("acc"), "friendly_name": "Phone"},
                 "last_changed": iso(p["tst"]), "last_updated": iso(p["tst"])}
                for p in sorted(points, key=lambda p: p["tst"])]
            if url.path.startswith("/api/states/"):
                entity = unquote(url.path[len("/api/states/"):])
                if entity != "device_tracker.phone" or not states:
                    return self.send(404, json.dumps({"message": "Entity not found."}))
                return self.send(200, json.dumps(states[-1]))
            if url.path.startswith("/api/history/period/"):
                start = parse_time(unquote(url.path[len("/api/history/period/"):]))
                end = parse_time(query["end_time"]) if "end_time" in query else start + 86400
                chosen = [s for s in states if start <= parse_time(s["last_updated"]) <= end]
                if query.get("filter_entity_id") != "device_tracker.phone":
                    chosen = []
                return self.send(200, json.dumps([chosen] if chosen else []))
            return self.send(404, "{}")
        return self.send(404, "{}")

    def do_POST(self):
        if urlparse(self.path).path != "/_control":
            return self.send(404, "{}")
        length = int(self.headers.get("Content-Length", "0"))
        update = json.loads(self.rfile.read(length) or b"{}")
        with LOCK:
            for key, value in update.items():
                if isinstance(value, dict):
                    STATE.setdefault(key, {}).update(value)
                else:
                    STATE[key] = value
        return self.send(200, "{}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--owntracks-auth", help="USER:PASSWORD the Recorder asks for (HTTP basic)")
    parser.add_argument("--ha-token", default="ha-token", help="the long-lived access token Home Assistant takes")
    args = parser.parse_args()
    Handler.owntracks_auth = args.owntracks_auth
    Handler.ha_token = args.ha_token
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
