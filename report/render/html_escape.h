#pragma once
// What the HTML renderers share: escaping for every name, path and note the page writes
// (text and attribute values alike: quotes are escaped too), and the tables' heads.

#include <initializer_list>
#include <string>
#include <string_view>

namespace cprof::report {

std::string html_escape(std::string_view s);

// Opens <table id=ID> with a head row of `columns`; a column written "<name" is a name
// column (left-aligned, class "name"). Column titles are HTML already.
void html_table_head(std::string& out, std::initializer_list<const char*> columns, const char* id);

// The page up to its <body>: doctype, charset, `title` (escaped) and the pages' style.
void html_page_head(std::string& out, std::string_view title);

}  // namespace cprof::report
