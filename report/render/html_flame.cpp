// The interactive flame graph of `--format html` (html_flame.h): the call tree's nodes as
// JSON in a <script type="application/json"> block, and the script that draws them.
// Written by hand rather than taken from d3-flame-graph or speedscope: the page must open
// offline from one file, and those need a bundle many times this page's own size.
#include "report/render/html_flame.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "report/render/json_writer.h"
#include "report/render/render.h"

namespace cprof::report {
namespace {

// The drawing: plain DOM and SVG, no library. Every name goes through esc() before it
// is put into markup.
constexpr const char* kScript = R"JS(
(function () {
  var data = JSON.parse(document.getElementById('flame-data').textContent);
  var n = data.nodes.length / 4, parent = [], fn = [], total = [], self = [], kids = [], depth = [];
  for (var i = 0; i < n; i++) {
    parent.push(data.nodes[4 * i]); fn.push(data.nodes[4 * i + 1]);
    total.push(data.nodes[4 * i + 2]); self.push(data.nodes[4 * i + 3]); kids.push([]);
    depth.push(i === 0 ? 0 : depth[data.nodes[4 * i]] + 1);
    if (i > 0) kids[parent[i]].push(i);
  }
  var root = document.getElementById('flame'), svg = document.getElementById('flame-svg');
  var details = document.getElementById('flame-details'), match = document.getElementById('flame-match');
  var search = document.getElementById('flame-search');
  var zoom = 0, matched = null, ROW = 17, CHAR = 6.6;
  root.style.display = '';
  var fallback = document.getElementById('icicle-static');
  if (fallback) fallback.style.display = 'none';
  function esc(s) {
    return s.replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; });
  }
  function amount(v) {
    if (data.unit !== 'ns') return v + ' samples';
    if (v >= 1e9) return (v / 1e9).toFixed(2) + ' s';
    if (v >= 1e6) return (v / 1e6).toFixed(1) + ' ms';
    if (v >= 1e3) return (v / 1e3).toFixed(1) + ' \u00b5s';
    return v + ' ns';
  }
  function share(v) { return (100 * v / total[0]).toFixed(2) + '%'; }
  var base = data.base || null, max_change = 0;
  function change(i) { return total[i] / total[0] - base[i] / data.base_total; }
  if (base) for (var b = 1; b < n; b++) max_change = Math.max(max_change, Math.abs(change(b)));
  function colour(i) {
    if (matched && matched[i]) return 'rgb(200,60,230)';
    if (base) {  // red grew, blue shrank, by the change of its share of its run's time
      var t = max_change > 0 ? Math.min(1, Math.abs(change(i)) / max_change) : 0;
      var c = Math.round(240 - 180 * t);
      return change(i) >= 0 ? 'rgb(255,' + c + ',' + c + ')' : 'rgb(' + c + ',' + c + ',255)';
    }
    var name = data.names[fn[i]], h = 2166136261;
    for (var k = 0; k < name.length; k++) h = Math.imul(h ^ name.charCodeAt(k), 16777619) >>> 0;
    return 'rgb(' + (205 + h % 50) + ',' + (80 + (h >>> 8) % 130) + ',' + (40 + (h >>> 16) % 50) + ')';
  }
  function draw() {
    var W = Math.max(300, root.clientWidth || 1200), boxes = [], chain = [];
    for (var a = zoom; ; a = parent[a]) { chain.unshift(a); if (a === 0) break; }
    chain.forEach(function (a) { boxes.push([a, 0, W]); });  // the way back out, full width
    var scale = W / total[zoom], todo = [[zoom, 0]];
    while (todo.length) {
      var item = todo.pop(), x = item[1], w = total[item[0]] * scale;
      if (w < 0.5) continue;
      if (item[0] !== zoom) boxes.push([item[0], x, w]);
      kids[item[0]].forEach(function (c) { todo.push([c, x]); x += total[c] * scale; });
    }
    var height = 0, parts = [];
    boxes.forEach(function (b) {
      var i = b[0], y = depth[i] * ROW, name = i === 0 ? 'all' : data.names[fn[i]];
      height = Math.max(height, y + ROW);
      var chars = Math.floor((b[2] - 6) / CHAR), label = '';
      if (chars >= 3) label = name.length <= chars ? name : '\u2026' + name.slice(name.length - chars + 1);
      parts.push('<g data-node="' + i + '"><rect x="' + b[1].toFixed(1) + '" y="' + y + '" width="' +
                 b[2].toFixed(1) + '" height="' + (ROW - 1) + '" fill="' + colour(i) + '"' +
                 (depth[i] < depth[zoom] || (i === 0 && zoom !== 0) ? ' opacity="0.55"' : '') +
                 '/><text x="' + (b[1] + 3).toFixed(1) + '" y="' + (y + 12) + '">' + esc(label) + '</text></g>');
    });
    svg.setAttribute('width', W); svg.setAttribute('height', height);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + height);
    svg.setAttribute('data-zoom', zoom); svg.setAttribute('data-boxes', boxes.length);
    svg.innerHTML = parts.join('');
  }
  function node_of(event) {
    var g = event.target.closest ? event.target.closest('g[data-node]') : null;
    return g ? +g.getAttribute('data-node') : -1;
  }
  function describe(i) {
    var name = i === 0 ? 'all' : data.names[fn[i]];
    var text = esc(name) + ': total ' + amount(total[i]) + ' (' + share(total[i]) + '), self ' +
               amount(self[i]) + ' (' + share(self[i]) + ')';
    if (!base) return text;
    var d = 100 * change(i);
    return text + '; base: total ' + amount(base[i]) + ' (' + (100 * base[i] / data.base_total).toFixed(2) +
           '%), ' + (d >= 0 ? '+' : '') + d.toFixed(2) + ' points';
  }
  function remember() {
    var parts = [];
    if (search.value) parts.push('flame-search=' + encodeURIComponent(search.value));
    if (zoom) parts.push('flame-zoom=' + zoom);
    if (history.replaceState) history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname);
  }
  function find(text) {
    if (!text) { matched = null; match.textContent = ''; return; }
    var re;
    try { re = new RegExp(text, 'i'); } catch (e) { re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'); }
    matched = [];
    var sum = 0, count = 0;
    for (var i = 0; i < n; i++) {
      matched.push(i > 0 && re.test(data.names[fn[i]]));
      if (!matched[i]) continue;
      count++;
      var outer = true;  // counted once: a match inside another match is already in it
      for (var a = parent[i]; a > 0; a = parent[a]) if (matched[a]) { outer = false; break; }
      if (outer) sum += total[i];
    }
    match.textContent = count ? 'matched: ' + share(sum) + ' of the ' + (data.unit === 'ns' ? 'time' : 'samples') +
                                ' (' + count + (count === 1 ? ' box)' : ' boxes)') : 'no match';
    match.setAttribute('data-share', (sum / total[0]).toFixed(4));
  }
  svg.addEventListener('mousemove', function (e) {
    var i = node_of(e);
    if (i >= 0) details.innerHTML = describe(i);
  });
  svg.addEventListener('click', function (e) {
    var i = node_of(e);
    if (i < 0) return;
    zoom = i; draw(); remember();
  });
  document.getElementById('flame-reset').addEventListener('click', function () { zoom = 0; draw(); remember(); });
  search.addEventListener('input', function () { find(search.value); draw(); remember(); });
  window.addEventListener('resize', draw);
  var asked = new URLSearchParams(location.hash.slice(1));
  if (asked.get('flame-search')) { search.value = asked.get('flame-search'); find(search.value); }
  var z = +asked.get('flame-zoom');
  if (z > 0 && z < n) zoom = z;
  draw();
})();
)JS";

}  // namespace

namespace {

// The total of the node of `base`'s tree on the same call path (by function names) as
// each kept node of `now`'s, 0 where base has no such path.
std::vector<uint64_t> base_totals(const CallTree& now, const SymbolTable& now_table,
                                  const std::vector<uint32_t>& kept,
                                  const std::vector<int64_t>& index, const Report& base,
                                  bool by_time) {
  std::vector<uint64_t> out(kept.size(), 0);
  const auto& nodes = base.tree->nodes;
  const auto& table = base.symbols.table;
  const auto size = [&](const CallTreeNode& n) {
    return by_time ? n.total.time_ns : n.total.samples;
  };
  std::map<std::pair<uint32_t, std::string_view>, uint32_t> child;  // (parent, name) -> node
  for (uint32_t i = 1; i < nodes.size(); ++i) {
    child.emplace(
        std::pair{nodes[i].parent, std::string_view(table.functions[nodes[i].function].name)}, i);
  }
  std::vector<int64_t> in_base(kept.size(), -1);
  in_base[0] = 0;
  out[0] = size(nodes[0]);
  for (size_t k = 1; k < kept.size(); ++k) {
    const auto& node = now.nodes[kept[k]];
    const int64_t parent = in_base[static_cast<size_t>(index[node.parent])];
    if (parent < 0) continue;
    const auto it = child.find(
        {static_cast<uint32_t>(parent), std::string_view(now_table.functions[node.function].name)});
    if (it == child.end()) continue;
    in_base[k] = it->second;
    out[k] = size(nodes[it->second]);
  }
  return out;
}

}  // namespace

void html_flame_graph(std::string& out, const Report& r, size_t max_nodes, const Report* base) {
  if (!r.tree || r.tree->nodes.size() <= 1 || r.tree->nodes[0].total.samples == 0) return;
  const auto& nodes = r.tree->nodes;
  const bool by_time = nodes[0].total.time_ns > 0;
  const auto size = [&](const CallTreeNode& node) {
    return by_time ? node.total.time_ns : node.total.samples;
  };
  // The widest max_nodes nodes: the narrowest size kept, then the nodes at least that
  // wide whose parent is kept, in depth-first order along the children's order (widest
  // first), which is the order the page draws them in.
  std::vector<uint64_t> sizes;
  sizes.reserve(nodes.size());
  for (size_t i = 1; i < nodes.size(); ++i) sizes.push_back(size(nodes[i]));
  uint64_t narrowest = 1;
  if (sizes.size() + 1 > max_nodes && max_nodes > 1) {
    auto nth = sizes.begin() + static_cast<std::ptrdiff_t>(max_nodes - 2);
    std::nth_element(sizes.begin(), nth, sizes.end(), std::greater<>());
    narrowest = std::max<uint64_t>(1, *nth);
  }
  std::vector<int64_t> index(nodes.size(), -1);
  std::vector<uint32_t> kept{0};
  index[0] = 0;
  std::map<FunctionId, uint32_t> name_index;
  std::vector<FunctionId> names;
  std::vector<uint32_t> todo(nodes[0].children.rbegin(), nodes[0].children.rend());
  while (!todo.empty() && kept.size() < max_nodes) {
    const uint32_t i = todo.back();
    todo.pop_back();
    if (size(nodes[i]) < narrowest) continue;
    index[i] = static_cast<int64_t>(kept.size());
    kept.push_back(i);
    if (name_index.try_emplace(nodes[i].function, static_cast<uint32_t>(names.size())).second) {
      names.push_back(nodes[i].function);
    }
    todo.insert(todo.end(), nodes[i].children.rbegin(), nodes[i].children.rend());
  }
  std::string json;
  JsonWriter w(json);
  w.begin_object(/*compact=*/true);
  w.field("unit", by_time ? "ns" : "samples");
  w.key("names").begin_array(true);
  for (const FunctionId f : names) w.value(r.symbols.table.functions[f].name);
  w.end_array();
  w.key("nodes").begin_array(true);
  for (const uint32_t i : kept) {
    const auto& node = nodes[i];
    w.value(i == 0 ? int64_t{-1} : index[node.parent]);
    w.value(static_cast<uint64_t>(i == 0 ? 0 : name_index.at(node.function)));
    w.value(size(node));
    w.value(by_time ? node.self.time_ns : node.self.samples);
  }
  w.end_array();
  w.field("left_out", static_cast<uint64_t>(nodes.size() - kept.size()));
  const bool diff = base != nullptr && base->tree && base->tree->nodes.size() > 1;
  if (diff) {
    const auto totals = base_totals(*r.tree, r.symbols.table, kept, index, *base, by_time);
    w.field("base_total", totals[0]);
    w.key("base").begin_array(true);
    for (const uint64_t t : totals) w.value(t);
    w.end_array();
  }
  w.end_object();
  // Inside <script>, "</" would end it: JSON allows "<\/" for it (only strings hold "<").
  std::string safe;
  safe.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    safe += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') safe += '\\';
  }
  const size_t left_out = nodes.size() - kept.size();
  out += fmt::format(
      "<div id=\"flame\" style=\"display:none\">\n<p class=\"note\">flame graph (icicle): "
      "outermost frames on top, width = total {}{}; click a box to zoom, an upper box or "
      "<button id=\"flame-reset\" type=\"button\">Reset</button> to zoom out; "
      "<input id=\"flame-search\" type=\"search\" placeholder=\"search functions (regex)\" "
      "size=\"28\"> <span id=\"flame-match\"></span>{}</p>\n"
      "<div id=\"flame-details\" class=\"note\">hover a box for its numbers</div>\n"
      "<svg id=\"flame-svg\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n</div>\n",
      by_time ? "time" : "samples",
      diff ? " in the new run, colour = change of its share of its run's time from the base "
             "run's on the same call path (red grew, blue shrank)"
           : "",
      left_out == 0 ? std::string()
                    : fmt::format(" ({} of the tree's {} nodes, the narrowest, left out)", left_out,
                                  nodes.size() - 1));
  out += "<script type=\"application/json\" id=\"flame-data\">" + safe + "</script>\n";
  out += "<script>";
  out += kScript;
  out += "</script>\n";
}

}  // namespace cprof::report
