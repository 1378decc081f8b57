#!/usr/bin/env python3
"""Makes weathertag's catalog of weather words (Sources/WeathertagCore/Weather/WeatherWords+Catalog.swift) from
licence-clean data reachable from here, and weathertag's own corrections and additions (tools/weather-words.tsv):

- Pirate Weather's translations (PyPI `pirateweather-translations`, BSD-2-Clause, Dark Sky's condition words): the
  words each language module's `template` gives for the keys weathertag composes descriptions of. A word that is the
  same as its "possible-" form (it says "possible", copied from the forecast's word) is an error and is dropped:
  the description falls back to a coarser word of the same language.
- Home Assistant's weather-condition translations (PyPI `homeassistant`, Apache-2.0), coarse (sunny, cloudy,
  rainy, pouring, snowy, …), for the languages Pirate Weather lacks: a language is taken when its words cover the
  sky, fog, rain, snow and thunder.

Run by `make generated`, which downloads the two wheels (pinned below) into .build/tools/words when missing:

    python3 tools/weather-words.py PIRATEWEATHER_WHEEL HOMEASSISTANT_WHEEL
"""
import importlib
import json
import os
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Sources/WeathertagCore/Weather/WeatherWords+Catalog.swift")
OWN = os.path.join(ROOT, "tools/weather-words.tsv")
PIRATEWEATHER = "pirateweather-translations==1.5.1"
HOMEASSISTANT = "homeassistant==2024.3.3"

# The keys of Pirate Weather's templates weathertag composes descriptions of (WeatherWords.swift says how).
KEYS = [
    "clear", "very-light-clouds", "light-clouds", "medium-clouds", "heavy-clouds", "fog", "very-light-rain",
    "light-rain", "medium-rain", "heavy-rain", "light-sleet", "medium-sleet", "heavy-sleet", "light-snow",
    "medium-snow", "heavy-snow", "very-light-freezing-rain", "light-freezing-rain", "medium-freezing-rain",
    "heavy-freezing-rain", "thunderstorm", "hail", "with",
]
# Home Assistant's states, and the keys each stands for.
HOME_ASSISTANT = {
    "sunny": ["clear"], "partlycloudy": ["very-light-clouds", "light-clouds"],
    "cloudy": ["medium-clouds", "heavy-clouds"], "fog": ["fog"],
    "rainy": ["very-light-rain", "light-rain", "medium-rain", "very-light-freezing-rain", "light-freezing-rain",
              "medium-freezing-rain"],
    "pouring": ["heavy-rain", "heavy-freezing-rain"], "snowy": ["light-snow", "medium-snow", "heavy-snow"],
    "snowy-rainy": ["light-sleet", "medium-sleet", "heavy-sleet"], "lightning-rainy": ["thunderstorm"],
    "hail": ["hail"],
}
# What a language needs to describe every weather (a coarser word stands in for a finer one).
NEEDED = ["clear", "light-clouds", "medium-clouds", "fog", "medium-rain", "medium-snow", "thunderstorm"]


def pirate_weather(wheel, folder):
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder)
    sys.path.insert(0, folder)
    languages, dropped = {}, []
    package = os.path.join(folder, "pirateweather_translations", "lang")
    for name in sorted(os.listdir(package)):
        code = name[:-3]
        if not name.endswith(".py") or name.startswith("__") or code in ("en", "x-pig-latin"):
            continue
        template = importlib.import_module("pirateweather_translations.lang." + code).template
        words = {}
        for key in KEYS:
            value = template.get(key)
            if not isinstance(value, str) or not value.strip():
                continue
            if template.get("possible-" + key) == value:
                dropped.append(f"{code} {key} \"{value}\" (the same as its \"possible\" form)")
                continue
            words[key] = value
        languages[code] = words
    return languages, dropped


def home_assistant(wheel, have):
    languages = {}
    prefix = "homeassistant/components/weather/translations/"
    with zipfile.ZipFile(wheel) as archive:
        for name in sorted(archive.namelist()):
            if not name.startswith(prefix) or not name.endswith(".json"):
                continue
            code = name[len(prefix):-5].lower()
            # A variant of a language Pirate Weather has (zh-Hans, pt-BR, nb, sr-Latn) reads its finer words.
            primary = {"nb": "no", "nn": "no", "zh-hans": "zh", "zh-hant": "zh-tw"}.get(code, code.split("-")[0])
            if primary in have or code.startswith("en"):
                continue
            states = json.loads(archive.read(name)).get("entity_component", {}).get("_", {}).get("state", {})
            words = {}
            for state, keys in HOME_ASSISTANT.items():
                value = states.get(state) or (states.get("lightning") if state == "lightning-rainy" else None)
                for key in keys:
                    if value:
                        words[key] = value
            if all(key in words for key in NEEDED):
                languages[code] = words
    return languages


def own():
    rows = []
    for line in open(OWN, encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        lang, key, words, why = line.rstrip("\n").split("\t")
        rows.append((lang, key, words, why))
    return rows


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as folder:
        languages, dropped = pirate_weather(sys.argv[1], folder)
    sources = {code: "pirateWeather" for code in languages}
    for code, words in home_assistant(sys.argv[2], set(languages)).items():
        languages[code], sources[code] = words, "homeAssistant"
    owned = {}
    for lang, key, words, why in own():
        if lang not in languages:
            sys.exit(f"tools/weather-words.tsv: {lang} has no words of its own to correct or add to")
        languages[lang][key] = words
        owned[lang] = owned.get(lang, 0) + 1
    for code, words in languages.items():
        missing = [key for key in NEEDED if key not in words]
        if missing:
            sys.exit(f"{code}: no {', '.join(missing)}")
    lines = [
        "// Generated by tools/weather-words.py (`make generated`) from Pirate Weather's translations "
        f"({PIRATEWEATHER}),",
        f"// Home Assistant's ({HOMEASSISTANT}) and tools/weather-words.tsv: edit those, not this.",
        "//",
        "// Pirate Weather's words: Copyright (c) 2020, The Dark Sky Company, LLC. All rights reserved. BSD 2-Clause",
        "// License: redistribution and use in source and binary forms, with or without modification, are permitted",
        "// provided that (1) redistributions of source code retain the above copyright notice, this list of",
        "// conditions and the following disclaimer, and (2) redistributions in binary form reproduce them in the",
        "// documentation and/or other materials provided with the distribution. THIS SOFTWARE IS PROVIDED BY THE",
        "// COPYRIGHT HOLDERS AND CONTRIBUTORS \"AS IS\" AND ANY EXPRESS OR IMPLIED WARRANTIES ARE DISCLAIMED (the whole",
        "// text: debian/copyright). Home Assistant's words: Copyright the Home Assistant authors, Apache License 2.0.",
        "//",
        "// Dropped as errors (a word the same as its \"possible\" form):",
    ] + [f"// - {line}" for line in dropped] + [
        "",
        "extension WeatherWords {",
        "    /// Each language's words by key, and where they came from.",
        "    static let catalog: [String: Language] = [",
    ]
    for code in sorted(languages):
        lines.append(f"        {swift_string(code)}: Language(")
        lines.append(f"            source: .{sources[code]}, own: {owned.get(code, 0)},")
        lines.append("            words: [")
        for key in sorted(languages[code]):
            lines.append(f"                {swift_string(key)}: {swift_string(languages[code][key])},")
        lines.append("            ]),")
    lines += ["    ]", "}", ""]
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    print(f"{OUTPUT}: {len(languages)} languages")


if __name__ == "__main__":
    main()
