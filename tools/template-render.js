#!/usr/bin/env node
// What Obsidian's template plugins do when they make a note of a template: the core Templates and Daily notes
// plugins put the date, the time and the title in place of `{{date}}`, `{{date:FORMAT}}`, `{{time}}` and `{{title}}`;
// Templater evaluates each `<% … %>` tag as JavaScript, with `tp` and `moment` in scope, and puts what it gives in
// its place. Everything else of the template, its front matter included, is copied byte for byte. Templater and
// moment.js are not in Debian; `tp` and `moment` here are stand-ins for the parts the recorded templates use
// (Tests/WeathertagCoreTests/Recorded/Vaults): `tp.file.title`, `tp.file.cursor()`, `tp.date.now(FORMAT)`,
// `tp.user.*()` scripts, `moment(text, FORMAT)` and `moment()` with `.format(FORMAT)` (YYYY YY MMMM MMM MM M DD D
// dddd ddd WW ww W w HH mm, `[literal]`) and `.week()`. Used by the tests (VaultTests).
//
//   template-render.js TEMPLATE NOTE TITLE      writes NOTE as Obsidian does (in place): first what the core
//                                               plugin makes of TEMPLATE for a note titled TITLE (YYYY-MM-DD),
//                                               then, as Templater does on the note's creation, the whole of it.
'use strict';
const fs = require('fs');

const [templatePath, notePath, title] = process.argv.slice(2);
const template = fs.readFileSync(templatePath, 'utf8');
const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(title);
const date = day ? new Date(Date.UTC(+day[1], +day[2] - 1, +day[3], 9, 0)) : new Date();

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];
const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function isoWeek(d) {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  t.setUTCDate(t.getUTCDate() + 4 - (t.getUTCDay() || 7));
  const start = new Date(Date.UTC(t.getUTCFullYear(), 0, 1));
  return Math.ceil(((t - start) / 86400000 + 1) / 7);
}

function pad(n) { return String(n).padStart(2, '0'); }

function format(d, pattern) {
  const tokens = {
    YYYY: () => String(d.getUTCFullYear()), YY: () => String(d.getUTCFullYear()).slice(2),
    MMMM: () => months[d.getUTCMonth()], MMM: () => months[d.getUTCMonth()].slice(0, 3),
    MM: () => pad(d.getUTCMonth() + 1), M: () => String(d.getUTCMonth() + 1),
    DD: () => pad(d.getUTCDate()), D: () => String(d.getUTCDate()),
    dddd: () => weekdays[d.getUTCDay()], ddd: () => weekdays[d.getUTCDay()].slice(0, 3),
    WW: () => pad(isoWeek(d)), ww: () => pad(isoWeek(d)), W: () => String(isoWeek(d)), w: () => String(isoWeek(d)),
    HH: () => pad(d.getUTCHours()), mm: () => pad(d.getUTCMinutes()),
  };
  return pattern.replace(/\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|WW|ww|W|w|HH|mm/g,
    (match, literal) => literal !== undefined ? literal : tokens[match]());
}

function moment(text) {
  const d = typeof text === 'string' && /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(Date.UTC(+text.slice(0, 4),
    +text.slice(5, 7) - 1, +text.slice(8, 10), 9, 0)) : date;
  return { format: (pattern) => format(d, pattern || 'YYYY-MM-DDTHH:mm:ssZ'), week: () => isoWeek(d) };
}

const tp = {
  file: { title, cursor: () => '' },
  date: { now: (pattern) => format(date, pattern || 'YYYY-MM-DD') },
  user: new Proxy({}, { get: () => () => 'Seoul 🌧️ +3°C' }),
};

// The core plugins first: the daily note as it is created.
const core = template.replace(/\{\{(date|time|title)(?::([^}]*))?\}\}/g, (match, word, pattern) => {
  if (word === 'title') return title;
  return format(date, pattern || (word === 'date' ? 'YYYY-MM-DD' : 'HH:mm'));
});
fs.writeFileSync(notePath, core);

// Then Templater, as it runs on the new file: each tag evaluated, its output in its place.
const rendered = core.replace(/<%[*_-]?([\s\S]*?)[_-]?%>/g, (match, code) => {
  // eslint-disable-next-line no-new-func
  const value = new Function('tp', 'moment', `return (${code.trim()});`)(tp, moment);
  return value === undefined ? '' : String(value);
});
fs.writeFileSync(notePath, rendered);
