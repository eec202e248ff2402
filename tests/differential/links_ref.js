#!/usr/bin/env node
// links_ref.js LIST: the links a browser finds in pages, for
// tests/integration/links_differential.sh. LIST as for links_dump: one
// page a line, "URL<TAB>FILE<TAB>CHARSET" (CHARSET empty: none in HTTP).
// For each page prints "== FILE", then the URL of each link, in tree
// order: a and area with an href, frame and iframe with a non-empty src,
// HTML elements only, template contents left out, resolved by whatwg-url
// against the document's base URL (its first <base href>, else URL);
// http(s) results only, without the fragment.
//
// Bytes to text as the HTML standard says: html-encoding-sniffer (BOM,
// HTTP charset, <meta> prescan) with, for a page that declares nothing,
// UTF-8 if its bytes are valid UTF-8 and windows-1252 otherwise (what
// links.h says the crawler does). The tree:
// parse5 with scripting off (a crawler runs no scripts).
// whatwg-encoding (iconv-lite) decodes.
"use strict";
const fs = require("fs");
const parse5 = require("parse5");
const whatwgURL = require("whatwg-url");
const sniff = require("html-encoding-sniffer");
const whatwgEncoding = require("whatwg-encoding"); // html-encoding-sniffer's
const iconv = require("iconv-lite"); // whatwg-encoding's

const HTML_NS = "http://www.w3.org/1999/xhtml";

function validUTF8(bytes) {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch (e) {
    return false;
  }
}

// The URL standard's "encoding-parse": a page not in UTF-8 (nor UTF-16)
// sends the non-ASCII characters of a query in its own encoding, those
// it cannot encode as "&#N;". whatwg-url has no encoding override, so
// the query is encoded here, before it parses.
function encodeQuery(href, enc) {
  if (enc === "UTF-8" || enc.startsWith("UTF-16") || enc === "replacement")
    return href;
  const q = href.indexOf("?");
  const hash = href.indexOf("#");
  if (q < 0 || (hash >= 0 && hash < q)) return href;
  const end = hash >= 0 ? hash : href.length;
  let out = href.slice(0, q);
  for (const ch of href.slice(q, end)) {
    const cp = ch.codePointAt(0);
    if (cp < 0x80) {
      out += ch;
      continue;
    }
    const bytes = iconv.encode(ch, enc);
    if (iconv.decode(bytes, enc) !== ch) {
      out += "%26%23" + cp + "%3B";
      continue;
    }
    for (const b of bytes)
      out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out + href.slice(end);
}

function decode(bytes, charset) {
  const nonAscii = bytes.some((b) => b >= 0x80);
  const dflt = nonAscii && validUTF8(bytes) ? "UTF-8" : "windows-1252";
  const enc = sniff(bytes, {
    transportLayerEncodingLabel: charset || undefined,
    defaultEncoding: dflt,
  });
  // Not Node's TextDecoder: Node 20's reads windows-1252 as ISO-8859-1.
  // A BOM wins, and is dropped.
  return { text: whatwgEncoding.decode(bytes, enc), enc: bomEncoding(bytes) || enc };
}

function bomEncoding(b) {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return "UTF-8";
  if (b[0] === 0xfe && b[1] === 0xff) return "UTF-16BE";
  if (b[0] === 0xff && b[1] === 0xfe) return "UTF-16LE";
  return null;
}

function attr(el, name) {
  for (const a of el.attrs) if (a.name === name && !a.prefix) return a.value;
  return null;
}

function walk(node, visit) {
  for (const child of node.childNodes || []) {
    visit(child);
    walk(child, visit); // a template's childNodes are empty: content is apart
  }
}

function pageLinks(url, file, charset) {
  const { text, enc } = decode(fs.readFileSync(file), charset);
  const doc = parse5.parse(text, { scriptingEnabled: false });
  const docURL = whatwgURL.parseURL(url);
  let base = null;
  const hrefs = [];
  walk(doc, (el) => {
    if (!el.tagName || el.namespaceURI !== HTML_NS) return;
    const t = el.tagName;
    if (t === "base" && base === null) {
      const h = attr(el, "href");
      if (h !== null)
        base = whatwgURL.parseURL(encodeQuery(h, enc), { baseURL: docURL }) || docURL;
    } else if (t === "a" || t === "area") {
      const h = attr(el, "href");
      if (h !== null) hrefs.push(h);
    } else if (t === "frame" || t === "iframe") {
      const s = attr(el, "src");
      if (s !== null && s !== "") hrefs.push(s);
    }
  });
  const out = [];
  for (const h of hrefs) {
    const u = whatwgURL.parseURL(encodeQuery(h, enc), { baseURL: base || docURL });
    if (u === null || (u.scheme !== "http" && u.scheme !== "https")) continue;
    u.fragment = null;
    out.push(whatwgURL.serializeURL(u));
  }
  return out;
}

const lines = fs.readFileSync(process.argv[2], "utf8").split("\n");
let out = "";
for (const line of lines) {
  if (line === "") continue;
  const [url, file, charset] = line.split("\t");
  out += `== ${file}\n`;
  for (const u of pageLinks(url, file, charset)) out += u + "\n";
}
process.stdout.write(out);
