#include "report/render/html_escape.h"

#include <fmt/format.h>

namespace cprof::report {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void html_table_head(std::string& out, std::initializer_list<const char*> columns, const char* id) {
  out += fmt::format("<table id=\"{}\"><thead><tr>", id);
  for (const char* c : columns) {
    const std::string_view v(c);
    out += v.starts_with('<') ? fmt::format("<th class=\"name\">{}</th>", v.substr(1))
                              : fmt::format("<th>{}</th>", v);
  }
  out += "</tr></thead><tbody>\n";
}

namespace {

constexpr const char* kStyle = R"(
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}
th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td.name,th.name{text-align:left;white-space:normal;font-family:monospace}
td.name{max-width:40em;overflow-wrap:anywhere}
.note{color:#666}
svg text{font:11px monospace;pointer-events:none}
svg rect{stroke:#fff;stroke-width:.5}
)";

}  // namespace

void html_page_head(std::string& out, std::string_view title) {
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  out += html_escape(title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style></head><body>\n";
}

}  // namespace cprof::report
