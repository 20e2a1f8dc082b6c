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

}  // namespace cprof::report
