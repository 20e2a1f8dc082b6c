#pragma once
// Command-line parsing shared by every tool: CLI11, with errors in the project's own words
// ("TOOL: OPTION: 'VALUE' is not ...; give ... (see --help)") and exit code 1. CLI11's own
// texts ("Value abc not in range 1.000000 to 100000.000000", "Check lines value in
// {...} FAILED", a 300-digit bound) never reach the user: numeric and enumerated options
// are checked by the validators below, and an unknown option is named with the closest
// real one.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::cli {

// Edit distance (insertions, deletions, substitutions) between two short strings.
inline size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word`, when it is close enough to be a misspelling of it
// (at most a third of its letters off); "" else.
inline std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  const auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
  };
  std::string best;
  size_t best_distance = word.size() / 3 + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(lower(word), lower(c));
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

// A number from `low` to `high` (`what` says what it counts: "samples per second").
inline CLI::Validator number_in(double low, double high, const std::string& what) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        const std::string range = fmt::format("{:g} to {:g}", low, high);
        if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v)) {
          return fmt::format("'{}' is not a number; give {}, {}", text, what, range);
        }
        if (v < low || v > high)
          return fmt::format("{} is out of range; give {}, {}", text, what, range);
        return "";
      },
      "NUMBER", "number_in");
}

// A whole number from `low` to `high`.
inline CLI::Validator whole_number_in(unsigned long long low, unsigned long long high,
                                      const std::string& what) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        const std::string range = fmt::format("{} to {}", low, high);
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
          return c >= '0' && c <= '9';
        });
        if (!digits)
          return fmt::format("'{}' is not a whole number; give {}, {}", text, what, range);
        errno = 0;
        const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
        if (errno != 0 || v < low || v > high) {
          return fmt::format("{} is out of range; give {}, {}", text, what, range);
        }
        return "";
      },
      "N", "whole_number_in");
}

// One of `values`, with the closest one suggested for a misspelling.
inline CLI::Validator one_of(std::vector<std::string> values) {
  return CLI::Validator(
      [values](const std::string& text) -> std::string {
        if (std::find(values.begin(), values.end(), text) != values.end()) return "";
        std::string list;
        for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
        const std::string near = closest(text, values);
        return fmt::format("'{}' is not one of {}{}", text, list,
                           near.empty() ? "" : fmt::format(" (did you mean {}?)", near));
      },
      "VALUE", "one_of");
}

// A directory that exists.
inline CLI::Validator existing_directory() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_directory(text, ec)) return "";
        return fmt::format("'{}' is not a directory{}", text,
                           std::filesystem::exists(text, ec) ? "" : " (no such path)");
      },
      "DIR", "existing_directory");
}

// Every option name of the app, with its dashes ("--frequency", "-f").
inline std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// The one line a parse error gets, without the tool's name.
inline std::string usage_error(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  // CLI11's own texts for what no validator sees: a value that does not convert to the
  // option's type ("Could not convert: --seed = abc", "--quiet=abc"), an option without
  // its value ("--exe: 1 required TEXT missing"), no program ("command is required").
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    constexpr std::string_view kCould = "Could not convert: ";
    if (what.starts_with(kCould)) {
      const auto eq = what.find(" = ");
      if (eq != std::string::npos) {
        return fmt::format("{}: '{}' is not a valid value",
                           what.substr(kCould.size(), eq - kCould.size()), what.substr(eq + 3));
      }
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    if (const auto at = what.find(": "); at != std::string::npos && what.ends_with(" missing"))
      return fmt::format("{}: no value given", what.substr(0, at));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    for (const CLI::Option* o : app.get_options()) {
      if (o->get_positional() && o->get_required() && o->count() == 0) {
        // "-- PROGRAM [ARGS...]" is the launchers' command; else the positional's name (DIR).
        const std::string& text = o->get_description();
        return text.starts_with("-- ") ? "no program to run: give " + text + " after the options"
                                       : "missing " + o->get_name();
      }
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // "The following argument(s) were not expected: A B ...": an unknown option first.
    const auto colon = what.find(": ");
    std::vector<std::string> extras;
    for (size_t at = colon == std::string::npos ? 0 : colon + 2; at < what.size();) {
      const size_t end = std::min(what.find(' ', at), what.size());
      if (end > at) extras.push_back(what.substr(at, end - at));
      at = end + 1;
    }
    for (const auto& extra : extras) {
      if (extra.size() < 2 || extra[0] != '-' || extra == "--") continue;
      const std::string near = closest(extra.substr(0, extra.find('=')), option_names(app));
      return fmt::format("unknown option {}{}", extra,
                         near.empty() ? "" : fmt::format(" (did you mean {}?)", near));
    }
    return fmt::format("unexpected argument '{}'", extras.empty() ? what : extras.front());
  }
  return what;
}

// Parses; on --help prints it and returns 0 through `exit_code`; on an error prints one
// line and sets exit code 1. Returns true when the tool should go on.
inline bool parse(CLI::App& app, int argc, char** argv, int& exit_code) {
  try {
    app.parse(argc, argv);
    return true;
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "{}: {} (see --help)\n", app.get_name(), usage_error(app, e));
    exit_code = 1;
  }
  return false;
}

}  // namespace cprof::cli
