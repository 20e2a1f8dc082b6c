#pragma once
// The HTML page's interactive flame graph (docs/report.md "html"): the call tree as data
// in the page plus a small inline script that draws it, with zoom (click a box; click an
// ancestor or Reset to go back out), search (a regular expression over function names:
// the matches are highlighted and their share of the time is shown) and hover details.
// Offline: no network, no library. The static SVG icicle before it stays for readers
// without script (a mail client); the script hides it when it runs.
//
// Links: `#flame-search=REGEX` and `#flame-zoom=NODE` in the page's address open it
// searched or zoomed.

#include <cstddef>
#include <string>

namespace cprof::report {

struct Report;

// The most nodes the page carries: a larger tree keeps its widest nodes (every kept
// node's ancestors are wider, so they are kept too) and says how many it left out.
inline constexpr size_t kFlameMaxNodes = 40000;

// With `base` (causal-report --diff BASE DIR --format html), a differential flame graph:
// the boxes are r's, each coloured by how its share of the run's time changed from the
// same call path's share in base (red: grew, blue: shrank, white: as before), and the
// hover details give both.
void html_flame_graph(std::string& out, const Report& r, size_t max_nodes = kFlameMaxNodes,
                      const Report* base = nullptr);

}  // namespace cprof::report
