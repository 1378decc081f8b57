#!/usr/bin/env node
// What Obsidian does to a note's front matter when a property is edited in its Properties panel: the YAML is read
// and written again whole, in another order and quoting, with the property changed or added. Obsidian's own
// serialiser is not free software; this one is js-yaml's (Debian's node-js-yaml), read with the core schema so that
// a Date & time stays the text it is, as Obsidian keeps it. Used by the tests (ObsidianTests).
//
//   obsidian-rewrite.js FILE types             prints {"key": "number" | "boolean" | "string" | "object" | …}
//   obsidian-rewrite.js FILE rewrite STYLE JSON  writes the front matter again (STYLE: sorted | quoted |
//                                                reversed), with the properties in JSON set on it
//   obsidian-rewrite.js FILE drop PREFIX        writes it again without the properties named PREFIX…
'use strict';
const fs = require('fs');
const yaml = require('js-yaml');

const [file, mode, ...rest] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
if (!match) {
  console.error(`${file}: no front matter`);
  process.exit(2);
}
const body = text.slice(match[0].length);
const data = yaml.load(match[1], { schema: yaml.CORE_SCHEMA }) || {};

function write(properties, options) {
  const front = yaml.dump(properties, { schema: yaml.CORE_SCHEMA, lineWidth: -1, ...options });
  // In place, as Obsidian writes a note.
  fs.writeFileSync(file, `---\n${front}---\n${body}`);
}

if (mode === 'types') {
  const types = {};
  for (const [key, value] of Object.entries(data)) {
    types[key] = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  }
  console.log(JSON.stringify(types));
} else if (mode === 'rewrite') {
  const [style, json] = rest;
  const changed = { ...data, ...JSON.parse(json || '{}') };
  const keys = Object.keys(changed);
  if (style === 'reversed') keys.reverse();
  const ordered = {};
  for (const key of keys) ordered[key] = changed[key];
  write(ordered, style === 'sorted' ? { sortKeys: true } : style === 'quoted' ? { forceQuotes: true, quotingType: '"' } : {});
} else if (mode === 'drop') {
  const [prefix] = rest;
  const kept = {};
  for (const [key, value] of Object.entries(data)) if (!key.startsWith(prefix)) kept[key] = value;
  write(kept, {});
} else {
  console.error('usage: obsidian-rewrite.js FILE types | rewrite STYLE JSON | drop PREFIX');
  process.exit(64);
}
