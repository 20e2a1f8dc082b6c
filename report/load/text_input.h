#pragma once
// Inputs besides the results format that `causal-report DIR` reads (docs/report.md "Text
// inputs"): Coz profiles (*.coz), TSV (*.tsv) and JSON lines (*.jsonl). Each becomes the
// same records a results file holds, so everything after loading treats them alike. A bad
// line is a warning "FILE:LINE: what is wrong" and is skipped; the rest still counts.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "format/records.h"

namespace cprof::report {

enum class InputKind { results, coz, tsv, jsonl };

// By the file name's extension (.coz, .tsv, .jsonl); anything else is a results file
// (recognized by its header).
InputKind input_kind_of(const std::filesystem::path& path);
const char* input_kind_name(InputKind kind);

// What a text file holds, by its first record, whatever it is called: Coz's records
// (`startup`, an `experiment` with `selected`, the point and sample lines) in either
// spelling, tab-separated or JSON lines (Coz's profile.jsonl); else the results format's
// rows as JSON lines or TSV. nullopt: none of these (or unreadable). A Coz profile saved
// as profile.jsonl is read as Coz's, not as rows of ours.
std::optional<InputKind> text_input_by_content(const std::filesystem::path& path);
// Only Coz's profiles, which begin with a `startup` record: the files of a directory
// that are neither results files nor named like a text input are looked at for this.
bool starts_like_coz_profile(const std::filesystem::path& path);

using RecordSink = std::function<void(format::Record&&)>;

// Reads a text input into records, in file order. Throws std::runtime_error naming the file
// when it cannot be opened; bad lines are appended to `warnings`.
void read_text_input(const std::filesystem::path& path, InputKind kind, const RecordSink& sink,
                     std::vector<std::string>& warnings);

// The readers behind it (tsv_reader.cpp, jsonl_reader.cpp, coz_reader.cpp), each given
// the open file's lines one at a time.
void read_tsv_lines(std::istream& in, const std::string& name, const RecordSink& sink,
                    std::vector<std::string>& warnings);
void read_jsonl_lines(std::istream& in, const std::string& name, const RecordSink& sink,
                      std::vector<std::string>& warnings);
void read_coz_lines(std::istream& in, const std::string& name, const RecordSink& sink,
                    std::vector<std::string>& warnings);

}  // namespace cprof::report
