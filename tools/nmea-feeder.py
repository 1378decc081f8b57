#!/usr/bin/env python3
"""Feeds NMEA 0183 (GGA + RMC, today's date and time) to every TCP client, for a real gpsd without hardware:

    gpsd -N -n -S GPSD_PORT tcp://127.0.0.1:FEEDER_PORT

Listens on 127.0.0.1:0 and prints {"port": N} on its first stdout line. --no-fix sends sentences without a fix;
--control FILE reads the mode from FILE before every burst: fix, nofix, nan (a 3D fix without coordinates) or
silent (nothing at all, so the last fix goes stale).
"""
import argparse
import json
import socket
import sys
import threading
import time
from datetime import datetime, timezone


def checksum(body):
    value = 0
    for byte in body.encode():
        value ^= byte
    return "%02X" % value


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def dm(value, is_lat):
    hemisphere = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    return ("%02d%07.4f" if is_lat else "%03d%07.4f") % (degrees, minutes), hemisphere


def sentences(lat, lon, fix, nan=False):
    now = datetime.now(timezone.utc)
    hhmmss = now.strftime("%H%M%S") + ".00"
    ddmmyy = now.strftime("%d%m%y")
    lat_s, ns = dm(lat, True)
    lon_s, ew = dm(lon, False)
    if fix:
        gga = "GPGGA,%s,%s,%s,%s,%s,1,08,0.9,38.0,M,20.0,M,," % (hhmmss, lat_s, ns, lon_s, ew)
        rmc = "GPRMC,%s,A,%s,%s,%s,%s,0.0,0.0,%s,,,A" % (hhmmss, lat_s, ns, lon_s, ew, ddmmyy)
        # GSA gives gpsd the dilutions it turns into epx/epy (metres).
        gsa = "GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.8,0.9,1.5"
        return sentence(gga) + sentence(rmc) + sentence(gsa)
    if nan:
        # A 3D fix without coordinates: a fresh gpsd reports mode 3 with NaN latitude and longitude.
        gsa = "GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.8,0.9,1.5"
        return sentence(gsa)
    else:
        gga = "GPGGA,%s,,,,,0,00,99.9,,M,,M,," % hhmmss
        rmc = "GPRMC,%s,V,,,,,,,%s,,,N" % (hhmmss, ddmmyy)
    return sentence(gga) + sentence(rmc)


def mode(args):
    """fix | nofix | nan | silent, from --control FILE when it exists (tests switch modes by rewriting it)."""
    if args.control:
        try:
            with open(args.control) as handle:
                return handle.read().strip() or "fix"
        except OSError:
            pass
    return "nofix" if args.no_fix else "fix"


def serve(connection, args):
    try:
        while True:
            current = mode(args)
            if current != "silent":
                data = sentences(args.lat, args.lon, current == "fix", nan=current == "nan")
                connection.sendall(data.encode())
            time.sleep(args.interval)
    except OSError:
        pass
    finally:
        connection.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lat", type=float, default=37.5665)
    parser.add_argument("--lon", type=float, default=126.978)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--no-fix", action="store_true")
    parser.add_argument("--control", help="a file holding the mode: fix, nofix, nan or silent")
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print(json.dumps({"port": listener.getsockname()[1]}), flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, args), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
