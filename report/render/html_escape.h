#pragma once
// HTML/XML escaping for every name, path and note the HTML report writes (text and
// attribute values alike: quotes are escaped too).

#include <string>
#include <string_view>

namespace cprof::report {

std::string html_escape(std::string_view s);

}  // namespace cprof::report
